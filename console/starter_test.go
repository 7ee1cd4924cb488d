package console

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
)

// TestStarterLoads: the workflow a new one starts as loads, under the id
// it is given, from every folder a new workflow may go in.
func TestStarterLoads(t *testing.T) {
	for kind, id := range map[catalog.SourceKind]engine.WorkflowID{catalog.User: "user.review", catalog.Project: "project.review"} {
		text, ok := catalog.WithID(starter, id)
		if !ok {
			t.Fatal("the starter names no id")
		}
		c, _, problems := catalog.Validate(text, kind)
		if problems != nil || c.ID != id {
			t.Errorf("the starter as %s in a %s folder: %v", id, kind, problems)
		}
	}
}
