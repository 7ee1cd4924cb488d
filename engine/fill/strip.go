package fill

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Strip removes from the JSON value raw every string IsTemplate finds (an
// object's member, an array's element) and returns what is left and the
// pointers, below raw, of what it removed, in document order (members in
// key order). raw comes back as it is when nothing was removed; a raw that
// is itself template text comes back nil with the pointer "".
func Strip(raw json.RawMessage, asks []string) (json.RawMessage, []string) {
	if !mayHold(raw, asks) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw, nil
	}
	var removed []string
	v, keep := strip(v, "", asks, &removed)
	if len(removed) == 0 {
		return raw, nil
	}
	if !keep {
		return nil, removed
	}
	return plainJSON(v), removed
}

// strip walks v, removing template strings; keep is false when v itself
// is one.
func strip(v any, ptr string, asks []string, removed *[]string) (any, bool) {
	switch x := v.(type) {
	case string:
		if IsTemplate(x, asks...) {
			*removed = append(*removed, ptr)
			return nil, false
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if val, keep := strip(x[k], ptr+"/"+escape(k), asks, removed); keep {
				x[k] = val
			} else {
				delete(x, k)
			}
		}
	case []any:
		out := x[:0]
		for i, e := range x {
			if val, keep := strip(e, ptr+"/"+strconv.Itoa(i), asks, removed); keep {
				out = append(out, val)
			}
		}
		return out, true
	}
	return v, true
}

// mayHold is a cheap test that raw holds nothing Strip would remove:
// when it is false, no string in raw can be template text. It looks for
// the marker's tag, each earlier placeholder and each asks text.
func mayHold(raw json.RawMessage, asks []string) bool {
	text := string(raw)
	if strings.Contains(text, tag) {
		return true
	}
	for _, h := range hints {
		if strings.Contains(text, h) {
			return true
		}
	}
	for _, a := range asks {
		if strings.Contains(text, inJSON(a)) {
			return true
		}
	}
	return false
}

// inJSON is s as it reads inside a JSON string: itself, unless it holds
// a character an encoder escapes.
func inJSON(s string) string {
	if !strings.ContainsAny(s, "\"<>&") && plainASCII(s) {
		return s
	}
	return strings.Trim(string(plainJSON(s)), `"`)
}

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// HoldsEarlier reports whether raw holds the words of a placeholder an
// earlier release put in nextCall: the rest of an artifact holding one is
// that release's example, never the agent's choice.
func HoldsEarlier(raw json.RawMessage) bool {
	text := string(raw)
	for _, h := range hints {
		if strings.Contains(text, h) {
			return true
		}
	}
	return false
}

// hints are the earlier placeholders as they read in JSON, whatever the
// encoder escaped: the ones in angle brackets also with "\u003c" and
// "\u003e", so a marker's words (never in brackets) are not taken for one.
var hints = func() []string {
	var out []string
	for _, e := range earlier {
		out = append(out, e)
		if strings.HasPrefix(e, "<") {
			out = append(out, `\u003c`+strings.Trim(e, "<>")+`\u003e`)
		}
	}
	return out
}()

// escape is a member name as a JSON pointer token (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// plainJSON marshals v compactly without HTML escaping: agents read
// templates, and "\u003c" for "<" only confuses them.
func plainJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("fill: value does not marshal: " + err.Error())
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
