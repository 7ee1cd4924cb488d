package protocol

import (
	"strings"
	"testing"
)

// The instructions stay a few short lines, name the core tools and say
// what an agent must never do.
func TestInstructionsAreShort(t *testing.T) {
	if n := strings.Count(Instructions, "\n") + 1; n > 6 {
		t.Errorf("instructions are %d lines; keep them to 6", n)
	}
	if len(Instructions) > 900 {
		t.Errorf("instructions are %d bytes; keep them under 900: every chat carries them", len(Instructions))
	}
	for _, want := range []string{string(ToolList), string(ToolStart), string(ToolContinue), "nextCall", "unchanged", "<<fill:", "ask the user"} {
		if !strings.Contains(Instructions, want) {
			t.Errorf("instructions do not say %q:\n%s", want, Instructions)
		}
	}
}
