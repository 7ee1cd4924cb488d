package canon

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// fastTransform answers for the JSON encoding/json writes ahead of
// jsontext's Canonicalize, the general path (transform). Every read of a
// stored event, and every snapshot an advance stores, is canonicalised,
// so this runs thousands of times for one Console page; on what
// encoding/json writes, Canonicalize, which reads an object again to put
// its members in order, costs two to three times more (BenchmarkTransform),
// and an advance spends several per cent of its time there.
//
// The fast path accepts only a narrow subset where the canonical form is
// plain: no whitespace, object keys of printable ASCII without escapes
// (so byte order is UTF-16 order), integers of at most 15 digits other
// than -0 (their ES6 form is their digits), strings of valid UTF-8 with no
// escaped surrogate, and nesting of at most maxFastDepth. On that subset
// it writes exactly what Canonicalize and jcs write (FuzzTransform holds
// it to both); on anything else it declines, and the whole document goes
// to Canonicalize, so results and errors outside it are the library's.
// maxFastDepth bounds the nesting the fast path takes: an object's
// members are copied once more per level when they need sorting.
const maxFastDepth = 32

func fastTransform(in []byte) ([]byte, bool) {
	if len(in) == 0 {
		return nil, false
	}
	f := fastJCS{in: in, out: make([]byte, 0, len(in))}
	if !f.value() || f.i != len(in) {
		return nil, false
	}
	return f.out, true
}

type fastJCS struct {
	in    []byte
	i     int
	out   []byte
	depth int
	spans []member // members of the objects being read, innermost last
	tmp   []byte   // an object's members while they are put in order
}

// member is one object member as written to out: out[start:end] is
// `"key":value`, and the key is out[start+1:colon-1].
type member struct{ start, colon, end int }

func (f *fastJCS) value() bool {
	if f.i >= len(f.in) {
		return false
	}
	switch c := f.in[f.i]; {
	case c == '{':
		return f.object()
	case c == '[':
		return f.array()
	case c == '"':
		return f.string()
	case c == 't':
		return f.literal("true")
	case c == 'f':
		return f.literal("false")
	case c == 'n':
		return f.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return f.number()
	}
	return false
}

// ended says a literal or number stops at i: jcs reads such a token up
// to the next ',', ']', '}', whitespace or the end.
func (f *fastJCS) ended() bool {
	if f.i == len(f.in) {
		return true
	}
	c := f.in[f.i]
	return c == ',' || c == ']' || c == '}'
}

func (f *fastJCS) literal(lit string) bool {
	if !bytes.HasPrefix(f.in[f.i:], []byte(lit)) {
		return false
	}
	f.i += len(lit)
	if !f.ended() {
		return false
	}
	f.out = append(f.out, lit...)
	return true
}

// number takes -?(0|[1-9][0-9]{0,14}), not -0.
func (f *fastJCS) number() bool {
	start := f.i
	if f.in[f.i] == '-' {
		f.i++
	}
	digits := f.i
	for f.i < len(f.in) && f.in[f.i] >= '0' && f.in[f.i] <= '9' {
		f.i++
	}
	n := f.i - digits
	switch {
	case n == 0 || n > 15:
		return false
	case f.in[digits] == '0' && (n > 1 || digits > start):
		return false // a leading zero, or -0
	}
	if !f.ended() {
		return false
	}
	f.out = append(f.out, f.in[start:f.i]...)
	return true
}

// plain marks the bytes a string holds and jcs writes as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (f *fastJCS) string() bool {
	f.i++ // the opening quote
	f.out = append(f.out, '"')
	for {
		start := f.i
		for f.i < len(f.in) && plain[f.in[f.i]] {
			f.i++
		}
		f.out = append(f.out, f.in[start:f.i]...)
		if f.i >= len(f.in) {
			return false
		}
		switch c := f.in[f.i]; {
		case c == '"':
			f.i++
			f.out = append(f.out, '"')
			return true
		case c == '\\':
			if !f.escape() {
				return false
			}
		case c < 0x20:
			return false
		default:
			r, size := utf8.DecodeRune(f.in[f.i:])
			if r == utf8.RuneError && size <= 1 {
				return false
			}
			f.out = append(f.out, f.in[f.i:f.i+size]...)
			f.i += size
		}
	}
}

// escape reads one escape and writes its character as jcs does.
func (f *fastJCS) escape() bool {
	if f.i+1 >= len(f.in) {
		return false
	}
	c := f.in[f.i+1]
	f.i += 2
	switch c {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		f.out = append(f.out, '\\', c)
	case '/':
		f.out = append(f.out, '/')
	case 'u':
		if f.i+4 > len(f.in) {
			return false
		}
		var r rune
		for _, h := range f.in[f.i : f.i+4] {
			switch {
			case h >= '0' && h <= '9':
				r = r<<4 | rune(h-'0')
			case h >= 'a' && h <= 'f':
				r = r<<4 | rune(h-'a'+10)
			case h >= 'A' && h <= 'F':
				r = r<<4 | rune(h-'A'+10)
			default:
				return false
			}
		}
		f.i += 4
		if r >= 0xD800 && r <= 0xDFFF {
			return false // surrogates: jcs pairs or refuses them
		}
		f.char(r)
	default:
		return false
	}
	return true
}

// char writes one decoded character the way jcs quotes it.
func (f *fastJCS) char(r rune) {
	switch r {
	case '"', '\\':
		f.out = append(f.out, '\\', byte(r))
	case '\b':
		f.out = append(f.out, '\\', 'b')
	case '\f':
		f.out = append(f.out, '\\', 'f')
	case '\n':
		f.out = append(f.out, '\\', 'n')
	case '\r':
		f.out = append(f.out, '\\', 'r')
	case '\t':
		f.out = append(f.out, '\\', 't')
	default:
		if r < 0x20 {
			const hex = "0123456789abcdef"
			f.out = append(f.out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
			return
		}
		f.out = utf8.AppendRune(f.out, r)
	}
}

func (f *fastJCS) array() bool {
	if f.depth++; f.depth > maxFastDepth {
		return false
	}
	f.i++
	f.out = append(f.out, '[')
	if f.i < len(f.in) && f.in[f.i] == ']' {
		f.i++
		f.out = append(f.out, ']')
		f.depth--
		return true
	}
	for {
		if !f.value() || f.i >= len(f.in) {
			return false
		}
		c := f.in[f.i]
		f.i++
		f.out = append(f.out, c)
		switch c {
		case ']':
			f.depth--
			return true
		case ',':
		default:
			return false
		}
	}
}

func (f *fastJCS) object() bool {
	if f.depth++; f.depth > maxFastDepth {
		return false
	}
	f.i++
	open := len(f.out)
	f.out = append(f.out, '{')
	if f.i < len(f.in) && f.in[f.i] == '}' {
		f.i++
		f.out = append(f.out, '}')
		f.depth--
		return true
	}
	base := len(f.spans)
	for {
		// The key: printable ASCII, no escapes.
		if f.i >= len(f.in) || f.in[f.i] != '"' {
			return false
		}
		start, k := len(f.out), f.i+1
		for k < len(f.in) && plain[f.in[k]] {
			k++
		}
		if k+1 >= len(f.in) || f.in[k] != '"' || f.in[k+1] != ':' {
			return false
		}
		f.out = append(f.out, f.in[f.i:k+2]...)
		f.i = k + 2
		colon := len(f.out)
		if !f.value() || f.i >= len(f.in) {
			return false
		}
		f.spans = append(f.spans, member{start: start, colon: colon, end: len(f.out)})
		c := f.in[f.i]
		f.i++
		if c == '}' {
			break
		}
		if c != ',' {
			return false
		}
		f.out = append(f.out, ',')
	}
	if !f.order(open+1, f.spans[base:]) {
		return false
	}
	f.spans = f.spans[:base]
	f.out = append(f.out, '}')
	f.depth--
	return true
}

// order puts an object's members, written from out[from:] in the order
// read, in key order; false on a duplicate key (jcs refuses those).
func (f *fastJCS) order(from int, ms []member) bool {
	key := func(buf []byte, m member) []byte { return buf[m.start+1 : m.colon-2] }
	sorted := true
	for j := 1; j < len(ms); j++ {
		switch bytes.Compare(key(f.out, ms[j-1]), key(f.out, ms[j])) {
		case 0:
			return false
		case 1:
			sorted = false
		}
	}
	if sorted {
		return true
	}
	f.tmp = append(f.tmp[:0], f.out[from:]...)
	for j := range ms {
		ms[j].start -= from
		ms[j].colon -= from
		ms[j].end -= from
	}
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(key(f.tmp, a), key(f.tmp, b)) })
	for j := 1; j < len(ms); j++ {
		if bytes.Equal(key(f.tmp, ms[j-1]), key(f.tmp, ms[j])) {
			return false
		}
	}
	f.out = f.out[:from]
	for j, m := range ms {
		if j > 0 {
			f.out = append(f.out, ',')
		}
		f.out = append(f.out, f.tmp[m.start:m.end]...)
	}
	return true
}
