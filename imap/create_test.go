package imap_test

import (
	"context"
	"errors"
	"testing"

	"github.com/email-mcp/email-mcp/imap"
)

func TestCreateFolder(t *testing.T) {
	ts := newTestServer(t, modePlain, nil)
	c := newClient(t, clientOptions(t, ts.Port, modePlain))
	ctx := context.Background()
	for range 2 { // the second time it exists already: still no error
		if err := c.CreateFolder(ctx, "Test Inboxes ä"); err != nil {
			t.Fatalf("CreateFolder() = %v", err)
		}
	}
	// The test server lists only the folders it was set up with: check the
	// folder by selecting it.
	if _, err := c.UIDValidity(ctx, "Test Inboxes ä"); err != nil {
		t.Errorf("the created folder cannot be selected: %v", err)
	}
	if _, err := c.UIDValidity(ctx, "Never Created"); !errors.Is(err, imap.ErrFolderNotFound) {
		t.Errorf("UIDValidity(missing) = %v, want ErrFolderNotFound (the check above could not fail)", err)
	}
	if err := c.CreateFolder(ctx, "bad\r\nname"); err == nil {
		t.Error("CreateFolder(bad name) = nil")
	}
}
