// Package imap is email-mcp's IMAP adapter: a pool of logged-in connections
// to one account, the mailbox operations the tools need, and the
// translation of every IMAP failure into a few sentinel errors. No type of
// go-imap leaves the package.
//
// # Using it
//
//	c := imap.New(imap.Options{
//		Host: "imap.example.org", Port: 993, Username: u, Password: p,
//		Security: imap.SecurityTLS, PoolSize: 3,
//	})
//	defer c.Close()
//	folders, err := c.ListFolders(ctx, true)
//	switch {
//	case errors.Is(err, imap.ErrAuthFailed): // wrong credentials: not retried
//	case errors.Is(err, context.DeadlineExceeded): // the server did not answer in time
//	}
//
// New does no I/O. The first operation dials; `email-mcp check` uses
// Diagnose, which connects on a connection of its own and reports each step.
//
// # The pool
//
// Every operation goes through Client.do: it takes a token (at most
// PoolSize connections are in use or being dialled at once; waiting honours
// ctx), reuses the most recently used idle connection or dials, runs the
// operation under ctx and CommandTimeout, and gives the connection back.
// A connection is reused after success or after a plain NO answer (a
// missing folder leaves the session healthy); after anything else — BAD,
// BYE, an I/O error, a deadline, a cancellation — it is closed. One idle for
// longer than IdleCheck must answer a NOOP before reuse; one whose reader
// saw the server hang up is dropped without a round trip.
//
// A failed dial or login is not retried within the call: its error comes
// back at once. For a backoff window after it (100 ms doubling to 5 s, with
// jitter) later calls fail at once with the same error instead of dialling,
// so a dead server or a wrong password is not hammered.
//
// # Deadlines
//
// go-imap takes no context and sets its own deadlines on the connection all
// the time. Each connection therefore sits on a net.Conn wrapper that clamps
// those deadlines to a limit, and context.AfterFunc moves the limit to "now"
// when ctx ends or CommandTimeout passes: any blocked read or write fails,
// the command's Wait returns, and the connection is discarded. The error
// then carries context.DeadlineExceeded and os.ErrDeadlineExceeded (or
// context.Canceled), which go-imap's own errors lose.
//
// # Security
//
// SecurityTLS and SecurityStartTLS never send a command other than STARTTLS,
// and never the password, before TLS is up. SecurityStartTLSOptional looks
// at the plaintext greeting first and reconnects with STARTTLS when it is
// offered. Certificates are verified against TLSConfig.RootCAs or the system
// roots, for Host unless TLSConfig.ServerName says otherwise.
package imap
