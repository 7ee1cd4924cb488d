package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
)

// TestValidateCatalog: `workrail validate --catalog` prints every builtin
// of every kind, the same bytes each time, and --json holds the same
// entries as data.
func TestValidateCatalog(t *testing.T) {
	runIt := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	text := runIt("validate", "--catalog")
	if again := runIt("validate", "--catalog"); again != text {
		t.Error("two runs printed different catalogs")
	}
	for _, b := range compile.Builtins() {
		if !strings.Contains(text, "\n"+b.Name+" (workrail, "+b.Origin.File+")\n") {
			t.Errorf("text lacks %s %s", b.Kind, b.Name)
		}
	}
	for _, k := range compile.BuiltinKinds() {
		if k != compile.BuiltinRoutine && !strings.Contains(text, "# "+string(k)+"\n") {
			t.Errorf("text lacks the %s heading", k)
		}
	}
	var doc struct{ Builtins []compile.Builtin }
	if err := json.Unmarshal([]byte(runIt("validate", "--catalog", "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Builtins) < len(compile.Builtins()) || doc.Builtins[0].Name != compile.Builtins()[0].Name {
		t.Errorf("JSON holds %d builtins, starting %+v", len(doc.Builtins), doc.Builtins[0])
	}
}
