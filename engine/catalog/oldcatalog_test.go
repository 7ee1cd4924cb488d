package catalog

import (
	"bytes"
	"encoding/json"
	"testing"
)

// oldStringValue and oldSkipValue are stringValue's encoding/json token
// walk before jsontext replaced it, kept in a test file only while
// FuzzStringValue holds the new one to it.
func oldStringValue(b []byte, key string) (value string, start, end int) {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "", 0, 0
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return "", 0, 0
		}
		if k == key {
			afterKey := int(d.InputOffset())
			v, err := d.Token()
			s, ok := v.(string)
			if !ok || err != nil {
				return "", 0, 0
			}
			// Between the key and its value only the colon and white space.
			end := int(d.InputOffset())
			return s, afterKey + bytes.IndexByte(b[afterKey:end], '"'), end
		}
		if oldSkipValue(d) != nil {
			return "", 0, 0
		}
	}
	return "", 0, 0
}

func oldSkipValue(d *json.Decoder) error {
	depth := 0
	for {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// FuzzStringValue holds stringValue to the encoding/json walk it
// replaced: the same value at the same place.
func FuzzStringValue(f *testing.F) {
	for _, s := range []string{`{"id":"wr.a","name":"x"}`, `{"steps":[{"id":"s"}],"id" : "w\u0041"}`, `{"id":1}`, `{"id":"a","id":"b"}`,
		`{"a":{"b":[1,{"id":"x"}]},"id":"y"}`, `{"a":`, `["id"]`, "{\"\xff\":1,\"id\":\"\xfe\"}", `{"id":"\ud800"}`, `{"x":tru,"id":"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, s, e := stringValue(b, "id")
		ov, os, oe := oldStringValue(b, "id")
		if v != ov || s != os || e != oe {
			t.Fatalf("stringValue(%q) = %q, %d, %d; the old walk: %q, %d, %d", b, v, s, e, ov, os, oe)
		}
	})
}
