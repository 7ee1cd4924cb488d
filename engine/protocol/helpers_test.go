package protocol_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
)

// mustJSON marshals v as indented JSON ending in a newline, without HTML
// escapes so goldens stay readable.
func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// mustCompact marshals v as compact JSON with sorted object keys, so two
// values compare by content.
func mustCompact(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		tb.Fatal(err)
	}
	b, err = json.Marshal(generic)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// wantErr is the part of an *engine.Error a test pins. An empty field is
// not checked, except Pointer: "-" means no pointer detail at all.
type wantErr struct {
	Code        engine.Code
	Message     string // exact, unless Prefix is set
	Prefix      bool
	Pointer     string
	Suggestions []engine.Suggestion
}

func checkErr(t *testing.T, e *engine.Error, want wantErr) {
	t.Helper()
	if e == nil {
		t.Fatalf("no error; want %s", want.Code)
	}
	if e.Code != want.Code {
		t.Fatalf("code %s (%s); want %s", e.Code, e.Message, want.Code)
	}
	if want.Retry() != e.Retry {
		t.Errorf("retry %+v; want %+v", e.Retry, want.Retry())
	}
	switch {
	case want.Message == "":
	case want.Prefix && !strings.HasPrefix(e.Message, want.Message):
		t.Errorf("message %q\nwant prefix %q", e.Message, want.Message)
	case !want.Prefix && e.Message != want.Message:
		t.Errorf("message %q\n     want %q", e.Message, want.Message)
	}
	switch ptr, has := e.Details["pointer"]; {
	case want.Pointer == "":
	case want.Pointer == "-" && has:
		t.Errorf("pointer %v; want none", ptr)
	case want.Pointer != "-" && ptr != want.Pointer:
		t.Errorf("pointer %v; want %q", ptr, want.Pointer)
	}
	if want.Suggestions != nil && !reflect.DeepEqual(e.Suggestions, want.Suggestions) {
		t.Errorf("suggestions %+v\n       want %+v", e.Suggestions, want.Suggestions)
	}
}

// Retry is the retry policy every input error carries.
func (wantErr) Retry() engine.Retry { return engine.Retry{Kind: engine.NotRetryable} }
