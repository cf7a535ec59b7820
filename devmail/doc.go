// Package devmail is the sandbox mail server that email-mcp runs in its own
// process when no IMAP_HOST is configured: an IMAP server (go-imap v2
// imapserver over internal/memstore, a fork of imapmemserver) and a catch-all SMTP server
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
// \HasChildren/\HasNoChildren, where Dovecot 2.3 sends them: both on a plain
// LIST; on an extended one, children only with RETURN (CHILDREN) and
// special-use only with RETURN (SPECIAL-USE) or the SPECIAL-USE selection.
// internal/mailtest runs this server for the tests of other packages, so
// that what passes there passes on Dovecot too. CREATE makes missing parent
// folders; RENAME moves inferior folders along; DELETE and RENAME of INBOX
// are refused.
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
// Deeply nested mail is kept too. BODYSTRUCTURE, body sections and SEARCH
// TEXT/BODY read a message in one linear pass; a part nested more than 100
// levels deep (multipart and message/rfc822 levels), or past 10,000 parts,
// is answered as one opaque application/octet-stream leaf, so the answers
// stay bounded and no walk re-reads the rest of the message at each level.
// It is flattened rather than refused at DATA: the SMTP client of an app
// under test would only see a failure it cannot act on, and mail already
// in a data dir or APPENDed needs the same answer.
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
//	journal.jsonl          changes since the last snapshot, one a line:
//	                       {"crc":"<CRC-32C of e>","e":{…}}
//	state.json             the last snapshot, one record a line in the
//	                       same wrapper: a header (UIDVALIDITY counter,
//	                       journal position), then each folder (its
//	                       UIDVALIDITY and UIDNEXT) followed by its
//	                       messages (UID, file, flags, internal date), in
//	                       UID order
//
// A restart keeps every folder's UIDVALIDITY and every message's UID, so
// ids, cursors and since values taken before it still work after it. The
// mailboxes live in a fork of imapmemserver (internal/memstore) that can
// put a message back under its own UID and reports COPY, MOVE and EXPUNGE
// with the UIDs they made or removed.
//
// Every SMTP delivery, Deliver and APPEND writes its message file (temp file,
// fsync, rename) and a journal line (fsync) before it is answered. CREATE,
// DELETE, RENAME, COPY, MOVE and EXPUNGE are journaled too, with their UIDs
// (a MOVE is one line). Flags (STORE, FETCH without PEEK) and SUBSCRIBE
// reach the disk with the next snapshot, taken 250 ms after a burst of
// changes and at Close: a crash can lose those last changes, never an
// acknowledged message, and never hands out a UID twice. A snapshot reads
// the memory store directly, holding the account's mutation lock so that it
// sees one consistent state. state.json is replaced atomically (temp file +
// rename), then the journal is emptied and message files no folder names
// any more are removed; state.json lists them ("removing", with its
// "written_at"), so that at the next start a file a crash left behind is
// known as expunged mail. At Start the snapshot is loaded and the journal
// entries after its journal_seq replayed; a folder is found by its
// UIDVALIDITY, which RENAME keeps.
//
// Damage is survived, never repaired by deleting. The message files are the
// truth: every intact one (its content matches its name) that no readable
// line places, and that an undamaged state and journal do not prove
// expunged, is loaded into a "Recovered" folder. A message file that is
// missing or does not match its hash is skipped with a warning and left on
// disk. A line whose checksum fails (a write cut short, or damage) is
// skipped, and costs only what it holds: a journal line its change (every
// UIDNEXT and the UIDVALIDITY counter then move past what it can have
// used), a state message line that message's place, a state folder line
// that folder's UIDs (its mail is in Recovered, the folder gets a new
// UIDVALIDITY), the state header the journal position (the journal is
// replayed whole) and the counter (it moves past any value it can have
// held: past the largest the file still shows, and past 2^22). A damaged
// state.json is kept aside as state.json.corrupt-<time>; with no readable
// line, or missing while message files are there, the state is lost: every
// folder gets a new UIDVALIDITY and its mail is in Recovered. A version 1
// data dir (no UIDs kept) is read and gets new UIDVALIDITY values once.
// One process at a time may use a data dir; a second one on the same ports
// fails to listen before it reads it.
//
// # Shutdown
//
// [Server.Close] stops both listeners, closes every connection, waits for
// the goroutines it started (bounded, 5 s per step), takes the last snapshot
// and closes the journal. It is idempotent.
package devmail
