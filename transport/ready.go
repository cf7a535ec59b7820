package transport

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/email-mcp/email-mcp/mcpkit"
)

// readyTTL is how long a /ready answer is reused. /ready needs no key, and
// each check costs an IMAP NOOP through the pool and an SMTP connection: a
// client polling it fast could otherwise keep the pool busy.
const readyTTL = time.Second

// readyHandler runs every check concurrently with a deadline and answers 200
// or 503 naming the failing parts with their codes (no host or server text).
// Requests share one run: an answer younger than readyTTL is reused, and a
// request that comes while the checks run waits for them.
func readyHandler(checks []ReadyCheck, classify func(error) *mcpkit.Error) http.Handler {
	rc := &readyCache{checks: checks, now: time.Now, classify: classify}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, body := rc.get(r.Context())
		writeJSON(w, code, body)
	})
}

// readyCache holds the last /ready answer and the run in progress.
type readyCache struct {
	checks   []ReadyCheck
	now      func() time.Time
	classify func(error) *mcpkit.Error // the server's Classify: a failed check's code

	mu      sync.Mutex
	at      time.Time // when the last answer was made; zero: none yet
	code    int
	body    map[string]any
	running chan struct{} // closed when the run in progress ends
}

// get returns a fresh enough answer, running the checks when there is none.
func (rc *readyCache) get(ctx context.Context) (int, map[string]any) {
	rc.mu.Lock()
	if !rc.at.IsZero() && rc.now().Sub(rc.at) < readyTTL {
		defer rc.mu.Unlock()
		return rc.code, rc.body
	}
	if rc.running == nil {
		rc.running = make(chan struct{})
		go rc.run(rc.running)
	}
	running := rc.running
	rc.mu.Unlock()
	select {
	case <-running:
	case <-ctx.Done():
		return http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": map[string]string{}}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.code, rc.body
}

// run runs the checks once, stores the answer and closes done.
func (rc *readyCache) run(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	results := make(map[string]string, len(rc.checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range rc.checks {
		wg.Go(func() {
			status := "ok"
			if err := c.Check(ctx); err != nil {
				te := mcpkit.Classify(err, nil)
				if rc.classify != nil {
					te = rc.classify(err)
				}
				status = string(te.Code) + ": " + te.Message
			}
			mu.Lock()
			results[c.Name] = status
			mu.Unlock()
		})
	}
	wg.Wait()
	code, status := http.StatusOK, "ready"
	for _, v := range results {
		if v != "ok" {
			code, status = http.StatusServiceUnavailable, "unavailable"
		}
	}
	rc.mu.Lock()
	rc.at, rc.code, rc.body = rc.now(), code, map[string]any{"status": status, "checks": results}
	rc.running = nil
	rc.mu.Unlock()
	close(done)
}
