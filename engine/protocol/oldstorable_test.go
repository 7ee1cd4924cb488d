package protocol

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/workrail/workrail/engine"
)

// oldDuplicateKey is the token walk duplicateKey was before jsontext
// replaced it, kept in a test file only while FuzzDuplicateKey holds
// the new one to it.
func oldDuplicateKey(raw []byte) (ptr, key string) {
	type frame struct {
		ptr     string          // this object's or array's pointer
		keys    map[string]bool // nil for an array
		key     string          // the key whose value comes next
		wantKey bool
		n       int // items so far, for an array
	}
	var stack []*frame
	// at is the pointer of the value that starts next.
	at := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.keys != nil {
			return f.ptr + "/" + engine.PointerToken(f.key)
		}
		return f.ptr + "/" + strconv.Itoa(f.n)
	}
	// ended moves the innermost container past a value.
	ended := func() {
		if len(stack) == 0 {
			return
		}
		if f := stack[len(stack)-1]; f.keys != nil {
			f.wantKey = true
		} else {
			f.n++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		if len(stack) > 0 && stack[len(stack)-1].wantKey {
			if k, ok := tok.(string); ok {
				f := stack[len(stack)-1]
				if f.keys[k] {
					return f.ptr + "/" + engine.PointerToken(k), k
				}
				f.keys[k], f.key, f.wantKey = true, k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{ptr: at(), keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{ptr: at()})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			ended()
		default:
			ended()
		}
	}
}

// FuzzDuplicateKey holds duplicateKey (jsontext) to the token walk it
// replaced on any arguments the long way reads as an object, while that
// walk is kept.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[{"c":1},{"c":1,"c":2}]}}`, `{"a/b":1,"a\u002fb":2}`, `{"~":[{}],"~":1}`,
		`{"\ud800":1,"\udbff":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"a":1}`, `[{"x":1,"x":1}]`, `{"a":[1,{"b":2}],"b":{"a":1,"b":1,"a":3}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var top map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &top) != nil {
			return // refused before duplicates are looked for
		}
		ptr, key := duplicateKey([]byte(raw))
		oldPtr, oldKey := oldDuplicateKey([]byte(raw))
		if ptr != oldPtr || key != oldKey {
			t.Fatalf("duplicateKey(%q) = %q, %q; the old walk said %q, %q", raw, ptr, key, oldPtr, oldKey)
		}
	})
}
