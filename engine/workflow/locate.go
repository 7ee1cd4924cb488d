package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// locate sets p's line and column to where its pointer's member starts in
// src; for a missing member (a required key), to where its nearest
// existing ancestor starts.
func locate(src []byte, p Problem) Problem {
	ptr := p.Pointer
	for {
		if off := offsetOf(src, ptr); off >= 0 {
			p.Line, p.Column = lineCol(src, off)
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return p
		}
		ptr = ptr[:i]
	}
}

// offsetOf returns the byte offset of the value at ptr (or of its key), or
// -1.
func offsetOf(src []byte, ptr string) int {
	if ptr == "" {
		return firstNonSpace(src)
	}
	want := strings.Split(ptr[1:], "/")
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	off, ok := seek(dec, src, want)
	if !ok {
		return -1
	}
	return off
}

// seek descends into the value the decoder is at, following path; it
// returns the offset of the key (for object members) or value (for array
// elements) at the end of the path.
func seek(dec *json.Decoder, src []byte, path []string) (int, bool) {
	tok, err := dec.Token()
	if err != nil {
		return 0, false
	}
	delim, ok := tok.(json.Delim)
	if !ok || len(path) == 0 {
		return 0, false
	}
	seg := unescape(path[0])
	switch delim {
	case '{':
		for dec.More() {
			keyEnd := int(dec.InputOffset())
			k, err := dec.Token()
			if err != nil {
				return 0, false
			}
			if k.(string) == seg {
				if len(path) == 1 {
					return keyStart(src, keyEnd), true
				}
				return seek(dec, src, path[1:])
			}
			if err := skip(dec); err != nil {
				return 0, false
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if fmt.Sprint(i) == seg {
				if len(path) == 1 {
					return firstNonSpaceFrom(src, int(dec.InputOffset())), true
				}
				return seek(dec, src, path[1:])
			}
			if err := skip(dec); err != nil {
				return 0, false
			}
		}
	}
	return 0, false
}

func skip(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}

// keyStart finds the opening quote of the key that follows offset.
func keyStart(src []byte, from int) int {
	if i := bytes.IndexByte(src[from:], '"'); i >= 0 {
		return from + i
	}
	return from
}

func firstNonSpace(src []byte) int { return firstNonSpaceFrom(src, 0) }

func firstNonSpaceFrom(src []byte, from int) int {
	for i := from; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			continue
		}
		return i
	}
	return from
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// lineCol converts a byte offset to a 1-based line and column (in runes).
func lineCol(src []byte, off int) (int, int) {
	off = min(off, len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, len([]rune(string(src[start:off]))) + 1
}
