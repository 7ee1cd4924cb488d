package secrets_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/server/secrets"
)

// corpusCase is one text of testdata/corpus.json: rule is the rule that
// must match (empty: nothing may), secret the part that must disappear
// (the whole text around it must survive).
type corpusCase struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Rule   string `json:"rule"`
	Secret string `json:"secret"`
}

var scanner = secrets.MustNew()

// background is the daemon's scanner, whose rules load while it starts.
var background = secrets.Background()

func TestCorpus(t *testing.T) {
	raw, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got, rules := redact.Text(scanner, tc.Text)
			if tc.Rule == "" {
				if len(rules) > 0 {
					t.Fatalf("matched %v: %q", rules, got)
				}
				return
			}
			if len(rules) != 1 || rules[0] != tc.Rule {
				t.Fatalf("rules %v; want [%s]\n%q", rules, tc.Rule, got)
			}
			if !strings.Contains(got, redact.Marker(tc.Rule)) {
				t.Errorf("no marker in %q", got)
			}
			if tc.Secret != "" && strings.Contains(got, tc.Secret) {
				t.Errorf("the secret survived: %q", got)
			}
			if again, _ := redact.Text(scanner, tc.Text); again != got {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
			if bg, _ := redact.Text(background, tc.Text); bg != got {
				t.Errorf("the daemon's scanner gives %q; New's gives %q", bg, got)
			}
		})
	}
}
