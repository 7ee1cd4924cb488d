package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// object is a JSON object that keeps its members in the author's order,
// so that what is rewritten (an outputRequired map turned into a list, the
// normalized file itself) reads in the order it was written.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *object) get(k string) any { return o.vals[k] }

// set replaces k's value in place, or appends k.
func (o *object) set(k string, v any) {
	if !o.has(k) {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// rename moves k's value to to, at k's place.
func (o *object) rename(k, to string) {
	v, ok := o.vals[k]
	if !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys[i] = to
		}
	}
	o.vals[to] = v
}

func (o *object) del(k string) {
	if !o.has(k) {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			return
		}
	}
}

// str is k's value when it is a string.
func (o *object) str(k string) string {
	s, _ := o.vals[k].(string)
	return s
}

// obj is k's value when it is an object.
func (o *object) obj(k string) *object {
	x, _ := o.vals[k].(*object)
	return x
}

// decode reads one JSON document, keeping numbers as json.Number and
// objects in order. The document is checked by json.Valid first, so the
// scan below can trust its shape; encoding/json's token reader was the
// normalizer's largest cost.
func decode(b []byte) (any, error) {
	if !json.Valid(b) {
		return nil, fmt.Errorf("invalid JSON")
	}
	d := scan{b: b}
	return d.value(), nil
}

// scan walks a valid JSON document.
type scan struct {
	b []byte
	i int
}

func (d *scan) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *scan) value() any {
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
func (d *scan) str() string {
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

// encode writes v as JSON into one buffer (nested objects are not
// re-encoded level by level, which made large files slow).
func encode(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := encode(b, x.vals[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case json.Number:
		b.WriteString(string(x))
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(enc)
	}
	return nil
}
