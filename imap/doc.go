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
// # Messages
//
// Reads (Search, FetchMessage, FetchParts, StreamPart) EXAMINE the folder,
// writes (SetFlags, Move) SELECT it. A connection remembers its selected
// folder and the next operation on the same folder sends no SELECT (a
// read-write selection serves reads too). The server keeps a selected
// session current by itself — new mail and expunges come with every
// answer, and SEARCH and FETCH see the folder as it is now — and a server
// whose selected folder is deleted or recreated ends the session, which
// drops the connection with its selection: so the cache never hides a new
// EXISTS or UIDVALIDITY. A failed SELECT forgets the selection (the server
// has none either). A missing folder is always ErrFolderNotFound.
//
// Search costs a constant number of commands whatever the folder size:
// EXAMINE (when needed), one UID SEARCH returning every matching UID (as
// ranges with ESEARCH), one UID FETCH of the page only (UID FLAGS ENVELOPE
// RFC822.SIZE INTERNALDATE BODYSTRUCTURE). Pages run newest first with a
// UID cursor (PageRequest.BeforeUID) bound to a UIDVALIDITY
// (ErrUIDValidityChanged). Total counts every match, whatever the cursor.
// BODYSTRUCTURE gives the exact Summary.HasAttachments; measured against
// BODY.PEEK[HEADER.FIELDS (CONTENT-TYPE)] on a 50-message page it cost the
// same within noise (1.51 against 1.48 MB and 22.7k against 22.3k
// allocations per page, client and in-process server together), so the
// exact answer won. The HasAttachments filter itself is the server's
// approximation (HEADER Content-Type "multipart/mixed"). Non-ASCII terms
// go with CHARSET UTF-8 (not to IMAP4rev2 or UTF8=ACCEPT servers, which
// take UTF-8 anyway); a NO [BADCHARSET] is ErrSearchCharset, not retried:
// the term cannot be said in ASCII.
//
// Nothing here sets \Seen by reading: bodies are fetched with BODY.PEEK.
// FetchMessage gets the structure and the first prefixBytes of the raw
// message in one UID FETCH; FetchParts gets encoded section bodies, each
// cut at maxBytes; StreamPart copies one section into an io.Writer as it
// arrives, under a deadline of CommandTimeout plus its size at 256 KiB/s.
// Part.Attachments and Part.HasAttachments apply one rule for search
// summaries and attachment lists.
//
// SetFlags and Move check first that every UID exists (one UID SEARCH UID)
// and change nothing otherwise (ErrMessageNotFound; for SetFlags a
// *MissingUIDsError naming them). Move uses UID MOVE, or with UIDPLUS UID
// COPY then UID STORE +FLAGS.SILENT (\Deleted) and UID EXPUNGE of that UID
// alone; a server with neither gets ErrUnsupported, never a folder-wide
// EXPUNGE that would remove other messages marked \Deleted. Append
// returns the APPENDUID (0 without UIDPLUS). Arguments that cannot make a
// request (UID 0, no flag to change, a limit out of range, moving a
// message to its own folder) are ErrInvalid before any I/O.
//
// # Security
//
// SecurityTLS and SecurityStartTLS never send a command other than STARTTLS,
// and never the password, before TLS is up. SecurityStartTLSOptional looks
// at the plaintext greeting first and reconnects with STARTTLS when it is
// offered. Certificates are verified against TLSConfig.RootCAs or the system
// roots, for Host unless TLSConfig.ServerName says otherwise.
package imap
