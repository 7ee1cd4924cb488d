package lanes_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fixture is a built session, the run to lay out and the ids that unfold
// its folded rows.
type fixture struct {
	g      *project.Graph
	run    engine.RunID
	expand []engine.NodeID
}

// linear: a → b → c → d → complete.
func linear(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	s.advance(r, s.chain(r, root, 3, "s"), done)
	return fixture{s.graph(), r, nil}
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
	return fixture{s.graph(), r, []engine.NodeID{c}}
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
	return fixture{s.graph(), r, []engine.NodeID{f1, g1}}
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
	return fixture{s.graph(), r, []engine.NodeID{first}}
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
	return fixture{s.graph(), r, nil}
}

func (f fixture) build(tb testing.TB, expand ...engine.NodeID) lanes.Layout {
	tb.Helper()
	set := map[engine.NodeID]bool{}
	for _, id := range expand {
		set[id] = true
	}
	l, err := lanes.Build(f.g, f.run, set)
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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.fixture(t)
			var expand []engine.NodeID
			if c.expanded {
				expand = f.expand
			}
			l := f.build(t, expand...)
			golden(t, c.name+".txt", render(l)+"\n"+l.SVG())
		})
	}
}

// render writes the rows as text: a picture of the lanes ('o' a node,
// '@' the tip, '#' a stub, 'x' a loop fold, '|' a lane passing by), then
// the row's fields.
func render(l lanes.Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s tip=%s lanes=%d rows=%d\n", l.Run, l.Tip, l.Lanes, len(l.Rows))
	for i, r := range l.Rows {
		pic := bytes.Repeat([]byte{' '}, l.Lanes)
		for _, lane := range r.Through {
			pic[lane] = '|'
		}
		pic[r.Lane] = map[lanes.Kind]byte{lanes.NodeRow: 'o', lanes.StubRow: '#', lanes.LoopRow: 'x'}[r.Kind]
		if r.Tip {
			pic[r.Lane] = '@'
		}
		fmt.Fprintf(&b, "%4d %s  %-9s %-9s lane=%d", i, pic, r.Node, r.Kind, r.Lane)
		if r.Last != r.Node {
			fmt.Fprintf(&b, " last=%s", r.Last)
		}
		fmt.Fprintf(&b, " step=%q parent=%s", r.Step, id(r.Parent))
		if r.ForkedFrom != 0 {
			fmt.Fprintf(&b, " forked-from=%s", r.ForkedFrom)
		}
		if r.ForksOf != 0 {
			fmt.Fprintf(&b, " forks=%d", r.ForksOf)
		}
		if r.Tip {
			b.WriteString(" tip")
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

func id(n engine.NodeID) string {
	if n == 0 {
		return "-"
	}
	return n.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./console/lanes -update)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Fatalf("%s differs; run go test ./console/lanes -update and review:\n%s", path, got)
	}
}
