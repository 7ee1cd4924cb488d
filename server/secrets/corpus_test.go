package secrets_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/server/secrets"
)

var scanner = secrets.MustNew()

// background is the daemon's scanner, whose rules load while it starts.
var background = secrets.Background()

func TestCorpus(t *testing.T) {
	for _, tc := range secrets.LoadCorpus(t) {
		t.Run(tc.Name, func(t *testing.T) {
			got, rules := redact.Text(scanner, tc.Text)
			want := tc.Want()
			if len(want) == 0 {
				if len(rules) > 0 {
					t.Fatalf("matched %v: %q", rules, got)
				}
				return
			}
			if !slices.Equal(rules, want) {
				t.Fatalf("rules %v; want %v\n%q", rules, want, got)
			}
			for _, r := range want {
				if !strings.Contains(got, redact.Marker(r)) {
					t.Errorf("no marker of %s in %q", r, got)
				}
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
