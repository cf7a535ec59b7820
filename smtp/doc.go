// Package smtp composes mail and submits it over SMTP: the send side of
// email-mcp. It wraps go-message (composition) and go-smtp (submission);
// none of their types leave the package.
//
// # Composing
//
// A Message holds addresses, a subject, text and/or HTML bodies, thread ids
// and attachments that are streamed from their Open functions:
//
//	m := &smtp.Message{
//		From:    smtp.Address{Name: "Agent", Email: "agent@example.com"},
//		To:      []smtp.Address{{Email: "bob@example.com"}},
//		Subject: "Grüße",
//		Text:    "Hello",
//	}
//	if err := m.Validate(); err != nil { ... } // errors.Is(err, smtp.ErrInvalidArgument)
//
// Validate refuses control characters (CR, LF, NUL, ...) in every field that
// ends up in a header, so no input can add a header field. m.WriteTo writes
// the same bytes every time it is called: send them, then APPEND the same
// message to the Sent folder. Bcc recipients are never written; they are in
// m.Envelope() only. ParseAddress and ParseAddressList read user input with
// net/mail. ReplySubject, ReplyThread, ReplyRecipients, Attribution and
// QuoteBody build replies.
//
// # Sending
//
//	s := smtp.New(smtp.Options{Host: "smtp.example.com", Port: 587,
//		Security: smtp.SecurityStartTLS, Username: u, Password: p})
//	res, err := s.Send(ctx, m.Envelope(), m)
//
// Every Send uses its own connection. TLS is set up per Security and the
// certificate is verified before any AUTH; credentials never cross a
// plaintext connection to a non-loopback host unless
// Options.AllowPlainAuth. A recipient the server refuses does not stop the
// others: Send returns the accepted and rejected ones, and fails with a
// *RejectedError only when nothing could be delivered. ctx bounds the whole
// exchange: a timeout keeps context.DeadlineExceeded (or
// os.ErrDeadlineExceeded) in the error chain. Check and Diagnose test the
// configuration for /ready and `email-mcp check`.
//
// Errors wrap one of ErrAuthFailed, ErrRejected, ErrTLS, ErrConnection,
// ErrTooLarge or ErrInvalidArgument, or a timeout, together with the cause.
package smtp
