package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine/redact"
)

// Encoded text is decoded and scanned again, as gitleaks' detector does
// (detect/codec): each level finds the encoded segments of the text
// above it (percent-encoding first, then hex, then base64, as gitleaks
// ranks them), decodes those that give printable ASCII in place, and
// runs the rules on the decoded segments, each on a line of its own
// (gitleaks runs them on the whole text and keeps what touches a
// segment; on its own, a decoded .env file's lines start its text, and
// what is around the segment was scanned a level up). It is the whole encoded text a finding came from
// that is redacted. The
// depth is bounded as gitleaks' --max-decode-depth (default 5) bounds
// it; each level is no longer than the one above (every decoding
// shrinks its text) and looks only inside what the level above decoded,
// so a level costs at most the bytes decoded into it.

// maxDecodeDepth is how many times text is decoded within itself.
const maxDecodeDepth = 5

// Encoded segments are at least as long as gitleaks' patterns ask:
// base64 `[\w/+-]{16,}={0,2}`, hex `[0-9A-Fa-f]{32,}`.
const (
	minBase64 = 16
	minHex    = 32
)

// segment is one encoded stretch of a level's parent text and where its
// decoded bytes lie in the level's own text.
type segment struct {
	enc, dec span
}

// level is text with the segments of the level above decoded in place.
type level struct {
	text string
	segs []segment // by position
	up   *level    // nil: the text as given
}

// decoded is what the rules find in the encoded text of text, placed on
// the encoded text they were found in.
func (s *Scanner) decoded(text string) []redact.Finding {
	var out []redact.Finding
	cur := &level{text: text}
	look := []span{{0, len(text)}}
	for depth := 1; depth <= maxDecodeDepth; depth++ {
		next := decodeLevel(cur, look)
		if next == nil {
			break
		}
		out = s.findIn(out, next)
		look = look[:0]
		for _, sg := range next.segs {
			look = append(look, sg.dec)
		}
		cur = next
	}
	return out
}

// findIn adds what the rules find in the decoded segments of l, placed
// on the text as given. The segments are scanned as one text, a line
// each, so that a level costs one pass of the rules.
func (s *Scanner) findIn(out []redact.Finding, l *level) []redact.Finding {
	var b strings.Builder
	at := make([]int, len(l.segs)) // where each segment starts in the text scanned
	for i, sg := range l.segs {
		if i > 0 {
			b.WriteByte('\n')
		}
		at[i] = b.Len()
		b.WriteString(l.text[sg.dec.start:sg.dec.end])
	}
	for _, f := range s.find(b.String()) {
		for i, sg := range l.segs {
			start, end := max(f.Start, at[i]), min(f.End, at[i]+sg.dec.end-sg.dec.start)
			if start < end {
				start, end = l.original(start-at[i]+sg.dec.start, end-at[i]+sg.dec.start)
				out = append(out, redact.Finding{Start: start, End: end, Rule: f.Rule})
			}
		}
	}
	return out
}

// decodeLevel decodes the segments found in cur's text within look; nil
// when there are none.
func decodeLevel(cur *level, look []span) *level {
	var found []segment
	var vals []string
	for _, w := range look {
		for _, e := range encodedIn(cur.text, w) {
			if v, ok := decode(cur.text[e.start:e.end], e.kind); ok {
				found = append(found, segment{enc: span{e.start, e.end}})
				vals = append(vals, v)
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	var b strings.Builder
	at := 0
	for i := range found {
		b.WriteString(cur.text[at:found[i].enc.start])
		found[i].dec.start = b.Len()
		b.WriteString(vals[i])
		found[i].dec.end = b.Len()
		at = found[i].enc.end
	}
	b.WriteString(cur.text[at:])
	return &level{text: b.String(), segs: found, up: cur}
}

// encoding is the closed set of encodings decoded.
type encoding int

const (
	percentEncoded encoding = iota
	hexEncoded
	base64Encoded
)

// encoded is one stretch of text that may be encoded.
type encoded struct {
	start, end int
	kind       encoding
}

// encodedIn lists, by position, the stretches of text within w that may
// be encoded: on each line, from its first %XX to its last (gitleaks'
// `%[0-9A-Fa-f]{2}(?:.*%[0-9A-Fa-f]{2})?`); elsewhere each run of
// base64's characters long enough, hex when it is all hex digits.
func encodedIn(text string, w span) []encoded {
	var out []encoded
	if strings.IndexByte(text[w.start:w.end], '%') < 0 {
		return appendRuns(out, text, w.start, w.end)
	}
	for i := w.start; i < w.end; {
		eol := strings.IndexByte(text[i:w.end], '\n')
		if eol < 0 {
			eol = w.end
		} else {
			eol += i
		}
		pa, pb := percentSpan(text, i, eol)
		out = appendRuns(out, text, i, pa)
		if pa < pb {
			out = append(out, encoded{pa, pb, percentEncoded})
			out = appendRuns(out, text, pb, eol)
		}
		i = eol + 1
	}
	return out
}

// percentSpan is from the first %XX in text[a:b] to the end of the last;
// empty (at b) when there is none.
func percentSpan(text string, a, b int) (int, int) {
	first, last := -1, -1
	for k := a; k+2 < b; k++ {
		if text[k] == '%' && isHex(text[k+1]) && isHex(text[k+2]) {
			if first < 0 {
				first = k
			}
			last = k + 3
		}
	}
	if first < 0 {
		return b, b
	}
	return first, last
}

// appendRuns adds the runs of base64 characters in text[a:b] that are
// long enough to be encoded.
func appendRuns(out []encoded, text string, a, b int) []encoded {
	for i := a; i < b; {
		if !isBase64(text[i]) {
			i++
			continue
		}
		j := i
		for j < b && isBase64(text[j]) {
			j++
		}
		n := j
		for pad := 0; pad < 2 && j < b && text[j] == '='; pad++ {
			j++
		}
		switch {
		case n-i >= minHex && allHex(text[i:n]):
			out = append(out, encoded{i, n, hexEncoded})
		case n-i >= minBase64:
			out = append(out, encoded{i, j, base64Encoded})
		}
		i = j
	}
	return out
}

// decode decodes one stretch; false unless it decodes to printable
// ASCII other than itself. As gitleaks, base64 and hex are tried only
// when they hold a digit (or + / - _ for base64): runs of letters are
// words and names far more often than encodings.
func decode(s string, kind encoding) (string, bool) {
	var scratch [256]byte // most fail: decode them without allocating
	var b []byte
	var err error
	switch kind {
	case percentEncoded:
		b = percentDecode(s)
	case hexEncoded:
		if len(s)%2 != 0 || !strings.ContainsAny(s, "0123456789") {
			return "", false
		}
		b, err = hex.AppendDecode(scratch[:0], []byte(s))
	case base64Encoded:
		enc := base64Of(s)
		if !strings.ContainsAny(s, "0123456789+/-_") || enc == base64.RawStdEncoding && len(s)%4 == 1 || enc == base64.RawURLEncoding && len(s)%4 == 1 {
			return "", false
		}
		b, err = enc.AppendDecode(scratch[:0], []byte(s))
	}
	if err != nil || len(b) == 0 || !printable(b) || string(b) == s {
		return "", false
	}
	return string(b), true
}

// base64Of is the alphabet and padding s is written in.
func base64Of(s string) *base64.Encoding {
	url := strings.ContainsAny(s, "-_")
	padded := strings.HasSuffix(s, "=") || len(s)%4 == 0
	switch {
	case url && padded:
		return base64.URLEncoding
	case url:
		return base64.RawURLEncoding
	case padded:
		return base64.StdEncoding
	}
	return base64.RawStdEncoding
}

// percentDecode replaces each %XX of s by its byte.
func percentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			out = append(out, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return out
}

// printable reports whether b is printable ASCII, tabs and line breaks
// included (gitleaks' test).
func printable(b []byte) bool {
	return !slices.ContainsFunc(b, func(c byte) bool { return c <= 8 || c >= 0x7f })
}

func isBase64(c byte) bool { return base64Chars[c] }

// base64Chars are base64's characters, standard and URL-safe.
var base64Chars = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		t[c] = true
	}
	return t
}()

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// original is where [a, b) of l's text lies in the text as given: a
// place inside a decoded segment stands for the whole encoded stretch.
func (l *level) original(a, b int) (int, int) {
	for ; l.up != nil; l = l.up {
		a, b = l.toParent(a, false), l.toParent(b, true)
	}
	return a, b
}

// toParent maps a place of l's text to its parent's; end says whether it
// ends a stretch (so a segment it falls in maps to its encoded end).
func (l *level) toParent(x int, end bool) int {
	shift := 0
	for _, sg := range l.segs {
		switch {
		case x < sg.dec.start || end && x == sg.dec.start:
			return x - shift
		case x < sg.dec.end || end && x == sg.dec.end:
			if end {
				return sg.enc.end
			}
			return sg.enc.start
		}
		shift += (sg.dec.end - sg.dec.start) - (sg.enc.end - sg.enc.start)
	}
	return x - shift
}
