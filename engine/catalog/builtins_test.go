package catalog_test

import (
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
)

// TestBuiltinsListRoutines: the catalog's builtins are WorkRail's, then
// each routine it holds (not its workflows), with the inputs it takes as
// a schema and the file it came from.
func TestBuiltinsListRoutines(t *testing.T) {
	user := catalog.Source{Kind: catalog.User, Path: "/home/u/.workrail/workflows"}
	routine := `{"id":"user.routine-gather","kind":"routine","name":"Gather","description":"Gathers context.","version":"1",
 "context":[{"name":"depth","type":"integer","description":"how far","required":true},{"name":"topic","type":"string","description":"what"}],
 "steps":[{"id":"a","title":"A","prompt":"gather"}]}`
	c := catalog.New([]catalog.Entry{
		MustLoad(t, []byte(routine), user, "gather.json"),
		MustLoad(t, wfJSON("user.plain", "Plain", ""), user, "plain.json"),
	}, nil)
	all := c.Builtins()
	if n := len(compile.Builtins()); len(all) != n+1 {
		t.Fatalf("%d builtins; want WorkRail's %d and one routine", len(all), n)
	}
	r := all[len(all)-1]
	if r.Kind != compile.BuiltinRoutine || r.Name != "user.routine-gather" || r.Description != "Gathers context." ||
		r.Origin != (compile.BuiltinOrigin{By: "user", File: "gather.json"}) {
		t.Errorf("routine builtin %+v", r)
	}
	var schema struct {
		Properties map[string]struct{ Type string }
		Required   []string
	}
	if err := json.Unmarshal(r.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Properties["depth"].Type != "integer" || schema.Properties["topic"].Type != "string" || len(schema.Required) != 1 || schema.Required[0] != "depth" {
		t.Errorf("schema %s; want depth (required) and topic", r.Schema)
	}
}
