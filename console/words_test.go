package console

import (
	"testing"

	"github.com/workrail/workrail/engine/event"
)

// TestEveryGapReasonHasWords: the gaps page and filters say each reason in
// words, so a reason added to the closed set without them shows its code
// twice.
func TestEveryGapReasonHasWords(t *testing.T) {
	for _, r := range event.GapReasons() {
		if got := gapReasonText(r); got == string(r) || got == "" {
			t.Errorf("gap reason %s has no words: %q", r, got)
		}
	}
}
