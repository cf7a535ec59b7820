package outbox

import (
	"fmt"
	"io"

	"github.com/email-mcp/email-mcp/attachments"
	"github.com/email-mcp/email-mcp/smtp"
)

// MaxAttachments bounds the files of one message.
const MaxAttachments = 20

// Attached is one workspace file a message carries.
type Attached struct {
	Path        string // workspace-relative, as the result shows it
	Name        string
	ContentType string
	Size        int64
}

// Attach adds the workspace files of paths to m, at most MaxAttachments
// and MAX_ATTACHMENT_SIZE_MB in all, each opened when the message is
// written, and lists them.
func Attach(files *attachments.Workspace, paths []string, m *smtp.Message) ([]Attached, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if files == nil {
		return nil, invalid("attachments are disabled: set EMAIL_BASE_DIR to a folder for the attachments workspace")
	}
	if len(paths) > MaxAttachments {
		return nil, invalid("attachment_paths takes at most %d files", MaxAttachments)
	}
	var total int64
	var listed []Attached
	for _, p := range paths {
		f, err := files.Stat(p)
		if err != nil {
			return nil, &Error{Kind: KindPath, Cause: err, Path: p}
		}
		total += f.Size
		if total > files.MaxFileSize() {
			return nil, &Error{Kind: KindTooLarge, Message: fmt.Sprintf("the attachments add up to more than %d bytes (MAX_ATTACHMENT_SIZE_MB)", files.MaxFileSize())}
		}
		path := p
		m.Attachments = append(m.Attachments, smtp.Attachment{
			Filename: f.Name, ContentType: f.ContentType, Size: f.Size,
			Open: func() (io.ReadCloser, error) { _, rc, err := files.Open(path); return rc, err },
		})
		listed = append(listed, Attached{Path: f.Path, Name: f.Name, ContentType: f.ContentType, Size: f.Size})
	}
	return listed, nil
}
