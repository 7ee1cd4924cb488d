package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/workrail/workrail/engine/canon"
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
// objects in order, with jsontext's token reader. b is valid UTF-8
// (rewrite checks it first); the reader takes what json.Valid takes, as
// the format's files were always read: an unpaired surrogate escape
// reads as U+FFFD, and a name sent twice keeps its first place and its
// last value.
func decode(b []byte) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	v, err := value(dec)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON")
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON")
	}
	return v, nil
}

// value reads the value that starts at dec's next token.
func value(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		o := newObject()
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := k.String()
			v, err := value(dec)
			if err != nil {
				return nil, err
			}
			o.set(name, v)
		}
		_, err := dec.ReadToken()
		return o, err
	case '[':
		arr := []any{}
		for dec.PeekKind() != ']' {
			v, err := value(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.ReadToken()
		return arr, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 'n':
		return nil, nil
	}
	return tok.Bool(), nil
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
	case string:
		b.Write(appendString(b.AvailableBuffer(), x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(enc)
	}
	return nil
}

// plain returns the tree encode writes v as, the way workflow.Parse
// reads it (encoding/json with UseNumber): objects as maps, arrays as
// []any even when empty, what encode hands to json.Marshal read back.
// It declines (false) a string that is not valid UTF-8 (encode writes
// U+FFFD for its bad bytes) and a number that is not one number's text.
func plain(v any) (any, bool) {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			e, ok := plain(x.vals[k])
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			m[k] = e
		}
		return m, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = plain(e); !ok {
				return nil, false
			}
		}
		return out, true
	case string:
		return x, utf8.ValidString(x)
	case json.Number:
		return x, x != "" && strings.Trim(string(x), "+-.0123456789eE") == "" && jsontext.Value(x).IsValid()
	case bool, nil:
		return x, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil, false
	}
	return out, true
}

// appendString quotes s as encoding/json does, without a json.Marshal
// for every string of the file.
func appendString(dst []byte, s string) []byte { return canon.AppendString(dst, s, canon.GoHTML) }
