package auth

import (
	"math"
	"net/http"
	"strconv"
	"sync"

	"golang.org/x/time/rate"
)

// CodeRateLimited is the error code of the 429 answer.
const CodeRateLimited = "RATE_LIMITED"

var rateLimited = newRefusal(http.StatusTooManyRequests, CodeRateLimited,
	"too many requests for this API key; slow down and retry after the Retry-After seconds")

// RateLimit returns a middleware that allows perMinute requests per API key
// (a token bucket with a burst of a tenth of a minute's worth, at least 10),
// answering 429 with Retry-After beyond it. It must sit behind New's
// middleware, which puts the key id in the context; requests without one
// share one bucket. perMinute <= 0 returns a middleware that does nothing.
func RateLimit(perMinute int) func(http.Handler) http.Handler {
	if perMinute <= 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	burst := max(perMinute/10, 10)
	l := &limiter{every: rate.Limit(float64(perMinute) / 60), burst: burst, buckets: map[string]*rate.Limiter{}}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, _ := KeyID(r.Context())
			res := l.bucket(id).Reserve()
			if wait := res.Delay(); wait > 0 {
				res.Cancel()
				w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(rateLimited.status)
				_, _ = w.Write(rateLimited.body)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// limiter keeps one token bucket per key id. The number of ids is bounded by
// the configured keys (unknown keys never get past New), so the map does not
// grow without bound.
type limiter struct {
	every   rate.Limit
	burst   int
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func (l *limiter) bucket(id string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[id]
	if !ok {
		b = rate.NewLimiter(l.every, l.burst)
		l.buckets[id] = b
	}
	return b
}
