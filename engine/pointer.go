package engine

import "strings"

// PointerToken encodes one reference token of a JSON pointer (RFC 6901).
func PointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
