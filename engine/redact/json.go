package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Value redacts every string inside v (a value decoded from JSON: maps,
// slices, strings, numbers, booleans, nil) at pointer ptr, object members
// in key order, and every object key (see object). A container with
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
		return r.object(ptr, x)
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

// object redacts an object's keys and members, in key order. A key
// holding a secret is renamed to its redacted text (numbered when two
// would meet), and pointers name members by their new keys, so a field
// list never repeats a secret. A string member is redacted as the value
// of a field of its name (Scanner.Named); in a name/value pair, as
// Kubernetes, ECS and CloudFormation write settings ({"name":
// "DB_PASSWORD", "value": "…"}), the value is redacted as the value of
// the name the pair gives.
func (r *Report) object(ptr string, x map[string]any) (any, bool) {
	keys := slices.Sorted(maps.Keys(x))
	pair, hasPair := pairName(x, keys)
	var out map[string]any
	for _, k := range keys {
		nk, rules := Text(r.scanner, k)
		if len(rules) > 0 {
			nk = unused(nk, x, out)
			r.add(ptr+"/"+engine.PointerToken(nk), rules)
		}
		at := ptr + "/" + engine.PointerToken(nk)
		nv, ch := x[k], false
		if s, ok := nv.(string); ok {
			name := k
			if hasPair && isPairValue(k) {
				name = pair
			}
			nv = r.named(at, name, s)
			ch = nv != s
		} else {
			nv, ch = r.value(at, nv)
		}
		if nk == k && !ch {
			continue
		}
		if out == nil {
			out = maps.Clone(x)
		}
		delete(out, k)
		out[nk] = nv
	}
	if out == nil {
		return x, false
	}
	return out, true
}

// unused is key, or key numbered " (2)", " (3)", … when the object (as
// given, or as being rewritten) already has it.
func unused(key string, x, out map[string]any) string {
	taken := func(k string) bool {
		_, a := x[k]
		_, b := out[k]
		return a || b
	}
	k := key
	for n := 2; taken(k); n++ {
		k = key + " (" + strconv.Itoa(n) + ")"
	}
	return k
}

// pairName is the name of a name/value pair: the string of its "name"
// member (else "key", "parameterKey", "variable", in any case), when the
// object also has a "value" (or "parameterValue") member. keys are x's,
// sorted, so the same object always gives the same name.
func pairName(x map[string]any, keys []string) (string, bool) {
	if !slices.ContainsFunc(keys, isPairValue) {
		return "", false
	}
	for _, want := range []string{"name", "key", "parameterkey", "variable"} {
		for _, k := range keys {
			if strings.ToLower(k) == want {
				name, ok := x[k].(string)
				return name, ok
			}
		}
	}
	return "", false
}

func isPairValue(k string) bool {
	k = strings.ToLower(k)
	return k == "value" || k == "parametervalue"
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
