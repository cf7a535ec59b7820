// Command authserverd runs mailtest's OAuth 2.0 authorization server on
// loopback for the Dovecot OAuth tier (scripts/dovecot/oauth-tier.sh):
// Dovecot's oauth2 passdb checks tokens at its /introspect, and the tier's
// Go tests drive it through a second, admin listener.
//
//	authserverd -env FILE
//
// It writes FILE with DOVECOT_OAUTH_TOKEN_URL, DOVECOT_OAUTH_DEVICE_URL,
// DOVECOT_OAUTH_INTROSPECT_URL, DOVECOT_OAUTH_CLIENT_ID,
// DOVECOT_OAUTH_CLIENT_SECRET and DOVECOT_OAUTH_ADMIN_URL, then serves until
// SIGTERM. Admin: POST /refresh?user=U (prints a new refresh token for U),
// /revoke?token=RT, /expire, /approve?code=C&user=U.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/email-mcp/email-mcp/internal/mailtest"
)

func main() {
	envFile := flag.String("env", "", "file to write the variables to")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	as, srv := mailtest.ServeAuth(ln)
	admin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /refresh", func(w http.ResponseWriter, r *http.Request) {
		rt := as.IssueRefresh()
		as.User(rt, r.URL.Query().Get("user"))
		fmt.Fprint(w, rt)
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) { as.Revoke(r.URL.Query().Get("token")) })
	mux.HandleFunc("POST /expire", func(http.ResponseWriter, *http.Request) { as.ExpireAll() })
	mux.HandleFunc("POST /approve", func(w http.ResponseWriter, r *http.Request) {
		as.ApproveAs(r.URL.Query().Get("code"), r.URL.Query().Get("user"))
	})
	asrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = asrv.Serve(admin) }()
	base := "http://" + ln.Addr().String()
	vars := fmt.Sprintf("DOVECOT_OAUTH_TOKEN_URL=%s/token\nDOVECOT_OAUTH_DEVICE_URL=%s/device\nDOVECOT_OAUTH_INTROSPECT_URL=%s/introspect\n"+
		"DOVECOT_OAUTH_CLIENT_ID=%s\nDOVECOT_OAUTH_CLIENT_SECRET=%s\nDOVECOT_OAUTH_ADMIN_URL=http://%s\n",
		base, base, base, as.ClientID, as.Secret, admin.Addr())
	if err := os.WriteFile(*envFile+".tmp", []byte(vars), 0o600); err != nil {
		log.Fatal(err)
	}
	if err := os.Rename(*envFile+".tmp", *envFile); err != nil {
		log.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	_ = srv.Close()
	_ = asrv.Close()
}
