package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/workrail/workrail/engine"
)

// Value redacts every string inside v (a value decoded from JSON: maps,
// slices, strings, numbers, booleans, nil) at pointer ptr, object members
// in key order. Object keys are left as they are. A container with
// nothing to redact is returned as it was; one with something is copied,
// never written to.
func (r *Report) Value(ptr string, v any) any {
	out, _ := r.value(ptr, v)
	return out
}

// value is Value, also reporting whether anything was replaced.
func (r *Report) value(ptr string, v any) (any, bool) {
	switch x := v.(type) {
	case string:
		out := r.String(ptr, x)
		return out, out != x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out map[string]any
		for _, k := range keys {
			nv, ch := r.value(ptr+"/"+engine.PointerToken(k), x[k])
			if ch && out == nil {
				out = maps.Clone(x)
			}
			if ch {
				out[k] = nv
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range x {
			nv, ch := r.value(ptr+"/"+strconv.Itoa(i), e)
			if ch && out == nil {
				out = slices.Clone(x)
			}
			if ch {
				out[i] = nv
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	default:
		return v, false
	}
}

// Context redacts the string values of a call's context at pointer ptr.
func (r *Report) Context(ptr string, ctx map[string]any) map[string]any {
	if ctx == nil {
		return nil
	}
	return r.Value(ptr, ctx).(map[string]any)
}

// Raw redacts the strings of one JSON value at pointer ptr. A value with
// nothing to redact keeps its bytes; one with something is encoded again
// (numbers keep their spelling). Bytes that are not JSON are returned as
// they are: the caller has refused them before.
func (r *Report) Raw(ptr string, raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	nv, ch := r.value(ptr, v)
	if !ch {
		return raw
	}
	out, err := json.Marshal(nv)
	if err != nil {
		return raw
	}
	return out
}
