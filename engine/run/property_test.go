package run_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// gen writes random canonical step lists: steps (some with conditions on
// the loop variables or context), and loops of every kind, nested up to
// three deep, each with a small maxIterations.
type gen struct {
	r  *rand.Rand
	id int
}

func (g *gen) list(depth int) string {
	n := 1 + g.r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		if depth < 3 && g.r.IntN(3) == 0 {
			parts[i] = g.loop(depth)
		} else {
			parts[i] = g.step()
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (g *gen) next(prefix string) string { g.id++; return fmt.Sprintf("%s%d", prefix, g.id) }

func (g *gen) step() string {
	conds := []string{``, `,"runCondition":{"var":"more","equals":true}`, `,"runCondition":{"var":"currentIteration","gte":2}`,
		`,"runCondition":{"var":"currentIndex","equals":0}`}
	return fmt.Sprintf(`{"id":%q,"title":"S","prompt":"p"%s}`, g.next("s"), conds[g.r.IntN(len(conds))])
}

func (g *gen) loop(depth int) string {
	max := 1 + g.r.IntN(4)
	body := g.list(depth + 1)
	var spec string
	switch g.r.IntN(5) {
	case 0:
		spec = fmt.Sprintf(`{"kind":"while","condition":{"var":"more","equals":true},"maxIterations":%d}`, max)
	case 1: // driven by its decision step only
		spec = fmt.Sprintf(`{"kind":"while","maxIterations":%d}`, max)
		body = body[:len(body)-1] + fmt.Sprintf(`,{"id":%q,"title":"D","prompt":"d","output":{"contractRef":"wr.contracts.loop_control"}}]`, g.next("d"))
	case 2:
		spec = fmt.Sprintf(`{"kind":"until","condition":{"var":"more","equals":false},"maxIterations":%d}`, max)
	case 3:
		spec = fmt.Sprintf(`{"kind":"for","count":%d,"maxIterations":%d}`, 1+g.r.IntN(5), max)
	default:
		spec = fmt.Sprintf(`{"kind":"forEach","over":"items","as":"it","maxIterations":%d}`, max)
	}
	run := ""
	if g.r.IntN(4) == 0 {
		run = `,"runCondition":{"var":"more","equals":true},`
	} else {
		run = ","
	}
	return fmt.Sprintf(`{"id":%q,"title":"L"%s"loop":%s,"body":%s}`, g.next("l"), run, spec, body)
}

// bound is the most moves a run of list can take: every loop at its
// maxIterations.
func bound(list []compile.Node) int {
	n := 0
	for _, x := range list {
		if x.Loop != nil {
			n += x.Loop.Spec.MaxIterations * bound(x.Loop.Body)
		} else {
			n++
		}
	}
	return n
}

// DT-055: over generated loop workflows and agents that change the
// context and ask loops to stop at random, every snapshot's cursor is a
// well-formed stack (it reaches its step, one frame per enclosing loop,
// each iteration below its loop's maxIterations), no loop exit exceeds
// maxIterations, and every advance moves the run: it completes within the
// bound of all loops at their maximum, never stalling.
func TestLoopProperties(t *testing.T) {
	for seed := uint64(1); seed <= 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 55))
		g := &gen{r: r}
		steps := g.list(0)
		c := canonical(t, "", steps)
		items := make([]any, r.IntN(4))
		for i := range items {
			items[i] = fmt.Sprint("item", i)
		}
		ctx := map[string]any{"more": r.IntN(2) == 0, "items": items}
		m, err := run.Start(c, ctx, workflow.Preferences{Autonomy: workflow.FullAutoNeverStop})
		if err != nil {
			t.Fatalf("seed %d: start: %v\n%s", seed, err, steps)
		}
		limit := bound(c.Steps)
		for moves := 0; ; moves++ {
			checkStack(t, seed, c, m, steps)
			if m.Snapshot.Position.Kind == run.Complete {
				break
			}
			if moves >= limit {
				t.Fatalf("seed %d: not complete after %d moves (bound %d)\n%s", seed, moves, limit, steps)
			}
			var send map[string]any
			if r.IntN(3) == 0 {
				send = map[string]any{"more": r.IntN(2) == 0}
			}
			before := m.Snapshot.Position
			m, err = run.Advance(c, m.Snapshot, send, r.IntN(4) == 0)
			if err != nil {
				t.Fatalf("seed %d: advance: %v", seed, err)
			}
			if reflect.DeepEqual(before, m.Snapshot.Position) {
				t.Fatalf("seed %d: an advance stalled at %+v\n%s", seed, before, steps)
			}
		}
	}
}

func checkStack(t *testing.T, seed uint64, c compile.Compiled, m run.Move, steps string) {
	t.Helper()
	for _, e := range m.LoopExits {
		l := loopByID(c.Steps, e.LoopID)
		if e.Iterations < 1 || e.Iterations > l.Spec.MaxIterations {
			t.Fatalf("seed %d: loop %s exited after %d iterations (maxIterations %d)\n%s", seed, e.LoopID, e.Iterations, l.Spec.MaxIterations, steps)
		}
	}
	s := m.Snapshot
	if err := run.Check(c, s); err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, steps)
	}
	if s.Position.Kind != run.Pending {
		return
	}
	p, ok := run.PendingStep(c, s)
	if !ok || p.Step.ID != s.Position.Step || len(p.Loops) != len(s.Position.Path)-1 {
		t.Fatalf("seed %d: cursor %+v does not match its loops %+v\n%s", seed, s.Position, p.Loops, steps)
	}
	for i, lp := range p.Loops {
		if lp.Iteration < 1 || lp.Iteration > lp.MaxIterations || s.Position.Path[i+1].Iteration != lp.Iteration-1 {
			t.Fatalf("seed %d: loop %s in iteration %d of %d\n%s", seed, lp.LoopID, lp.Iteration, lp.MaxIterations, steps)
		}
	}
}

func loopByID(list []compile.Node, id workflow.StepID) *compile.Loop {
	var found *compile.Loop
	compile.Walk(list, func(n compile.Node) {
		if n.Loop != nil && n.Loop.ID == id {
			found = n.Loop
		}
	})
	return found
}
