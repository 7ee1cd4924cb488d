package secrets

import (
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/redact"
)

// The gates only narrow where a rule's expression is run: every text of
// the corpus, alone, inside prose and split over YAML lines, gives the
// same findings with them as with every rule run on the whole text.
func TestGatesFindWhatWholeTextFinds(t *testing.T) {
	gated := MustNew()
	whole := MustNew()
	n := 0
	for i := range whole.rules {
		if whole.rules[i].gate != nil {
			n++
		}
		whole.rules[i].gate = nil
	}
	if n < 50 {
		t.Fatalf("only %d rules are gated; the test compares nothing much", n)
	}
	cases := LoadCorpus(t)
	prose := "Rotated the API key handling in engine/protocol/input.go; the token refresh (see https://github.com/org/repo/pull/17) is next.\n"
	var texts []string
	for _, c := range cases {
		texts = append(texts, c.Text, prose+c.Text+"\n"+prose, strings.ReplaceAll(c.Text, " = ", ":\n    "), strings.ReplaceAll(c.Text, ": ", ":\n  "))
	}
	found := 0
	for _, text := range texts {
		got, want := sorted(gated.Scan(text)), sorted(whole.Scan(text))
		if !slices.Equal(got, want) {
			t.Errorf("%q:\ngated %v\nwhole %v", text, got, want)
		}
		found += len(want)
	}
	if found < len(cases) {
		t.Fatalf("only %d findings in %d texts", found, len(texts))
	}
}

func sorted(fs []redact.Finding) []redact.Finding {
	slices.SortFunc(fs, func(a, b redact.Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	return fs
}
