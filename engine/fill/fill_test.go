package fill_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/workrail/workrail/engine/fill"
)

func TestIsTemplate(t *testing.T) {
	asks := []string{"the user's answer, in their words"}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{fill.Marker("anything"), true},
		{"Did the step. " + fill.Marker("more") + " then more", true},
		{"<<fill:no space after the colon>>", true},
		{"  Replace with 1-10 lines: what you did in this step and what you found.\n", true},
		{"<what the user answered, in their words>", true},
		{"<one line: why these ratings>", true},
		{"the user's answer, in their words", true},
		{"Replace with 1-10 lines: what you did in this step and what you found. And more.", false},
		{"The user answered: go with option A.", false},
		{"<their answer> was long", false},
		{"", false},
		{"a << b fill", false},
	} {
		if got := fill.IsTemplate(tc.s, asks...); got != tc.want {
			t.Errorf("IsTemplate(%q) = %v; want %v", tc.s, got, tc.want)
		}
	}
}

func TestStrip(t *testing.T) {
	asks := []string{"continue or stop"}
	for _, tc := range []struct {
		name, in, want string
		removed        []string
	}{
		{"nothing to remove keeps the bytes", `{"kind":"k", "b":[1,2]}`, `{"kind":"k", "b":[1,2]}`, nil},
		{"a marker member", `{"kind":"wr.user_response","response":"<<fill: the user's answer>>","choice":"A"}`,
			`{"choice":"A","kind":"wr.user_response"}`, []string{"/response"}},
		{"an escaped earlier placeholder", `{"kind":"wr.user_response","response":"\u003cwhat the user answered, in their words\u003e"}`,
			`{"kind":"wr.user_response"}`, []string{"/response"}},
		{"an asks text without its ends", `{"decision":"continue or stop","n":1.50}`, `{"n":1.50}`, []string{"/decision"}},
		{"nested members and array elements", `{"a":{"b/c":"<<fill: x>>","d":["ok","<<fill: y>>",{"e~":"<<fill: z>>"}]}}`,
			`{"a":{"d":["ok",{}]}}`, []string{"/a/b~1c", "/a/d/1", "/a/d/2/e~0"}},
		{"a whole value", `"<<fill: all>>"`, ``, []string{""}},
		{"not JSON is left alone", `{"a":"<<fill: x>>"`, `{"a":"<<fill: x>>"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, removed := fill.Strip(json.RawMessage(tc.in), asks)
			if string(got) != tc.want || !slices.Equal(removed, tc.removed) {
				t.Errorf("Strip(%s) = %s, %q; want %s, %q", tc.in, got, removed, tc.want, tc.removed)
			}
		})
	}
}

func TestFromContract(t *testing.T) {
	schema := `{"type":"object","required":["kind","version","decision","items"],"properties":{
		"kind":{"const":"x.k"},"version":{"const":1},"decision":{"enum":["continue","stop"]},
		"reason":{"type":"string"},"score":{"type":"integer"},"flag":{"type":"boolean"},
		"items":{"type":"array","items":{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"riskLevel":{"enum":["L","H"]}}}},
		"single":{"enum":["only"]}}}`
	example := `{"kind":"x.k","version":1,"decision":"stop","reason":"All done.","score":3,"flag":true,
		"items":[{"path":"a.go","riskLevel":"L"},{"path":"b.go","riskLevel":"H"}],"single":"only","free":"text"}`
	a := fill.FromContract(json.RawMessage(schema), json.RawMessage(example), map[string]string{"/reason": "why"})
	want := `{"kind":"x.k","version":1,"decision":"<<fill: decision: one of continue | stop>>","reason":"<<fill: (optional) why>>",` +
		`"score":"<<fill: (optional) score (a number)>>","flag":"<<fill: (optional) flag: true or false>>",` +
		`"items":[{"path":"<<fill: path>>","riskLevel":"<<fill: (optional) risk level: one of L | H>>"}],"single":"only","free":"<<fill: (optional) free>>"}`
	if string(a.Value) != want || a.Kind != "x.k" {
		t.Fatalf("template:\n%s\nwant\n%s (kind %q)", a.Value, want, a.Kind)
	}
	var got []string
	for _, s := range a.Slots {
		got = append(got, s.Pointer)
		if s.Pointer == "/decision" && (!s.Required || !slices.Equal(s.Options, []string{"continue", "stop"})) {
			t.Errorf("decision slot: %+v", s)
		}
		if s.Pointer == "/items/0/riskLevel" && s.Required {
			t.Errorf("an optional member is a required slot: %+v", s)
		}
	}
	if want := []string{"/decision", "/reason", "/score", "/flag", "/items/0/path", "/items/0/riskLevel", "/free"}; !slices.Equal(got, want) {
		t.Errorf("slots %q; want %q", got, want)
	}
	// Every marker of the template is found again by Strip, so a copied
	// template leaves nothing an agent wrote.
	if left, removed := fill.Strip(a.Value, fill.Asks(a.Slots)); len(removed) != len(a.Slots) {
		t.Errorf("Strip of the template removed %q, left %s", removed, left)
	}
	// A schema that does not parse requires nothing: every value is an
	// optional marker, never the example's.
	bad := fill.FromContract(json.RawMessage(`{`), json.RawMessage(example), nil)
	if left, _ := fill.Strip(bad.Value, fill.Asks(bad.Slots)); string(left) != `{"items":[{}],"kind":"x.k"}` || len(bad.Slots) != 9 || bad.Slots[0].Required {
		t.Errorf("a schema that does not parse: %s %+v (left %s)", bad.Value, bad.Slots, left)
	}
}
