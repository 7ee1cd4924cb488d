package secrets_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/server/secrets"
)

// Passwords with symbols, pasted in the shapes the scanner missed (an
// .env line, one ending in "!", YAML, JSON, a quoted export), are all
// redacted whatever their characters: the sample is 200 of each.
func TestPasswordsWithSymbols(t *testing.T) {
	g := secrets.NewFakes(3)
	shapes := []string{"DB_PASSWORD=%s", "ADMIN_PASSWORD=%s!", "  password: %s", `{"password": "%s"}`, "export SECRET_KEY='%s'", "docker run -e POSTGRES_PASSWORD=\"%s\" db"}
	for _, shape := range shapes {
		stored := 0
		for range 200 {
			p := g.Password()
			text := fmt.Sprintf(shape, p)
			got, rules := redact.Text(scanner, text)
			if strings.Contains(got, p) || len(rules) == 0 {
				if stored++; stored <= 3 {
					t.Errorf("%q stayed: %q", text, got)
				}
			}
		}
		if stored > 0 {
			t.Errorf("%s: %d of 200 passwords stored", shape, stored)
		}
	}
}

// structuredCase is one JSON value of testdata/structured.json, redacted
// as a call's context is: fields are the pointers that must be reported
// with their rules, secret what must not be left anywhere in the value.
type structuredCase struct {
	Name   string              `json:"name"`
	Doc    json.RawMessage     `json:"doc"`
	Fields map[string][]string `json:"fields"`
	Secret string              `json:"secret"`
}

// Object keys are scanned, members are scanned with their names, and a
// name/value pair's value with the pair's name.
func TestStructuredShapes(t *testing.T) {
	var cases []structuredCase
	if err := json.Unmarshal(secrets.ReadFilled(t, "testdata/structured.json"), &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			r := redact.New(scanner)
			out := r.Raw("/c", tc.Doc)
			got := map[string][]string{}
			for _, f := range r.Fields() {
				got[f.Pointer] = f.Rules
			}
			if !reflect.DeepEqual(got, tc.Fields) {
				t.Errorf("fields %v; want %v\n%s", got, tc.Fields, out)
			}
			if tc.Secret != "" && strings.Contains(string(out), tc.Secret) {
				t.Errorf("the secret stayed: %s", out)
			}
			if again := redact.New(scanner).Raw("/c", tc.Doc); string(again) != string(out) {
				t.Errorf("not deterministic:\n%s\n%s", out, again)
			}
			for _, f := range r.Fields() {
				if tc.Secret != "" && strings.Contains(f.Pointer, tc.Secret) {
					t.Errorf("a pointer repeats the secret: %s", f.Pointer)
				}
			}
		})
	}
}
