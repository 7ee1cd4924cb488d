package config

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Set returns config.json's bytes b with key set to value, and the
// configuration they mean. value is JSON (30, true, ["/a"], "x"); text that
// is not JSON is taken as a string, so `set defaultMode wr.modes.guided`
// needs no quotes. Nothing is returned that the schema refuses.
func Set(b []byte, key, value string) ([]byte, Config, *engine.Error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		v = value
	}
	return edit(b, key, func(m map[string]any, name string) { m[name] = v })
}

// Unset returns b without key: the key takes its default again.
func Unset(b []byte, key string) ([]byte, Config, *engine.Error) {
	return edit(b, key, func(m map[string]any, name string) { delete(m, name) })
}

// edit changes one key of the document b and checks the result. Keys the
// file does not name stay unnamed, so defaults keep applying to them.
func edit(b []byte, key string, change func(m map[string]any, name string)) ([]byte, Config, *engine.Error) {
	if _, e := Lookup(key); e != nil {
		return nil, Config{}, e
	}
	doc := map[string]any{}
	if len(bytes.TrimSpace(b)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, Config{}, engine.Errorf(engine.CodeInvalidInput, "config.json is not a JSON object (%v); fix or remove it first", err).With("pointer", "")
		}
	}
	path := strings.Split(key, ".")
	m := doc
	for _, p := range path[:len(path)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	change(m, path[len(path)-1])
	if len(path) > 1 && len(m) == 0 {
		delete(doc, path[0])
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, Config{}, engine.Errorf(engine.CodeInternal, "config: encode: %v", err)
	}
	out = append(out, '\n')
	cfg, e := Parse(out)
	if e != nil {
		return nil, Config{}, e
	}
	return out, cfg, nil
}
