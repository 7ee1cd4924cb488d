package markdown

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// maxOutput bounds what goldmark may write for one text. Markdown can
// amplify: one reference definition with a long URL, used thousands of
// times, turns 32 KiB into tens of megabytes. Ordinary notes render to a
// small multiple of their size; past this the text is shown as plain text.
const maxOutput = 16 * MaxBytes

// errTooLarge is what a full boundedBuffer reports.
var errTooLarge = errors.New("markdown: rendered text is too large")

// boundedBuffer is the util.BufWriter goldmark renders into. Once a write
// would pass maxOutput it drops every write and Flush fails; the renderers
// in this package stop the walk as soon as they see it full.
type boundedBuffer struct {
	buf  bytes.Buffer
	full bool
}

var _ util.BufWriter = (*boundedBuffer)(nil)

// room reports whether n more bytes fit, and marks the buffer full if not.
func (b *boundedBuffer) room(n int) bool {
	if !b.full && b.buf.Len()+n > maxOutput {
		b.full = true
	}
	return !b.full
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if !b.room(len(p)) {
		return 0, errTooLarge
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) WriteString(s string) (int, error) {
	if !b.room(len(s)) {
		return 0, errTooLarge
	}
	return b.buf.WriteString(s)
}

func (b *boundedBuffer) WriteByte(c byte) error {
	if !b.room(1) {
		return errTooLarge
	}
	return b.buf.WriteByte(c)
}

func (b *boundedBuffer) WriteRune(r rune) (int, error) {
	if !b.room(utf8.RuneLen(r)) {
		return 0, errTooLarge
	}
	return b.buf.WriteRune(r)
}

func (b *boundedBuffer) Available() int { return max(0, maxOutput-b.buf.Len()) }

func (b *boundedBuffer) Buffered() int { return b.buf.Len() }

func (b *boundedBuffer) Flush() error {
	if b.full {
		return errTooLarge
	}
	return nil
}

// stop reports whether w is a full boundedBuffer, so a renderer should
// end the walk.
func stop(w util.BufWriter) bool {
	b, ok := w.(*boundedBuffer)
	return ok && b.full
}
