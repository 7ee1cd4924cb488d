package console

import (
	"testing"

	"github.com/workrail/workrail/engine/compile"
)

// TestEveryBuiltinKindHasATitle: the editor's panel names every kind of
// builtin the catalog can hold.
func TestEveryBuiltinKindHasATitle(t *testing.T) {
	for _, k := range compile.BuiltinKinds() {
		if builtinTitle(k) == "" {
			t.Errorf("builtin kind %q has no title in the editor's panel", k)
		}
	}
}
