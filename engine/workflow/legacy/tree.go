package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
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
// objects in order.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := value(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the workflow object")
	}
	return v, nil
}

func value(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := newObject()
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := value(d)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v)
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		arr := []any{}
		for d.More() {
			v, err := value(d)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := d.Token()
		return arr, err
	}
	return t, nil
}

// MarshalJSON writes the members in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := encode(&b, o)
	return b.Bytes(), err
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

// sortedKeys are o's keys in byte order.
func (o *object) sortedKeys() []string {
	ks := append([]string(nil), o.keys...)
	sort.Strings(ks)
	return ks
}
