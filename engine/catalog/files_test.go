package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
)

func TestCheckFileName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"user.greet.json", true},
		{"my_review-2.json", true},
		{"A.json", true},
		{"greet", false},
		{".json", false},
		{".hidden.json", false},
		{"../greet.json", false},
		{"..json", false},
		{"a..b.json", false},
		{"sub/greet.json", false},
		{`sub\greet.json`, false},
		{"/etc/passwd.json", false},
		{"greet.json\x00", false},
		{"gréet.json", false},
		{"greet .json", false},
		{"greet.json.bak", false},
		{"", false},
		{strings.Repeat("a", 123) + ".json", true},
		{strings.Repeat("a", 124) + ".json", false},
	} {
		err := catalog.CheckFileName(tc.name)
		var we *catalog.WriteError
		if tc.ok != (err == nil) || (err != nil && (!errors.As(err, &we) || we.Kind != catalog.WriteBadName)) {
			t.Errorf("CheckFileName(%q) = %v; want ok %v", tc.name, err, tc.ok)
		}
	}
}

// WithID changes the id's value and nothing else, wherever the id is.
func TestWithID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":"wr.hello","name":"x"}`, `{"id":"user.hello","name":"x"}`},
		{"{\n  \"name\": \"x\",\n  \"meta\": {\"id\": \"no\"},\n  \"id\" :\t \"wr.hello\" ,\n  \"steps\": []\n}",
			"{\n  \"name\": \"x\",\n  \"meta\": {\"id\": \"no\"},\n  \"id\" :\t \"user.hello\" ,\n  \"steps\": []\n}"},
		{`{"id":"wr.h\u0065llo"}`, `{"id":"user.hello"}`},
		{`{"id":7}`, ""},
		{`{"name":"x"}`, ""},
		{`["id","wr.hello"]`, ""},
	} {
		got, ok := catalog.WithID([]byte(tc.in), "user.hello")
		if string(got) != tc.want || ok != (tc.want != "") {
			t.Errorf("WithID(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestWithName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":"wr.hello","name":"Hello"}`, `{"id":"wr.hello","name":"Hello \"mine\" (fork)"}`},
		{"{\n  \"steps\": [{\"name\": \"no\"}],\n  \"name\" : \"Hello\"\n}", "{\n  \"steps\": [{\"name\": \"no\"}],\n  \"name\" : \"Hello \\\"mine\\\" (fork)\"\n}"},
		{`{"id":"wr.hello"}`, ""},
	} {
		got, ok := catalog.WithName([]byte(tc.in), `Hello "mine" (fork)`)
		if string(got) != tc.want || ok != (tc.want != "") {
			t.Errorf("WithName(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	valid := `{"id":"user.a","name":"A","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p"}]}`
	for _, tc := range []struct {
		text string
		kind catalog.SourceKind
		want string // in the problems; "" for none
	}{
		{valid, catalog.User, ""},
		{valid, catalog.Project, ""},
		{strings.Replace(valid, "user.a", "wr.a", 1), catalog.User, "reserved"},
		{strings.Replace(valid, "user.a", "wr.a", 1), catalog.Config, "reserved"},
		{strings.Replace(valid, `"prompt"`, `"promt"`, 1), catalog.User, `did you mean "prompt"`},
		{`{"id":`, catalog.User, "invalid JSON"},
	} {
		err := catalog.CheckText([]byte(tc.text), tc.kind)
		var we *catalog.WriteError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckText(%s, %s) = %v", tc.text, tc.kind, err)
		case tc.want != "" && (!errors.As(err, &we) || we.Kind != catalog.WriteInvalid || !strings.Contains(we.Problems.Error(), tc.want)):
			t.Errorf("CheckText(%s, %s) = %v; want problems saying %s", tc.text, tc.kind, err, tc.want)
		}
	}
}
