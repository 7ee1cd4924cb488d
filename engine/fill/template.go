package fill

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"unicode"
)

// Artifact is the template of one artifact: its kind, the value to put in
// output.artifacts (markers where the agent writes), and its slots, with
// pointers below the artifact.
type Artifact struct {
	Kind  string
	Value json.RawMessage
	Slots []Slot
}

// Asks returns the asks texts of every slot.
func Asks(slots []Slot) []string {
	out := make([]string, len(slots))
	for i, s := range slots {
		out[i] = s.Asks
	}
	return out
}

// Optional is the asks text of a slot the agent may leave out.
func Optional(what string) string { return "(optional) " + what }

// FromContract builds the template of an artifact a contract describes,
// from its JSON Schema and its example: the example's shape and member
// order, with its kind and the schema's constants kept and every other
// value a marker. A member the schema requires (at every level down) is a
// required slot, any other an optional one; a member whose schema has an
// enum lists it as the slot's options. asks overrides what a slot asks,
// by pointer below the artifact. A schema that does not parse (the
// checker refuses one, so only a pin from before can hold it) requires
// nothing: every value is an optional slot. An example that does not parse
// gives back no template.
func FromContract(schema, example json.RawMessage, asks map[string]string) Artifact {
	var sch node
	ex, err := decodeOrdered(example)
	if err != nil {
		return Artifact{}
	}
	if json.Unmarshal(schema, &sch) != nil {
		sch = node{}
	}
	if obj, ok := ex.(object); ok {
		ex = kindFirst(obj)
	}
	b := builder{asks: asks}
	v := b.value(ex, &sch, "", true)
	a := Artifact{Value: marshalOrdered(v), Slots: b.slots}
	if obj, ok := ex.(object); ok {
		if k, ok := obj.get("kind").(string); ok {
			a.Kind = k
		}
	}
	return a
}

// kindFirst puts an object's kind first: it is what a reader of the
// template needs to see first, whatever order the example was kept in.
func kindFirst(o object) object {
	out := make(object, 0, len(o))
	for _, m := range o {
		if m.key == "kind" {
			out = append(out, m)
		}
	}
	for _, m := range o {
		if m.key != "kind" {
			out = append(out, m)
		}
	}
	return out
}

// node is the part of a JSON Schema a template reads.
type node struct {
	Const      json.RawMessage  `json:"const"`
	Enum       []any            `json:"enum"`
	Type       any              `json:"type"`
	Required   []string         `json:"required"`
	Properties map[string]*node `json:"properties"`
	Items      *node            `json:"items"`
}

type builder struct {
	asks  map[string]string
	slots []Slot
}

// value is the template of example value v at ptr, whose schema is s
// (nil when the schema says nothing of it); required: every level above
// requires it.
func (b *builder) value(v any, s *node, ptr string, required bool) any {
	if s == nil {
		s = &node{}
	}
	switch {
	case ptr == "/kind":
		return v
	case s.Const != nil:
		c, _ := decodeOrdered(s.Const)
		return c
	case len(s.Enum) == 1:
		return s.Enum[0]
	}
	switch x := v.(type) {
	case object:
		out := make(object, 0, len(x))
		for _, m := range x {
			p := ptr + "/" + escape(m.key)
			out = append(out, member{m.key, b.value(m.val, s.Properties[m.key], p, required && slices.Contains(s.Required, m.key))})
		}
		return out
	case []any:
		if len(x) == 0 {
			return x
		}
		return []any{b.value(x[0], s.Items, ptr+"/0", required)}
	}
	return b.slot(ptr, s, required)
}

// slot adds the slot at ptr and returns its marker.
func (b *builder) slot(ptr string, s *node, required bool) string {
	what := b.asks[ptr]
	var options []string
	for _, e := range s.Enum {
		if str, ok := e.(string); ok {
			options = append(options, str)
		} else {
			options = append(options, string(plainJSON(e)))
		}
	}
	if what == "" {
		what = words(ptr)
		switch {
		case len(options) > 0:
			what += ": one of " + strings.Join(options, " | ")
		case s.Type == "number" || s.Type == "integer":
			what += " (a number)"
		case s.Type == "boolean":
			what += ": true or false"
		}
	}
	if !required {
		what = Optional(what)
	}
	b.slots = append(b.slots, Slot{Pointer: ptr, Asks: what, Required: required, Options: options})
	return Marker(what)
}

// words names the member at ptr in words: its last name that is not an
// array index, camelCase split ("/keyDecisions/0" → "key decisions").
func words(ptr string) string {
	parts := strings.Split(ptr, "/")
	name := ""
	for i := len(parts) - 1; i >= 0 && name == ""; i-- {
		if p := parts[i]; p != "" && strings.Trim(p, "0123456789") != "" {
			name = p
		}
	}
	var out strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			out.WriteByte(' ')
		}
		if r == '_' {
			r = ' '
		}
		out.WriteRune(unicode.ToLower(r))
	}
	return out.String()
}

// object is a JSON object with its members in document order.
type object []member

type member struct {
	key string
	val any
}

func (o object) get(k string) any {
	for _, m := range o {
		if m.key == k {
			return m.val
		}
	}
	return nil
}

// decodeOrdered reads one JSON value, objects as ordered members and
// numbers as json.Number, so a template keeps the example's order.
func decodeOrdered(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return v, nil
}

func readValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		var o object
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return t, nil
}

// marshalOrdered writes a value read by decodeOrdered (members in order)
// compactly, without HTML escaping.
func marshalOrdered(v any) json.RawMessage {
	var b bytes.Buffer
	writeOrdered(&b, v)
	return b.Bytes()
}

func writeOrdered(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case object:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(plainJSON(m.key))
			b.WriteByte(':')
			writeOrdered(b, m.val)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeOrdered(b, e)
		}
		b.WriteByte(']')
	default:
		b.Write(plainJSON(x))
	}
}

// With is a with the value at ptr (a member of its top-level object) set
// to the literal v, no longer a slot: what WorkRail knows itself, such as
// the capability a probe step probes.
func (a Artifact) With(ptr string, v any) Artifact {
	val, err := decodeOrdered(a.Value)
	obj, ok := val.(object)
	if err != nil || !ok {
		return a
	}
	key := strings.TrimPrefix(ptr, "/")
	for i, m := range obj {
		if m.key == key {
			obj[i].val = v
		}
	}
	a.Value = marshalOrdered(obj)
	a.Slots = slices.DeleteFunc(slices.Clone(a.Slots), func(s Slot) bool { return s.Pointer == ptr })
	return a
}
