package lanes_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// fixture is a built session's run, projected, and the ids that unfold
// its folded rows.
type fixture struct {
	p      *project.Projection
	g      *project.Graph
	run    engine.RunID
	expand []engine.NodeID
}

// fixture projects run r of s.
func (s *session) fixture(r engine.RunID, expand []engine.NodeID) fixture {
	f, err := project.FoldAll(projecttest.Session, s.Events, s.Snapshot)
	if err != nil {
		s.TB().Fatal(err)
	}
	p, err := f.Projection(r)
	if err != nil {
		s.TB().Fatal(err)
	}
	return fixture{p: p, g: f.Graph, run: r, expand: expand}
}

// linear: a → b → c → d → complete.
func linear(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	s.advance(r, s.chain(r, root, 3, "s"), done)
	return s.fixture(r, nil)
}

// oneFork: the agent went a → b → c → d, then forked from b and went on
// from there to completion; the old c → d folds under b.
func oneFork(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	b := s.advance(r, root, at(1, "b"))
	c := s.advance(r, b, at(2, "c"))
	s.advance(r, c, at(3, "d"))
	c2 := s.advance(r, b, at(2, "c"))
	s.advance(r, s.advance(r, c2, at(3, "d")), done)
	return s.fixture(r, []engine.NodeID{c})
}

// forkOfFork: a branch forked from the third node, and a branch forked
// from that branch; the branch's own path goes on after its fork, and the
// run's preferred path after both.
func forkOfFork(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	n3 := s.chain(r, root, 2, "s")
	n5 := s.chain(r, n3, 2, "t")
	f1 := s.advance(r, n3, at(3, "t1"))
	f2 := s.advance(r, f1, at(4, "t2"))
	f3 := s.advance(r, f2, at(5, "t3"))
	g1 := s.advance(r, f2, at(5, "t3"))
	s.advance(r, g1, done)
	s.advance(r, f3, at(6, "t4"))
	s.advance(r, n5, at(5, "u"))
	return s.fixture(r, []engine.NodeID{f1, g1})
}

// loop: a, five iterations of the loop's body, then c and completion.
func loop(tb testing.TB) fixture {
	s := newSession(tb)
	r, n := s.start(at(0, "a"))
	var first engine.NodeID
	for i := range 5 {
		n = s.advance(r, n, iteration(1, "body", i))
		if i == 0 {
			first = n
		}
	}
	s.advance(r, s.advance(r, n, at(2, "c")), done)
	return s.fixture(r, []engine.NodeID{first})
}

// big: 1,000 nodes; every 50th step of the preferred path forks a branch
// of three nodes off the node before it, and every 100 steps the path
// runs five iterations of a loop.
func big(tb testing.TB) fixture {
	s := newSession(tb)
	r, n := s.start(at(0, "a"))
	for i, count := 1, 1; count < 1000; i++ {
		prev := n
		pos := at(i, workflow.StepID(fmt.Sprintf("s%d", i)))
		if k := i % 100; k >= 10 && k < 15 {
			pos = iteration(1, "body", k-10)
		}
		n = s.advance(r, prev, pos)
		count++
		if i%50 == 0 && count+3 <= 1000 {
			s.chain(r, prev, 3, "b")
			count += 3
		}
	}
	return s.fixture(r, nil)
}

// loop3: a, twelve iterations of a loop whose body is plan → edit →
// test, then report and completion; the fold opens at the first plan.
func loop3(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	n, starts := s.iterate(r, root, topLoop, pet, 0, 12)
	s.advance(r, s.advance(r, n, at(2, "report")), done)
	return s.fixture(r, starts[:1])
}

// loop3Fork: ten iterations of plan → edit → test. The agent first went
// on from iteration 5's edit to iteration 9's plan, then forked from
// that edit and ran the loop to its end; the old branch, itself four
// iterations long, folds under the edit.
func loop3Fork(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	n, _ := s.iterate(r, root, topLoop, pet, 0, 4)
	edit := s.advance(r, s.advance(r, n, inside("plan", frame(1, 0), frame(0, 4))), inside("edit", frame(1, 0), frame(1, 4)))
	old := s.advance(r, edit, inside("test", frame(1, 0), frame(2, 4)))
	n, _ = s.iterate(r, old, topLoop, pet, 5, 8)
	s.advance(r, n, inside("plan", frame(1, 0), frame(0, 8)))
	n = s.advance(r, edit, inside("test", frame(1, 0), frame(2, 4)))
	n, _ = s.iterate(r, n, topLoop, pet, 5, 10)
	s.advance(r, s.advance(r, n, at(2, "report")), done)
	return s.fixture(r, []engine.NodeID{old})
}

// nested: a loop whose body is an inner loop (body a → b) and then c.
// Its first three iterations run the inner loop twice each and repeat;
// the fourth runs it four times, the fifth once; then report and
// completion. The outer fold opens at its first a; the fourth
// iteration's inner fold stays folded then.
func nested(tb testing.TB) fixture {
	s := newSession(tb)
	r, n := s.start(at(0, "x"))
	var expand []engine.NodeID
	for o, inner := range []int{2, 2, 2, 4, 1} {
		var starts []engine.NodeID
		n, starts = s.iterate(r, n, []run.Frame{{Index: 1}, frame(0, o)}, []workflow.StepID{"a", "b"}, 0, inner)
		if o == 0 {
			expand = append(expand, starts[0])
		}
		n = s.advance(r, n, inside("c", frame(1, 0), frame(1, o)))
	}
	s.advance(r, s.advance(r, n, at(2, "report")), done)
	return s.fixture(r, expand)
}

// earlyExit: four iterations of plan → edit → test, then a fifth that
// leaves the loop after edit (test's condition was false), then report
// and completion.
func earlyExit(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	n, _ := s.iterate(r, root, topLoop, pet, 0, 4)
	n, _ = s.iterate(r, n, topLoop, pet[:2], 4, 5)
	s.advance(r, s.advance(r, n, at(2, "report")), done)
	return s.fixture(r, nil)
}

// checkpoints: notes recorded between steps. b is checkpointed and the
// agent goes on from the checkpoint; a loop of plan → edit runs four
// iterations with a checkpoint after the third edit, which splits the
// fold around it; d is checkpointed, then a rewound chat acknowledges d
// again (a fork: the checkpoint is left behind on its own branch), and
// the new e is checkpointed last: the run's tip is a checkpoint.
func checkpoints(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	b := s.advance(r, root, at(1, "b"))
	n, _ := s.iterate(r, s.Checkpoint(r, b, "looked around"), []run.Frame{{Index: 2}}, pet[:2], 0, 3)
	n = s.Checkpoint(r, n, "edited thrice")
	n, _ = s.iterate(r, n, []run.Frame{{Index: 2}}, pet[:2], 3, 4)
	d := s.advance(r, n, at(3, "d"))
	left := s.Checkpoint(r, d, "a recap the chat lost")
	s.Checkpoint(r, s.advance(r, d, at(4, "e")), "the latest recap")
	return s.fixture(r, []engine.NodeID{left})
}

// bigLoop3: 1,000 nodes, a then 333 iterations of plan → edit → test;
// the run waits at the last test.
func bigLoop3(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	_, starts := s.iterate(r, root, topLoop, pet, 0, 333)
	return s.fixture(r, starts[:1])
}

func (f fixture) build(tb testing.TB, expand ...engine.NodeID) lanes.Layout {
	tb.Helper()
	set := map[engine.NodeID]bool{}
	for _, id := range expand {
		set[id] = true
	}
	l, err := lanes.Build(f.p, set)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name     string
		fixture  func(testing.TB) fixture
		expanded bool
	}{
		{"linear", linear, false},
		{"fork_folded", oneFork, false},
		{"fork_expanded", oneFork, true},
		{"fork_of_fork_expanded", forkOfFork, true},
		{"loop_folded", loop, false},
		{"loop_expanded", loop, true},
		{"run1000_folded", big, false},
		{"loop3_folded", loop3, false},
		{"loop3_expanded", loop3, true},
		{"loop3_fork_folded", loop3Fork, false},
		{"loop3_fork_expanded", loop3Fork, true},
		{"loop3_nested_folded", nested, false},
		{"loop3_nested_expanded", nested, true},
		{"loop3_early_exit", earlyExit, false},
		{"run1000_loop3_folded", bigLoop3, false},
		{"checkpoints_folded", checkpoints, false},
		{"checkpoints_expanded", checkpoints, true},
		{"far_fork_expanded", farFork, true},
		{"siblings_folded", siblings, false},
		{"siblings_expanded", siblings, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.fixture(t)
			var expand []engine.NodeID
			if c.expanded {
				expand = f.expand
			}
			l := f.build(t, expand...)
			golden.Check(t, filepath.Join("testdata", c.name+".txt"), []byte(render(l)+"\n"+l.SVG()))
		})
	}
}

// render writes the rows as text: a picture of the lanes ('o' a row,
// '^' a row with checkpoints, '@' the tip's row, '#' a stub, 'x' a loop
// fold, '|' a lane passing by), then the row's fields.
func render(l lanes.Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s tip=%s lanes=%d rows=%d\n", l.Run, l.Tip, l.Lanes, len(l.Rows))
	for _, br := range l.Branches {
		fmt.Fprintf(&b, "branch %s: %s..%s rows=%d from=%s after=%q first=%q origin=%s %s", br.Label, br.Top, br.End, br.Rows, id(br.From), br.After, br.First, br.Origin, br.Status)
		if br.Pending != "" {
			fmt.Fprintf(&b, " at %q", br.Pending)
		}
		b.WriteString("\n")
	}
	for i, r := range l.Rows {
		pic := bytes.Repeat([]byte{' '}, l.Lanes)
		for _, lane := range r.Through {
			pic[lane] = '|'
		}
		pic[r.Lane] = map[lanes.Kind]byte{lanes.NodeRow: 'o', lanes.StubRow: '#', lanes.LoopRow: 'x'}[r.Kind]
		if r.Checkpoint() {
			pic[r.Lane] = '^'
		}
		if r.Tip {
			pic[r.Lane] = '@'
		}
		fmt.Fprintf(&b, "%4d %s  %-9s %-9s lane=%d", i, pic, r.Node, r.Kind, r.Lane)
		if r.Last != r.Node {
			fmt.Fprintf(&b, " last=%s", r.Last)
		}
		fmt.Fprintf(&b, " branch=%s step=%q parent=%s", l.Branches[r.Branch].Label, r.Step, id(r.Parent))
		if r.Ends {
			b.WriteString(" ends")
		}
		if r.Starts {
			b.WriteString(" starts")
		}
		if r.Forks != 0 {
			fmt.Fprintf(&b, " forks=%d", r.Forks)
		}
		if r.Tip {
			b.WriteString(" tip")
		}
		if r.TipCheckpoint {
			b.WriteString(" tip-checkpoint")
		}
		if r.Complete {
			b.WriteString(" complete")
		}
		if r.Checkpoints != 0 {
			fmt.Fprintf(&b, " checkpoints=%d", r.Checkpoints)
		}
		if r.Kind == lanes.LoopRow {
			fmt.Fprintf(&b, " iterations=%d from=%d depth=%d body=%s", r.Iterations, r.FirstIteration, r.LoopDepth, strings.Join(steps(r.Body), ","))
		}
		if r.Summary() != "" {
			fmt.Fprintf(&b, " %q", r.Summary())
		}
		var out []string
		for _, o := range r.Out {
			out = append(out, fmt.Sprintf("%d/%d", o.Row, o.Lane))
		}
		if len(out) > 0 {
			fmt.Fprintf(&b, " out=%s", strings.Join(out, ","))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func steps(ids []workflow.StepID) []string {
	out := make([]string, len(ids))
	for i, s := range ids {
		out[i] = string(s)
	}
	return out
}

func id(n engine.NodeID) string {
	if n == 0 {
		return "-"
	}
	return n.String()
}
