package compile_test

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// outlineOf is what RestoreOutline keeps of a fully restored workflow.
func outlineOf(c compile.Compiled) compile.Workflow {
	var nodes func([]compile.Node) []compile.Node
	nodes = func(list []compile.Node) []compile.Node {
		if list == nil {
			return nil
		}
		out := []compile.Node{}
		for _, n := range list {
			switch {
			case n.Step != nil:
				out = append(out, compile.Node{Step: &compile.Step{ID: n.Step.ID, Title: n.Step.Title}})
			case n.Loop != nil:
				l := &compile.Loop{ID: n.Loop.ID, Title: n.Loop.Title, Body: nodes(n.Loop.Body)}
				l.Spec.MaxIterations = n.Loop.Spec.MaxIterations
				out = append(out, compile.Node{Loop: l})
			}
		}
		return out
	}
	return compile.Workflow{ID: c.ID, Kind: c.Kind, Name: c.Name, Description: c.Description, Version: c.Version, Steps: nodes(c.Steps)}
}

// TestRestoreOutlineOfNoSteps reads a workflow sealed without steps
// (null where a list would be), as Restore does.
func TestRestoreOutlineOfNoSteps(t *testing.T) {
	c, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := compile.RestoreOutline(c.Canonical, c.Hash)
	if err != nil || got.Steps != nil || got.ID != "wr.x" || got.Version != "1" {
		t.Errorf("RestoreOutline = %+v, %v", got.Workflow, err)
	}
}

// restored is a pinned workflow read whole and as its outline.
type restored struct {
	entry         catalog.Entry
	full, outline compile.Compiled
}

// restoredBothWays reads every bundled workflow's pinned bytes and a
// 1,000-step one's with Restore and with RestoreOutline.
func restoredBothWays(t *testing.T) []restored {
	t.Helper()
	entries := executetest.Catalog(t, workflows.FS).Catalog("").All()
	entries = append(entries, executetest.Long(t, 1000).Catalog("").All()...)
	out := make([]restored, len(entries))
	for i, e := range entries {
		full, err := compile.Restore(e.Compiled.Canonical, e.Compiled.Hash)
		if err != nil {
			t.Fatal(err)
		}
		outline, err := compile.RestoreOutline(e.Compiled.Canonical, e.Compiled.Hash)
		if err != nil {
			t.Fatalf("%s: %v", e.Compiled.ID, err)
		}
		out[i] = restored{e, full, outline}
	}
	return out
}

// TestRestoreOutline reads every bundled workflow's pinned bytes (loops
// nested in loops among them) and a 1,000-step one as RestoreOutline
// does and compares it with the same fields of a full Restore, titles
// by step id included.
func TestRestoreOutline(t *testing.T) {
	loops := 0
	for _, r := range restoredBothWays(t) {
		e, full, got := r.entry, r.full, r.outline
		if want := outlineOf(full); !reflect.DeepEqual(got.Workflow, want) {
			t.Errorf("%s: outline differs from the full restore:\n got %+v\nwant %+v", e.Compiled.ID, got.Workflow, want)
		}
		if got.Hash != e.Compiled.Hash || string(got.Canonical) != string(e.Compiled.Canonical) {
			t.Errorf("%s: hash or bytes not kept", e.Compiled.ID)
		}
		compile.Walk(full.Steps, func(n compile.Node) {
			if n.Loop != nil {
				loops++
				return
			}
			if st, ok := got.Step(n.Step.ID); !ok || st.Title != n.Step.Title {
				t.Errorf("%s: step %s not found by id with its title", e.Compiled.ID, n.Step.ID)
			}
		})
	}
	if loops == 0 {
		t.Fatal("no bundled workflow has a loop: the outline's loops go untested")
	}
}

// TestRestoreOutlineUnescapesTitles reads ids and titles that need
// escapes in JSON (quotes, backslashes, control characters, line
// separators, characters past ASCII) as a full Restore does: the
// outline keeps them unquoted, as parts of one string.
func TestRestoreOutlineUnescapesTitles(t *testing.T) {
	titles := []string{"", `say "done"`, `C:\path`, "tab\there\nand a line", "line\u2028sep", "café ✓ 🚀", "<b>&amp;</b>"}
	w := compile.Workflow{ID: "wr.x", Name: "x", Version: "1"}
	for i, title := range titles {
		w.Steps = append(w.Steps, compile.Node{Step: &compile.Step{ID: workflow.StepID("s-é" + strconv.Itoa(i)), Title: title}})
	}
	w.Steps = append(w.Steps, compile.Node{Loop: &compile.Loop{ID: `l"1`, Title: "loop\t✓",
		Body: []compile.Node{{Step: &compile.Step{ID: "in", Title: `in "it"`}}}}})
	c, err := compile.Seal(w)
	if err != nil {
		t.Fatal(err)
	}
	full, err := compile.Restore(c.Canonical, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	got, err := compile.RestoreOutline(c.Canonical, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if want := outlineOf(full); !reflect.DeepEqual(got.Workflow, want) {
		t.Errorf("outline differs from the full restore:\n got %+v\nwant %+v", got.Workflow, want)
	}
	for i, title := range titles {
		id := workflow.StepID("s-é" + strconv.Itoa(i))
		if st, ok, err := got.DecodeStep(id); err != nil || !ok || st.Title != title {
			t.Errorf("DecodeStep(%s) = %+v, %v, %v; want title %q", id, st, ok, err, title)
		}
	}
}

// TestOutlineDecodesOneStep decodes each step of every bundled workflow
// and of a 1,000-step one alone from its outline, and the contracts, and
// compares them with a full Restore's.
func TestOutlineDecodesOneStep(t *testing.T) {
	contracts := 0
	for _, r := range restoredBothWays(t) {
		e, full, got := r.entry, r.full, r.outline
		compile.Walk(full.Steps, func(n compile.Node) {
			if n.Step == nil {
				return
			}
			for _, c := range []compile.Compiled{got, full} {
				st, ok, err := c.DecodeStep(n.Step.ID)
				if err != nil || !ok || !reflect.DeepEqual(st, n.Step) {
					t.Errorf("%s: DecodeStep(%s) = %+v, %v, %v; want %+v", e.Compiled.ID, n.Step.ID, st, ok, err, n.Step)
				}
			}
		})
		if _, ok, err := got.DecodeStep("no-such-step"); ok || err != nil {
			t.Errorf("%s: DecodeStep of an unknown step = %v, %v", e.Compiled.ID, ok, err)
		}
		cs, err := got.DecodeContracts()
		if err != nil || !reflect.DeepEqual(cs, full.Contracts) {
			t.Errorf("%s: DecodeContracts = %v, %v; want %v", e.Compiled.ID, cs, err, full.Contracts)
		}
		contracts += len(cs)
	}
	if contracts == 0 {
		t.Fatal("no bundled workflow has a contract: DecodeContracts goes untested")
	}
}

func TestRestoreOutlineRefusesWhatIsNotAWorkflow(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"steps":{}}`, `{"steps":[{"step":{"id":1}}]}`, `{"steps":[{"loop":{"spec":{"maxIterations":"x"}}}]}`, `{"id":"a"`} {
		if _, err := compile.RestoreOutline([]byte(in), engine.WorkflowHash{}); err == nil {
			t.Errorf("RestoreOutline(%s) = nil error", in)
		}
	}
}

// BenchmarkRestore reads a 1,000-step pinned workflow whole and as its
// outline: what a run page's first view pays for its pin.
func BenchmarkRestore(b *testing.B) {
	c := executetest.Long(b, 1000).Catalog("").All()[0].Compiled
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if _, err := compile.Restore(c.Canonical, c.Hash); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("outline", func(b *testing.B) {
		for b.Loop() {
			if _, err := compile.RestoreOutline(c.Canonical, c.Hash); err != nil {
				b.Fatal(err)
			}
		}
	})
}
