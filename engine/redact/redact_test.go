package redact_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/redact"
)

// words finds each of its words, named by the word's rule.
type words map[string]string

func (w words) Scan(text string) []redact.Finding {
	var out []redact.Finding
	for word, rule := range w {
		for i := 0; ; {
			k := strings.Index(text[i:], word)
			if k < 0 {
				break
			}
			out = append(out, redact.Finding{Start: i + k, End: i + k + len(word), Rule: rule})
			i += k + len(word)
		}
	}
	return out
}

// Named finds a field's words in its value, and all of a value whose
// name is "secret".
func (w words) Named(name, value string) []redact.Finding {
	if name == "secret" {
		return []redact.Finding{{Start: 0, End: len(value), Rule: "named"}}
	}
	return w.Scan(value)
}

func TestText(t *testing.T) {
	s := words{"s3cr3t": "a", "cr3t99": "b", "tok": "c"}
	for _, tc := range []struct {
		in, want string
		rules    []string
	}{
		{"nothing here", "nothing here", nil},
		{"x s3cr3t y tok", "x [redacted: a] y [redacted: c]", []string{"a", "c"}},
		{"overlap s3cr3t99!", "overlap [redacted: a]!", []string{"a"}}, // merged, named by the first
		{"tok tok", "[redacted: c] [redacted: c]", []string{"c"}},
	} {
		got, rules := redact.Text(s, tc.in)
		if got != tc.want || !reflect.DeepEqual(rules, tc.rules) {
			t.Errorf("Text(%q) = %q, %v; want %q, %v", tc.in, got, rules, tc.want, tc.rules)
		}
	}
}

// Value redacts strings at any depth, names them by pointer in key order,
// and never writes to what it was given.
func TestValueAndRaw(t *testing.T) {
	r := redact.New(words{"tok": "c"})
	in := map[string]any{"b/x": []any{"ok", "tok"}, "a": map[string]any{"n": json.Number("1"), "s": "a tok"}, "k": "fine"}
	out := r.Value("/context", in).(map[string]any)
	if in["b/x"].([]any)[1] != "tok" || in["a"].(map[string]any)["s"] != "a tok" {
		t.Fatalf("the input was changed: %v", in)
	}
	if out["b/x"].([]any)[1] != "[redacted: c]" || out["a"].(map[string]any)["s"] != "a [redacted: c]" || out["k"] != "fine" {
		t.Errorf("Value = %v", out)
	}
	want := []redact.Field{{Pointer: "/context/a/s", Rules: []string{"c"}}, {Pointer: "/context/b~1x/1", Rules: []string{"c"}}}
	if !reflect.DeepEqual(r.Fields(), want) {
		t.Errorf("fields %+v; want %+v", r.Fields(), want)
	}

	raw := json.RawMessage(`{ "kind":"x",  "n": 1.50 }`)
	if got := r.Raw("/a", raw); string(got) != string(raw) {
		t.Errorf("Raw changed bytes with nothing to redact: %s", got)
	}
	if got := r.Raw("/a", json.RawMessage(`{"v":"tok","n":1.50}`)); string(got) != `{"n":1.50,"v":"[redacted: c]"}` {
		t.Errorf("Raw = %s", got)
	}
}

func TestNoticeNamesFieldsNotSecrets(t *testing.T) {
	if redact.Notice(nil) != nil {
		t.Error("a notice for nothing redacted")
	}
	n := redact.Notice([]redact.Field{{Pointer: "/output/notesMarkdown", Rules: []string{"github-pat"}}})
	if len(n) != 1 || n[0].Code != "SECRET_REDACTED" || !strings.Contains(n[0].Message, "/output/notesMarkdown (github-pat)") {
		t.Errorf("notice %+v", n)
	}
}

// A key holding a secret is renamed to its redacted text, numbered when
// the object has that key already; a name/value pair's value is redacted
// as the value of the pair's name; the input is not changed.
func TestKeysAndPairs(t *testing.T) {
	r := redact.New(words{"tok": "c"})
	in := map[string]any{"tok": json.Number("1"), "[redacted: c]": "x", "p": map[string]any{"Name": "secret", "Value": "v", "tok2": "ok"}}
	out := r.Value("/x", in).(map[string]any)
	if _, ok := in["tok"]; !ok || in["p"].(map[string]any)["Value"] != "v" {
		t.Fatalf("the input was changed: %v", in)
	}
	want := map[string]any{"[redacted: c] (2)": json.Number("1"), "[redacted: c]": "x",
		"p": map[string]any{"Name": "secret", "Value": "[redacted: named]", "[redacted: c]2": "ok"}}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("Value = %v; want %v", out, want)
	}
	fields := []redact.Field{{Pointer: "/x/p/Value", Rules: []string{"named"}}, {Pointer: "/x/p/[redacted: c]2", Rules: []string{"c"}},
		{Pointer: "/x/[redacted: c] (2)", Rules: []string{"c"}}}
	if !reflect.DeepEqual(r.Fields(), fields) {
		t.Errorf("fields %+v; want %+v", r.Fields(), fields)
	}
}
