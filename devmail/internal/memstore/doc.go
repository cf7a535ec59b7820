// Package memstore is the in-memory mailbox store under devmail's IMAP
// server: a fork of go-imap v2.0.0-beta.8's imapserver/imapmemserver (MIT,
// see LICENSE), changed where devmail needs what upstream cannot give:
//
//   - a restart keeps every folder's UIDVALIDITY and every message's UID
//     ([User.Restore], [User.SetUIDValidityCounter]), so ids handed out
//     before a restart stay valid after it;
//   - a snapshot reads the messages directly ([User.Snapshot]), not over
//     an IMAP connection;
//   - BODYSTRUCTURE, body sections with a part path, BINARY and SEARCH
//     TEXT/BODY walk a message once (mime.go) instead of re-reading the rest
//     of it at every level, and a part nested deeper than [MaxMIMEDepth] or
//     past [MaxMIMEParts] parts is an opaque application/octet-stream leaf
//     (still served byte for byte, still searched as raw text).
//
// Upstream's files are kept as they were apart from these additions, so
// that a later upstream fix is easy to carry over.
package memstore
