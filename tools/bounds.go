package tools

import (
	"github.com/email-mcp/email-mcp/imap"
	"github.com/email-mcp/email-mcp/message"
)

// The shaping of header values into results is message's (shape.go:
// message.BoundSubject, BoundAddresses, FirstAddress, BoundID, BoundLink,
// BoundName, BoundContentType); these give it each adapter's addresses.

func imapAddr(a imap.Address) (string, string)       { return a.Name, a.Email }
func messageAddr(a message.Address) (string, string) { return a.Name, a.Email }
