package compile

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// scanner reads JSON known to be well formed (canonical bytes verified
// by their digest): it checks the shape of what it reads and of the
// brackets, commas and colons around it, and finds where a skipped
// value ends by its brackets and quotes, not by validating it: a string
// is passed over by looking for its closing quote. The first error
// sticks: after it every read is a no-op, and loops over members and
// elements end.
type scanner struct {
	b   []byte
	i   int
	err error
	// name is a member name that needed unescaping: one buffer for all.
	name []byte
}

var errEnd = errors.New("unexpected end of JSON")

func (s *scanner) fail(want string) {
	if s.err != nil {
		return
	}
	if s.i >= len(s.b) {
		s.err = errEnd
		return
	}
	s.err = fmt.Errorf("want %s at offset %d, found %q", want, s.i, s.b[s.i])
}

// peek is the next byte past spaces; 0 at the end or after an error.
func (s *scanner) peek() byte {
	for s.err == nil && s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// open reads the opening bracket of an object ('{') or an array ('['),
// reporting whether a member or an element follows: an empty one is read
// whole.
func (s *scanner) open(bracket byte) bool {
	if s.peek() != bracket {
		s.fail(string(bracket))
		return false
	}
	s.i++
	if s.peek() == bracket+2 { // '}' is '{'+2, ']' is '['+2
		s.i++
		return false
	}
	return s.err == nil
}

// next reads what follows a member or an element, reporting whether
// another follows: a comma, or the closing bracket ('}' or ']') that
// ends them.
func (s *scanner) next(closing byte) bool {
	switch s.peek() {
	case ',':
		s.i++
		return true
	case closing:
		s.i++
	default:
		s.fail(", or " + string(closing))
	}
	return false
}

// key reads a member's name and its colon: the name unquoted, valid
// until the next key.
func (s *scanner) key() []byte {
	raw := s.str()
	if bytes.IndexByte(raw, '\\') >= 0 {
		s.name = s.unescape(s.name[:0], raw)
		raw = s.name
	}
	if s.peek() != ':' {
		s.fail(":")
		return nil
	}
	s.i++
	return raw
}

// null reads a null, reporting whether there was one.
func (s *scanner) null() bool {
	if s.peek() != 'n' || !bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		return false
	}
	s.i += len("null")
	return true
}

// str reads a string, returning what is between its quotes, escapes
// and all.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.fail("a string")
		return nil
	}
	from := s.i + 1
	end := from
	for {
		q := bytes.IndexByte(s.b[end:], '"')
		if q < 0 {
			s.i = len(s.b)
			s.fail("a closing quote")
			return nil
		}
		end += q
		// A quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for j := end - 1; j >= from && s.b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			break
		}
		end++
	}
	s.i = end + 1
	return s.b[from:end]
}

// unquote reads a string, appending it unquoted to dst.
func (s *scanner) unquote(dst []byte) []byte {
	raw := s.str()
	if bytes.IndexByte(raw, '\\') < 0 {
		return append(dst, raw...)
	}
	return s.unescape(dst, raw)
}

// unescape appends raw, a string's contents with escapes, unquoted to
// dst.
func (s *scanner) unescape(dst, raw []byte) []byte {
	// The quotes are the bytes either side of raw.
	quoted := s.b[s.i-len(raw)-2 : s.i]
	out, err := jsontext.AppendUnquote(dst, quoted)
	if err != nil && s.err == nil {
		s.err = err
	}
	return out
}

// integer reads a number that is an integer.
func (s *scanner) integer() int {
	s.peek()
	from := s.i
	s.skipScalar()
	n, err := strconv.Atoi(string(s.b[from:s.i]))
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("want an integer at offset %d: %w", from, err)
	}
	return n
}

// skip passes over a value.
func (s *scanner) skip() {
	switch s.peek() {
	case '"':
		s.str()
	case '{', '[':
		s.skipNested()
	default:
		s.skipScalar()
	}
}

// skipNested passes over an object or an array by its brackets, strings
// passed over whole.
func (s *scanner) skipNested() {
	depth := 0
	for s.i < len(s.b) && s.err == nil {
		switch s.b[s.i] {
		case '"':
			s.str()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				s.i++
				return
			}
		}
		s.i++
	}
	s.fail("a closing bracket")
}

// skipScalar passes over a number, true, false or null.
func (s *scanner) skipScalar() {
	from := s.i
	for s.i < len(s.b) && !delimits(s.b[s.i]) {
		s.i++
	}
	if s.i == from {
		s.fail("a value")
	}
}

// delimits reports whether c ends a number or a literal.
func delimits(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\r', '\n', '"', '{', '[':
		return true
	}
	return false
}
