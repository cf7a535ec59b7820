package auth

import "net/http"

// Public returns the middleware for endpoints that anyone who reaches the
// server may read (the API documentation, /docs and /openapi.json): every
// check of New except the key. A key in the query string is still refused
// (400), the Host and Origin rules still apply (403), allowed origins get
// their CORS answers, and the key headers, when a client sends them anyway,
// are removed before next runs. opts.Keys is ignored.
func Public(opts Options) (func(http.Handler) http.Handler, error) {
	g, err := newGuard(opts)
	if err != nil {
		return nil, err
	}
	g.public = true
	return g.wrap, nil
}

// withoutKeyHeaders returns a copy of r without the headers that may carry
// a key.
func withoutKeyHeaders(r *http.Request) *http.Request {
	if r.Header.Get("X-API-Key") == "" && r.Header.Get("Authorization") == "" {
		return r
	}
	r2 := r.Clone(r.Context())
	r2.Header.Del("X-API-Key")
	r2.Header.Del("Authorization")
	return r2
}
