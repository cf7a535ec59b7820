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
// read-write selection serves reads too). A kept selection may answer from
// an old view, though: Dovecot runs a command on the session's view as of
// its last sync and reports new mail, expunges and flag changes at the end
// of it. So a search on a kept selection runs again when its own answer
// reported a change (a search by flags syncs with a NOOP first), and an
// operation that finds no message there syncs and looks once more (see
// selection in select.go). A server whose selected folder is deleted or
// recreated ends the session, which drops the connection with its
// selection: so the cache never hides a new UIDVALIDITY. A failed SELECT
// forgets the selection (the server has none either). A missing folder is
// always ErrFolderNotFound.
//
// Search costs a constant number of commands whatever the folder size:
// EXAMINE (when needed), one UID SEARCH returning every matching UID (as
// ranges with ESEARCH; a second one when the first reported a change, a
// NOOP before it for a search by flags on a kept selection), one UID FETCH
// of the page only (UID FLAGS RFC822.SIZE INTERNALDATE BODYSTRUCTURE and
// the summary's header fields as BODY.PEEK[HEADER.FIELDS (...)]<0.N>, each
// with a byte budget: not ENVELOPE, which carries whole subjects and address
// lists; see summaryFields). CountMatches runs many searches pipelined (list_inboxes). Pages run newest first with a
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
// message in one UID FETCH, and FetchMessages the same of up to
// MaxPageSize messages in one UID FETCH too; FetchParts gets encoded
// section bodies, each cut at maxBytes; StreamPart copies one section into
// an io.Writer as it arrives, under a deadline of CommandTimeout plus its
// size at 256 KiB/s. Part.Attachments and Part.HasAttachments apply one
// rule for search summaries and attachment lists.
//
// ReadMessage reads a message for display in one call that chooses its
// own round trips on one connection: FetchMessage's UID FETCH; when the
// message is longer than the prefix, one UID FETCH of its text bodies
// (Part.Bodies, the one place that picks them); with MarkSeen, SetFlags'
// check and STORE on the same selection (SELECTed read-write from the
// start: one SELECT less than a read followed by SetFlags). It returns
// the decoded header and bodies and the attachments with their decoded
// sizes (exact within the fetched bytes, decoded with DecodeStream, the
// decoder of downloads). Bodies does the body half for a message fetched
// already (a reply, a forward).
//
// Thread follows a conversation (Message-ID, In-Reply-To, References) to
// a fixed point over the folder, INBOX, Sent, Archive and All, within its
// bounds (ThreadRounds, ThreadIDs, ThreadMessages), with SearchThread and
// FetchMessages, and returns it oldest first with the start of each text.
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
// # Watching folders
//
// Subscribe lets any number of waiters block until mail arrives in a
// folder. Each watched folder has one watcher: a goroutine with a
// connection of its own, dialled and logged in like a pool connection
// (same Security, TLS checks and deadlines) but never counted in PoolSize.
// It EXAMINEs the folder, keeps its UIDVALIDITY and the last UID it looked
// at (UIDNEXT-1 at first), and IDLEs. On EXISTS it ends the IDLE (DONE and
// its OK), sends UID SEARCH UID last+1:* (the result filtered again: n+1:*
// matches the last message when n+1 is beyond it), then UID FETCH (UID
// FLAGS INTERNALDATE RFC822.SIZE BODY.PEEK[]<0.256 KiB>) in batches of 64,
// hands every message to each subscriber it is new for, and IDLEs again.
// The search first costs a round trip but bounds what a fetch holds (16
// MiB) after a long disconnection, for a subscriber far behind or when
// thousands of messages are moved in at once, and sends no FETCH when
// nothing is new. A server without IDLE is polled with NOOP every
// PollInterval.
//
// Each subscription has a position, the UID up to which it has been
// served: afterUID at first (0: every message of the folder). The
// watcher searches from the lowest position, so a subscriber that starts
// behind it is caught up by the same round that serves the others, and
// each gets every message above its position once, in UID order. After a
// lost connection the watcher reconnects with the pool's backoff (which it
// shares with the pool; until that next attempt, Subscribe fails at once
// with the connect failure) and resumes from its last UID: mail that arrived
// meanwhile is delivered. A new UIDVALIDITY (the folder was recreated;
// servers end a session whose folder is deleted) closes every
// subscription with ErrUIDValidityChanged. A failure the server answered
// (ErrFolderNotFound, ErrAuthFailed, ErrTLS, a BAD) closes them with that
// error; a broken connection or a timeout is retried for as long as
// someone is subscribed. While a connect is failing, Subscribe fails at
// once with its error, as the pool does.
//
// Every WatchRefresh (5 min) the watcher ends its IDLE and EXAMINEs the
// folder again before the next one. A server that does not answer the DONE
// or the EXAMINE within CommandTimeout is taken for dead, as is a
// connection the server closes; TCP keepalive (Go's default) often
// notices a vanished peer first. The new EXAMINE also shows what the IDLE
// did not report: a folder deleted and created again under a session that
// the server did not end (Dovecot 2.3 then answers "NO Internal error"
// and no BYE; its new UIDVALIDITY), or a missed EXISTS (UIDNEXT).
// imapclient restarts an IDLE by itself after 28 minutes; WatchRefresh is
// capped at 25, so that never happens. Against Dovecot 2.3 a delivery
// reaches a subscriber about 0.5 s after the APPEND: Dovecot itself waits
// 500 ms before it reports a change to an IDLE session.
//
// The watcher never waits for a reader. Subscription.C holds 16 messages;
// after that a queue of up to WatchQueue (256) in all, which a goroutine
// of the subscription empties into C while it is not empty. One message
// more closes the subscription with ErrOverflow: the reader resubscribes
// from the last UID it handled and catch-up gives it the rest. A stalled
// subscriber holds at most WatchQueue messages of 256 KiB, which the
// other subscribers share. A watcher stops WatchLinger (60 s) after its
// last subscriber left. Client.Close ends every watcher and closes their
// subscriptions with ErrClosed.
//
// # Security
//
// SecurityTLS and SecurityStartTLS never send a command other than STARTTLS,
// and never the password, before TLS is up. SecurityStartTLSOptional looks
// at the plaintext greeting first and reconnects with STARTTLS when it is
// offered. Certificates are verified against TLSConfig.RootCAs or the system
// roots, for Host unless TLSConfig.ServerName says otherwise.
package imap
