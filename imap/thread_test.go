package imap_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/internal/mailtest"
)

// TestSearchThread finds a message by its Message-ID, In-Reply-To or
// References, an id matching whole (1@x is not 11@x), on the account (and so
// on Dovecot in its tier); StreamMessage gives the stored bytes; AddKeywords
// sets $Forwarded.
func TestSearchThread(t *testing.T) {
	acct := mailtest.NewAccount(t)
	folder := acct.Folder("thread-search")
	acct.CreateFolder(t, folder)
	msgs := []string{
		"Message-ID: <1@thread.test>\r\nSubject: root\r\n\r\nroot\r\n",
		"Message-ID: <11@thread.test>\r\nSubject: lookalike\r\n\r\nother\r\n",
		"Message-ID: <2@thread.test>\r\nIn-Reply-To: <1@thread.test>\r\nSubject: child\r\n\r\nchild\r\n",
		"Message-ID: <3@thread.test>\r\nReferences: <0@thread.test>\r\n <1@thread.test> <2@thread.test>\r\nSubject: grandchild\r\n\r\ngc\r\n",
	}
	var uids []uint32
	for _, m := range msgs {
		uids = append(uids, acct.Append(t, folder, []byte("From: a@thread.test\r\n"+m)))
	}
	c := imap.New(imap.Options{Host: acct.Host, Port: acct.Port, Username: acct.Username, Password: acct.Password, Security: imap.SecurityPlain})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	got, err := c.SearchThread(ctx, folder, []string{"1@thread.test"})
	if want := []uint32{uids[0], uids[2], uids[3]}; err != nil || !slices.Equal(got, want) {
		t.Errorf("SearchThread(1@) = %v, %v; want %v", got, err, want)
	}
	got, err = c.SearchThread(ctx, folder, []string{"bad id", "", "0@thread.test"})
	if err != nil || !slices.Equal(got, []uint32{uids[3]}) {
		t.Errorf("SearchThread(0@ and unusable ids) = %v, %v; want [%d]", got, err, uids[3])
	}
	if got, err := c.SearchThread(ctx, folder, []string{"a b"}); err != nil || len(got) != 0 {
		t.Errorf("SearchThread(no usable id) = %v, %v; want none", got, err)
	}
	if _, err := c.SearchThread(ctx, acct.Folder("no-such-folder"), []string{"1@thread.test"}); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("SearchThread(missing folder) = %v, want ErrFolderNotFound", err)
	}
	var buf bytes.Buffer
	if n, err := c.StreamMessage(ctx, folder, uids[3], &buf); err != nil || n != int64(buf.Len()) || !strings.Contains(buf.String(), "Subject: grandchild") {
		t.Errorf("StreamMessage() = %d, %v: %q", n, err, buf.String())
	}
	flags, err := c.AddKeywords(ctx, folder, []uint32{uids[0]}, []string{"$Forwarded"})
	if err != nil || !slices.Contains(flags[uids[0]], "$Forwarded") || !slices.Contains(acct.Flags(t, folder, uids[0]), "$Forwarded") {
		t.Errorf("AddKeywords() = %v, %v; want $Forwarded", flags, err)
	}
	if _, err := c.AddKeywords(ctx, folder, []uint32{uids[0]}, []string{"bad keyword"}); err == nil {
		t.Error("AddKeywords(bad keyword) = nil, want ErrInvalid")
	}
}
