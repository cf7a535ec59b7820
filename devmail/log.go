package devmail

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// serverLog sends the upstream servers' log lines (mostly "connection reset
// by peer" noise) to slog at debug level; panics they recovered from go out
// at error level.
type serverLog struct {
	log  *slog.Logger
	name string
}

// Printf logs one line.
func (l serverLog) Printf(format string, args ...any) { l.emit(fmt.Sprintf(format, args...)) }

// Println logs one line.
func (l serverLog) Println(args ...any) { l.emit(strings.TrimSuffix(fmt.Sprintln(args...), "\n")) }

func (l serverLog) emit(text string) {
	level := slog.LevelDebug
	if strings.Contains(text, "panic") {
		level = slog.LevelError
	}
	l.log.Log(context.Background(), level, "devmail: "+l.name, "detail", text)
}
