package imap_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// attachmentStructure is a text part and a base64 attachment a.bin at [2].
const attachmentStructure = `BODYSTRUCTURE (("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 2 1 NIL NIL NIL NIL)` +
	`("application" "octet-stream" NIL NIL NIL "base64" 8 NIL ("attachment" ("filename" "a.bin")) NIL NIL) "mixed" ("boundary" "b") NIL NIL NIL)`

// nilStream streams part [2] of UID 5 from a scripted server.
func nilStream(t *testing.T, partAnswer string) (string, int64, error) {
	host, port := mailtest.ScriptedIMAP(t, mailtest.OneMessage{BodyStructure: attachmentStructure, Part: partAnswer})
	c := imap.New(imap.Options{Host: host, Port: port, Username: "u", Password: "p", Security: imap.SecurityPlain, PoolSize: 1,
		CommandTimeout: 10 * time.Second})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var buf bytes.Buffer
	n, err := c.StreamPart(ctx, "INBOX", 5, []int{2}, &buf)
	return buf.String(), n, err
}

// A server that answers BODY[2] with NIL (RFC 3501 §9: body section
// data is an nstring; RFC 2180 §4.1.3: a message expunged by another
// session may be fetched as NIL) delivered no part. StreamPart must not
// report success with 0 bytes written: download_attachment then commits
// an empty file as the attachment.
func TestStreamPartNilSection(t *testing.T) {
	// The scripted server works: with the part's bytes they stream.
	if got, _, err := nilStream(t, "BODY[2] {8}\r\nAAECAw=="); err != nil || got != "AAECAw==" {
		t.Fatalf("control: StreamPart = %q, %v", got, err)
	}
	if _, n, err := nilStream(t, "BODY[2] NIL"); err == nil {
		t.Errorf("StreamPart of a part the server answered NIL = %d bytes, nil error; want an error (ErrMessageNotFound or ErrPartNotFound)", n)
	}
}
