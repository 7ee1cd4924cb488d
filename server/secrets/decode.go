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
// ranks them), decodes those that give printable ASCII, and runs the
// rules on what was decoded, each segment on a line of its own (gitleaks
// decodes in place, runs the rules on the whole text and keeps what
// touches a segment; on its own, a decoded .env file's lines start its
// text, and what is around the segment was scanned a level up). A
// finding redacts the whole encoded text, in the text as given, that its
// segment came from. The depth is bounded as gitleaks'
// --max-decode-depth (default 5) bounds it; every decoding shrinks its
// text, and a level looks only inside what the level above decoded, so
// a level costs at most the bytes decoded into it.

// maxDecodeDepth is how many times text is decoded within itself.
const maxDecodeDepth = 5

// Encoded segments are at least as long as gitleaks' patterns ask:
// base64 `[\w/+-]{16,}={0,2}`, hex `[0-9A-Fa-f]{32,}`.
const (
	minBase64 = 16
	minHex    = 32
)

// piece is text decoded from the stretch of the text as given it
// came from (at any depth: a finding in it redacts all of that stretch).
type piece struct {
	text string
	from span
}

// decoded is what the rules find in the encoded text of text, placed on
// the encoded text they were found in.
func (s *Scanner) decoded(text string) []redact.Finding {
	var out []redact.Finding
	var level []piece
	for _, e := range encodedIn(text) {
		if v, ok := decode(text[e.start:e.end], e.kind); ok {
			level = append(level, piece{text: v, from: span{e.start, e.end}})
		}
	}
	for depth := 1; depth <= maxDecodeDepth && len(level) > 0; depth++ {
		out = s.findIn(out, level)
		var next []piece
		for _, p := range level {
			for _, e := range encodedIn(p.text) {
				if v, ok := decode(p.text[e.start:e.end], e.kind); ok {
					next = append(next, piece{text: v, from: p.from})
				}
			}
		}
		level = next
	}
	return out
}

// findIn adds what the rules find in the pieces of a level: the
// distinct ones are scanned as one text, a line each, so that a level
// costs one pass, and a piece repeated is scanned once (gitleaks keeps a
// map of what it decoded for the same reason).
func (s *Scanner) findIn(out []redact.Finding, level []piece) []redact.Finding {
	var b strings.Builder
	at := map[string]int{} // where each distinct piece starts in the text scanned
	var texts []string
	for _, p := range level {
		if _, ok := at[p.text]; ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		at[p.text] = b.Len()
		texts = append(texts, p.text)
		b.WriteString(p.text)
	}
	for _, f := range s.find(b.String()) {
		for _, t := range texts {
			if a := at[t]; f.Start < a+len(t) && a < f.End {
				for _, p := range level {
					if p.text == t {
						out = append(out, redact.Finding{Start: p.from.start, End: p.from.end, Rule: f.Rule})
					}
				}
			}
		}
	}
	return out
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

// encodedIn lists, by position, the stretches of text that may be
// encoded: on each line, from its first %XX to its last (gitleaks'
// `%[0-9A-Fa-f]{2}(?:.*%[0-9A-Fa-f]{2})?`); elsewhere each run of
// base64's characters long enough, hex when it is all hex digits.
func encodedIn(text string) []encoded {
	var out []encoded
	if strings.IndexByte(text, '%') < 0 {
		return appendRuns(out, text, 0, len(text))
	}
	for i := 0; i < len(text); {
		eol := strings.IndexByte(text[i:], '\n')
		if eol < 0 {
			eol = len(text)
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
		j := strings.IndexByte(text[k:b-2], '%')
		if j < 0 {
			break
		}
		k += j
		if isHex(text[k+1]) && isHex(text[k+2]) {
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
		if len(s)%2 != 0 || !hasAny(s, &digits) {
			return "", false
		}
		b, err = hex.AppendDecode(scratch[:0], []byte(s))
	case base64Encoded:
		enc := base64Of(s)
		if !hasAny(s, &likelyBase64) || enc == base64.RawStdEncoding && len(s)%4 == 1 || enc == base64.RawURLEncoding && len(s)%4 == 1 {
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
	url := hasAny(s, &urlSafe)
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

// Sets of bytes: base64's characters (standard and URL-safe), digits,
// what base64 holds and words rarely do (gitleaks' likelyBase64Chars),
// and what only URL-safe base64 holds.
var (
	base64Chars  = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
	digits       = byteSet("0123456789")
	likelyBase64 = byteSet("0123456789+/-_")
	urlSafe      = byteSet("-_")
)

func byteSet(s string) (t [256]bool) {
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return t
}

// hasAny reports whether s holds a byte of set.
func hasAny(s string, set *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if set[s[i]] {
			return true
		}
	}
	return false
}

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
