// Package devmail is the sandbox mail server that email-mcp runs in its own
// process when no IMAP_HOST is configured: an IMAP server (go-imap v2
// imapserver over an imapmemserver store) and a catch-all SMTP server
// (go-smtp), both on loopback, in front of one account. The MCP tools talk
// to it as to any other IMAP/SMTP server.
//
//	srv, err := devmail.Start(ctx, devmail.Options{
//		IMAPAddr: "127.0.0.1:1143",
//		SMTPAddr: "127.0.0.1:2525",
//		Password: generated,
//		DataDir:  os.Getenv("EMAIL_DATA_DIR"), // "" = in memory
//		Logger:   logger,
//	})
//	if err != nil { ... }
//	defer srv.Close()
//
// # IMAP
//
// Plaintext on loopback (no STARTTLS); LOGIN and AUTHENTICATE PLAIN accept
// only Options.Username and Options.Password, anything else gets
// NO [AUTHENTICATIONFAILED]. Capabilities are what imapserver and our
// session really implement: IMAP4rev1, IDLE, UNSELECT, ENABLE, NAMESPACE,
// UIDPLUS, ESEARCH, LIST-EXTENDED, LIST-STATUS, MOVE, CHILDREN, SPECIAL-USE,
// CREATE-SPECIAL-USE, STATUS=SIZE and APPENDLIMIT (= MaxMessageBytes).
// UNAUTHENTICATE is not advertised: imapserver panics when it is.
//
// INBOX and the special-use folders Sent, Drafts, Trash, Junk and Archive
// exist at every start. imapmemserver neither stores nor reports special-use
// attributes, so the session wraps imapmemserver.UserSession and keeps a
// folder registry: every LIST (plain, LIST RETURN (SPECIAL-USE), LIST
// (SPECIAL-USE), LIST-STATUS, LSUB) is answered from it, with \Sent, \Drafts,
// \Trash, \Junk, \Archive (or what CREATE … (USE (…)) gave) and
// \HasChildren/\HasNoChildren. CREATE makes missing parent folders; RENAME
// moves inferior folders along; DELETE and RENAME of INBOX are refused.
//
// IDLE is re-implemented on Poll: imapmemserver's own IDLE can miss the
// EXISTS of a delivery that lands just as IDLE starts (until the next change).
//
// # SMTP
//
// Any sender, any recipient (at most 100 per message), no AUTH needed, but
// AUTH PLAIN and LOGIN are offered and accept any credentials, because apps
// under test often insist on authenticating. STARTTLS is offered with a
// self-signed ECDSA P-256 certificate made in memory at Start for 127.0.0.1,
// ::1, localhost and Domain ([Server.CertificatePEM] gives it to clients
// that want to verify it). Messages above MaxMessageBytes get 552 and are
// not stored.
//
// An accepted message is stored in INBOX, with the internal date of its
// arrival, before the 250 reply, with three headers in front:
//
//	Return-Path: <sender@app.test>
//	Envelope-To: alice@x.test, bcc-inbox@y.test
//	Received: from helo.name ([127.0.0.1])
//		by sandbox.localhost (devmail) with ESMTPS id 5f0c…
//		for <alice@x.test>; Mon, 02 Jan 2006 15:04:05 -0700
//
// Envelope-To lists every envelope recipient, as Exim does, so a test inbox
// that only got a Bcc can still be matched. The protocol is ESMTP, ESMTPS
// (STARTTLS), ESMTPA or ESMTPSA (after AUTH), with UTF8SMTP in place of
// ESMTP when MAIL FROM asked for SMTPUTF8 (RFC 6531, which the sandbox
// offers, with 8BITMIME, as the big providers do); "for" appears with a single
// recipient only. [Server.Deliver] stores a message the same way (with
// "with local" and no Return-Path), without SMTP.
//
// Odd messages are kept, never refused: imapserver serves an empty BODY[]
// for a message whose header block does not parse, so when the data is empty
// or its header block does not parse (a "From x" mbox line, a first line
// without a colon or starting with white space), an empty line is put after
// the trace headers and the
// data is stored byte for byte as the body. An IMAP APPEND of such a message
// gets the same empty line in front.
//
// # Persistence (Options.DataDir)
//
// Without a DataDir everything lives in memory. With one, mail delivered or
// appended survives a restart, with its folders (user-created ones
// included), special-use attributes, subscriptions, flags and internal
// dates. The directory (created 0700, files 0600) holds:
//
//	messages/<sha256>.eml  one file per distinct message content
//	journal.jsonl          changes since the last snapshot, one JSON a line
//	state.json             the last snapshot: folders, and per message its
//	                       file, flags and internal date, in UID order
//
// Every SMTP delivery, Deliver and APPEND writes its message file (temp file,
// fsync, rename) and a journal line (fsync) before it is answered. CREATE,
// DELETE and RENAME are journaled too. Everything else (STORE, flags set by
// FETCH, COPY, MOVE, EXPUNGE, SUBSCRIBE) reaches the disk with the next
// snapshot, taken 250 ms after a burst of changes and at Close: a crash can
// lose those last changes, never an acknowledged message. imapmemserver
// hides its messages, so a snapshot reads them like a client over an
// in-memory IMAP connection (UID, FLAGS, INTERNALDATE; a body only for a
// copied or moved message, to find its file), holding the account's
// mutation lock so that it sees one consistent state. state.json is
// replaced atomically (temp file + rename), then the journal is emptied and
// message files no folder names any more are removed. At Start the snapshot
// is loaded and the journal entries after its journal_seq replayed.
//
// UIDs are renumbered (1, 2, … in stored order) at every start, so
// UIDVALIDITY changes too: Start first advances imapmemserver's UIDVALIDITY
// counter past every value the data dir has seen, so a UID is never reused
// under the same UIDVALIDITY.
//
// Damage is survived, never repaired by deleting: a message file that is
// missing or does not match its hash is skipped with a warning and left on
// disk; a journal line that does not parse (a write cut short) is skipped; a
// state.json that does not parse is renamed to state.json.corrupt-<time>,
// and a missing one while message files are there is taken as lost: every
// intact message file the journal does not name is loaded into a
// "Recovered" folder, and UIDVALIDITY starts past any value the lost state
// can have used (past the damaged file's own, else at 2^22). One process
// at a time may use a data dir; a second one on the same ports fails to
// listen before it reads it.
//
// # Shutdown
//
// [Server.Close] stops both listeners, closes every connection, waits for
// the goroutines it started (bounded, 5 s per step), takes the last snapshot
// and closes the journal. It is idempotent.
package devmail
