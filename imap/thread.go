package imap

import (
	"context"
	"fmt"
	"io"

	goimap "github.com/emersion/go-imap/v2"
)

// MaxThreadIDs is the number of message ids SearchThread takes in one call.
const MaxThreadIDs = 50

// SearchThread returns the UIDs (ascending) of the messages of folder that
// belong to the conversation of ids: whose Message-ID, In-Reply-To or
// References header holds one of them. It is one UID SEARCH of ORed HEADER
// keys, each id in angle brackets so that "1@x" does not match "11@x".
// Ids that are empty, longer than 250 bytes or not printable ASCII are
// left out (a message id is ASCII; a non-ASCII term would need CHARSET);
// none left: no I/O. More than MaxThreadIDs is ErrInvalid.
func (c *Client) SearchThread(ctx context.Context, folder string, ids []string) ([]uint32, error) {
	op := fmt.Sprintf("search thread in %q", folder)
	if err := checkFolder(folder); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if len(ids) > MaxThreadIDs {
		return nil, fmt.Errorf("%s: %d ids, at most %d: %w", op, len(ids), MaxThreadIDs, ErrInvalid)
	}
	crit := threadCriteria(ids)
	if crit == nil {
		return []uint32{}, nil
	}
	var uids []uint32
	err := c.do(ctx, op, func(cn *conn) error {
		if _, _, err := cn.selectFolder(folder, false); err != nil {
			return err
		}
		var err error
		uids, err = searchUIDs(cn, crit)
		return err
	})
	if err != nil {
		return nil, err
	}
	return uids, nil
}

// threadCriteria is OR HEADER Message-ID <id> HEADER In-Reply-To <id>
// HEADER References <id> ... over the usable ids; nil when there is none.
func threadCriteria(ids []string) *goimap.SearchCriteria {
	var cs []goimap.SearchCriteria
	for _, id := range ids {
		if !threadID(id) {
			continue
		}
		for _, key := range []string{"Message-ID", "In-Reply-To", "References"} {
			cs = append(cs, goimap.SearchCriteria{Header: []goimap.SearchCriteriaHeaderField{{Key: key, Value: "<" + id + ">"}}})
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return anyOf(cs)
}

// threadID reports an id SearchThread can send: 1..250 bytes of printable
// ASCII without angle brackets, quotes or backslashes.
func threadID(id string) bool {
	if id == "" || len(id) > 250 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f || c == '<' || c == '>' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// StreamMessage copies the whole message uid of folder (BODY.PEEK[], as
// stored, headers included) into w as it arrives; it returns the number of
// bytes written. Like StreamPart it takes two exchanges (RFC822.SIZE, for
// the deadline, then the transfer) and never sets \Seen.
func (c *Client) StreamMessage(ctx context.Context, folder string, uid uint32, w io.Writer) (int64, error) {
	op := fmt.Sprintf("stream message %d in %q", uid, folder)
	if err := checkTarget(folder, uid); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var size int64
	err := c.do(ctx, op, func(cn *conn) error {
		if _, _, err := cn.selectFolder(folder, false); err != nil {
			return err
		}
		b, err := fetchOne(cn, uid, &goimap.FetchOptions{UID: true, RFC822Size: true})
		if err != nil {
			return err
		}
		size = b.RFC822Size
		return nil
	})
	if err != nil {
		return 0, err
	}
	return c.streamSized(ctx, op, folder, uid, nil, size, w)
}

// AddKeywords adds flags or keywords (such as "$Forwarded") to the messages
// uids of folder, with one UID STORE +FLAGS after a read-write SELECT, and
// returns the flags each has afterwards. A UID the folder does not have is
// left out of the answer; a keyword that is not an IMAP atom is ErrInvalid.
func (c *Client) AddKeywords(ctx context.Context, folder string, uids []uint32, keywords []string) (map[uint32][]string, error) {
	op := fmt.Sprintf("add keywords in %q", folder)
	err := checkFolder(folder)
	if err == nil && (len(uids) == 0 || len(keywords) == 0) {
		err = fmt.Errorf("no UID or no keyword: %w", ErrInvalid)
	}
	add := make([]goimap.Flag, 0, len(keywords))
	for _, k := range keywords {
		if err == nil && !validFlag(k) {
			err = fmt.Errorf("keyword %q: %w", k, ErrInvalid)
		}
		add = append(add, goimap.Flag(k))
	}
	if err == nil {
		err = checkUIDList(uids, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c.store(ctx, op, folder, uids, add, nil, false)
}
