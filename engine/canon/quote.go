package canon

import "unicode/utf8"

// Quoting is how AppendString escapes what JSON would allow as it is.
type Quoting uint8

const (
	// Canonical escapes only '"', '\\' and control characters (RFC 8785);
	// s must be valid UTF-8.
	Canonical Quoting = iota
	// Go is encoding/json with HTML escaping off: Canonical's escapes,
	// U+2028 and U+2029 as \u2028 and \u2029, and each invalid byte as
	// \ufffd.
	Go
	// GoHTML is encoding/json's default: Go's escapes and <, > and &.
	GoHTML
)

// AppendString appends s quoted as q says: the one JSON string quoter of
// the encoders written by hand (the direct canonical encoder, the legacy
// normalizer's writer, a run's JSON document, the store's part records),
// byte for byte what the encoder each one stands in for writes.
func AppendString(dst []byte, s string, q Quoting) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (q != GoHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		if q == Canonical {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}
