package message

import "errors"

// ErrMalformed reports input with no readable header block at all.
var ErrMalformed = errors.New("message: malformed message")

// ErrUnknownEncoding reports a Content-Transfer-Encoding that this package
// cannot decode; the body is then returned as it is.
var ErrUnknownEncoding = errors.New("message: unknown transfer encoding")
