package legacy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// oldDecode is the scan decode was before jsontext's token reader
// replaced it, kept in a test file only while FuzzDecode holds the new
// one to it.
// It read one JSON document, keeping numbers as json.Number and
// objects in order. The document is checked by json.Valid first, so the
// oldScan below can trust its shape; encoding/json's token reader was the
// normalizer's largest cost.
func oldDecode(b []byte) (any, error) {
	if !json.Valid(b) {
		return nil, fmt.Errorf("invalid JSON")
	}
	d := oldScan{b: b}
	return d.value(), nil
}

// oldScan walks a valid JSON document.
type oldScan struct {
	b []byte
	i int
}

func (d *oldScan) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *oldScan) value() any {
	d.space()
	switch c := d.b[d.i]; {
	case c == '{':
		d.i++
		o := newObject()
		for {
			d.space()
			if d.b[d.i] == '}' {
				d.i++
				return o
			}
			k := d.str()
			d.space()
			d.i++ // ':'
			o.set(k, d.value())
			d.space()
			if d.b[d.i] == ',' {
				d.i++
			}
		}
	case c == '[':
		d.i++
		arr := []any{}
		for {
			d.space()
			if d.b[d.i] == ']' {
				d.i++
				return arr
			}
			arr = append(arr, d.value())
			d.space()
			if d.b[d.i] == ',' {
				d.i++
			}
		}
	case c == '"':
		return d.str()
	case c == 't':
		d.i += 4
		return true
	case c == 'f':
		d.i += 5
		return false
	case c == 'n':
		d.i += 4
		return nil
	}
	start := d.i
	for d.i < len(d.b) && strings.IndexByte("+-0123456789.eE", d.b[d.i]) >= 0 {
		d.i++
	}
	return json.Number(d.b[start:d.i])
}

// str reads a string; one with escapes is unquoted by encoding/json.
func (d *oldScan) str() string {
	start := d.i
	d.i++
	escaped := false
	for d.b[d.i] != '"' {
		if d.b[d.i] == '\\' {
			escaped = true
			d.i++
		}
		d.i++
	}
	d.i++
	if !escaped {
		return string(d.b[start+1 : d.i-1])
	}
	var s string
	json.Unmarshal(d.b[start:d.i], &s)
	return s
}
