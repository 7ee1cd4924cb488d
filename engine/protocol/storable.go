package protocol

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
)

// storable refuses arguments whose values could not be stored as sent:
// numbers canon.CheckNumber refuses (named by JSON pointer), and anything
// else the canonical form rejected (canonErr), such as an unpaired
// surrogate escape. Canonical JSON is compositional, so every part of
// arguments that pass can be stored.
func storable(raw []byte, canonErr error) *engine.Error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil // the strict decode that follows explains it
	}
	if bad := canon.BadNumbers(v); len(bad) > 0 {
		return engine.Errorf(engine.CodeInvalidInput, "%s: %v; send it as a string.", bad[0].Pointer, bad[0].Err).With("pointer", bad[0].Pointer)
	}
	if canonErr != nil {
		return engine.Errorf(engine.CodeInvalidInput,
			"the arguments cannot be stored as canonical JSON (%v). Strings must be valid Unicode: no invalid UTF-8 and no unpaired surrogate escapes such as \\ud800.", canonErr)
	}
	return nil
}

// checkDuplicates refuses arguments that send one key twice in the same
// object: which of the two values was meant cannot be known, and
// encoding/json would silently keep the last. The pointer names the
// second occurrence. Malformed JSON passes: the strict decode explains it.
func checkDuplicates(raw []byte) *engine.Error {
	ptr, key := duplicateKey(raw)
	if ptr == "" {
		return nil
	}
	return engine.Errorf(engine.CodeInvalidInput, "%s: the key %q is sent twice in the same object; send it once.", ptr, key).With("pointer", ptr)
}

// duplicateKey returns the JSON pointer and name of the first key raw
// repeats within one object, or "" when there is none.
func duplicateKey(raw []byte) (ptr, key string) {
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
