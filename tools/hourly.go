package tools

import (
	"time"

	"github.com/email-mcp/email-mcp/internal/hourly"
)

// hourlyLimit is this process's own share of SEND_MAX_PER_HOUR
// (send_policy.go): hourly.Limit under the names send_policy.go calls.
// The zero value is ready.
type hourlyLimit struct{ l hourly.Limit }

func (h *hourlyLimit) take(now time.Time, limits map[string]int) time.Duration {
	return h.l.Take(now, limits)
}

func (h *hourlyLimit) forget(key string, t time.Time) { h.l.Forget(key, t) }
