package lanes_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"strings"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
)

// farFork: the agent went sixty steps, then a rewound chat forked the
// third node and went three steps, then the first chat went on: the
// branch is made long after its fork point and is not the current one.
func farFork(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	n3 := s.chain(r, root, 2, "s")
	n := s.chain(r, n3, 58, "t")
	b := s.chain(r, n3, 3, "b")
	s.advance(r, s.advance(r, n, at(99, "u")), done)
	return s.fixture(r, []engine.NodeID{b - 2})
}

// siblings: three branches off one node, of different lengths and ends:
// one complete, one blocked, one open; the current one goes on.
func siblings(tb testing.TB) fixture {
	s := newSession(tb)
	r, root := s.start(at(0, "a"))
	b := s.advance(r, root, at(1, "b"))
	s.advance(r, s.chain(r, b, 2, "c"), done)
	blocked := s.chain(r, b, 1, "d")
	s.Block(r, blocked, 0)
	open := s.chain(r, b, 3, "e")
	s.advance(r, s.advance(r, b, at(2, "f")), at(3, "g"))
	return s.fixture(r, []engine.NodeID{open - 2})
}

// Between a node's row and the row of any child, only rows of the node's
// own descendants: the branches that leave it, each whole. A branch is
// drawn beside its fork point, never dozens of rows away.
func TestBranchesAreDrawnBesideTheirForkPoint(t *testing.T) {
	for name, build := range map[string]func(testing.TB) fixture{"far fork": farFork, "siblings": siblings, "fork of fork": forkOfFork,
		"loop with a fork": loop3Fork, "checkpoints": checkpoints, "1000": big} {
		t.Run(name, func(t *testing.T) {
			f := build(t)
			for _, expand := range [][]engine.NodeID{nil, f.expand, allNodes(f)} {
				l := f.build(t, expand...)
				rowOf := map[engine.NodeID]int{}
				for i, r := range l.Rows {
					rowOf[r.Node], rowOf[r.Last] = i, i
				}
				for i, r := range l.Rows {
					p, ok := rowOf[r.Parent]
					if !ok || r.Parent == 0 {
						continue
					}
					for k := p + 1; k < i; k++ {
						if !descends(t, f.g, l.Rows[k].Node, l.Rows[p].Last) {
							t.Fatalf("row %d (%s) sits between %s (row %d) and its child %s (row %d)\n%s", k, l.Rows[k].Node, r.Parent, p, r.Node, i, render(l))
						}
					}
				}
			}
		})
	}
}

// descends says n is below top in the run's tree.
func descends(t *testing.T, g *project.Graph, n, top engine.NodeID) bool {
	for n != 0 {
		node, err := g.Node(n)
		if err != nil {
			t.Fatal(err)
		}
		if node.Parent == top {
			return true
		}
		n = node.Parent
	}
	return false
}

func allNodes(f fixture) []engine.NodeID {
	var out []engine.NodeID
	for _, n := range f.g.Nodes(f.run) {
		out = append(out, n.ID)
	}
	return out
}

// Stubs of sibling branches say what differs between them: their letter,
// length and state; each branch is read at its own end, and the first
// path, left behind, folds under the row the current one left it at.
func TestSiblingStubsDiffer(t *testing.T) {
	f := siblings(t)
	l := f.build(t)
	type told struct {
		label, first, status, pending string
		rows                          int
	}
	var got []told
	for _, r := range l.Rows {
		if r.Kind == lanes.StubRow {
			br := l.Branches[r.Branch]
			if br.End != r.Last && br.Status != project.BranchComplete || !r.Ends {
				t.Fatalf("stub %+v stands for branch %+v", r, br)
			}
			got = append(got, told{br.Label, string(l.Rows[indexOf(l, r.Node)].Step), string(br.Status), string(br.Pending), r.Folded})
		}
	}
	want := []told{{"A", "c2", "complete", "", 2}, {"B", "d1", "blocked", "d1", 1}, {"C", "e3", "left_behind", "e3", 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stubs = %+v; want %+v\n%s", got, want, render(l))
	}
	for _, br := range l.Branches[1:] {
		if br.From != l.Branches[0].Top+1 || br.After != "b" {
			t.Errorf("branch %s leaves %s after %q; want node_2 after b", br.Label, br.From, br.After)
		}
	}
	if cur := l.Branches[3]; cur.Status != project.BranchCurrent || cur.Origin != project.OriginRewound {
		t.Errorf("branch D %+v; want the current branch, a rewound chat's", cur)
	}
}

func indexOf(l lanes.Layout, n engine.NodeID) int {
	for i, r := range l.Rows {
		if r.Node == n {
			return i
		}
	}
	return -1
}

// Revealing a node unfolds what hides it, and nothing else: the node has a
// row of its own, and the layout is Build's with the ids Reveal added.
func TestRevealUnfoldsTheBranchHoldingANode(t *testing.T) {
	for name, build := range map[string]func(testing.TB) fixture{"fork of fork": forkOfFork, "loop with a fork": loop3Fork,
		"nested loops": nested, "checkpoints": checkpoints, "siblings": siblings, "far fork": farFork} {
		t.Run(name, func(t *testing.T) {
			f := build(t)
			folded := f.build(t)
			shown := map[engine.NodeID]bool{}
			for _, r := range folded.Rows {
				if r.Kind == lanes.NodeRow {
					shown[r.Node] = true
				}
			}
			hidden := 0
			for _, n := range f.g.Nodes(f.run) {
				row, ok := f.p.Row(n.ID)
				if !ok {
					continue // where the run completed: no step pends there
				}
				l, added, err := lanes.Reveal(f.p, nil, n.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !hasRow(l, row.Node) {
					t.Fatalf("%s has no row of its own after Reveal (added %v)\n%s", n.ID, added, render(l))
				}
				if shown[row.Node] != (len(added) == 0) {
					t.Fatalf("%s shown folded: %v, yet Reveal added %v", n.ID, shown[row.Node], added)
				}
				if !shown[row.Node] {
					hidden++
				}
				if want := f.build(t, added...); !reflect.DeepEqual(l, want) {
					t.Fatalf("Reveal(%s) differs from Build with %v", n.ID, added)
				}
			}
			if hidden == 0 {
				t.Fatal("no folded node to reveal")
			}
		})
	}
}

func hasRow(l lanes.Layout, id engine.NodeID) bool {
	for _, r := range l.Rows {
		if r.Kind == lanes.NodeRow && r.Node == id {
			return true
		}
	}
	return false
}

// Expanding every node of the run shows every row of its projection.
func TestExpandingEveryNodeShowsThemAll(t *testing.T) {
	for name, build := range map[string]func(testing.TB) fixture{"siblings": siblings, "fork of fork": forkOfFork, "nested loops": nested, "1000": big} {
		t.Run(name, func(t *testing.T) {
			f := build(t)
			l := f.build(t, allNodes(f)...)
			for _, r := range l.Rows {
				if r.Kind != lanes.NodeRow {
					t.Fatalf("row %s is a %s\n%s", r.Node, r.Kind, render(l))
				}
			}
			if len(l.Rows) != len(f.p.Rows) {
				t.Fatalf("%d rows for %d rows of the projection", len(l.Rows), len(f.p.Rows))
			}
		})
	}
}

func TestLetters(t *testing.T) {
	for i, want := range map[int]string{0: "A", 1: "B", 25: "Z", 26: "AA", 27: "AB", 51: "AZ", 52: "BA", 701: "ZZ", 702: "AAA"} {
		if got := lanes.Letter(i); got != want {
			t.Errorf("Letter(%d) = %q; want %q", i, got, want)
		}
	}
}

// Edges into each branch have their own ink: lanes never differ by colour
// alone, and the current branch is drawn solid.
func TestBranchesHaveTheirOwnDash(t *testing.T) {
	f := siblings(t)
	svg := f.build(t, allNodes(f)...).SVG()
	dashes := map[string]bool{}
	for b := 0; b < 4; b++ {
		var dash string
		for _, line := range splitLines(svg) {
			if contains(line, fmt.Sprintf(`class="edge b%d`, b)) {
				dash = between(line, `stroke-dasharray="`, `"`)
				break
			}
		}
		if (b == 0) != (dash == "") || dashes[dash] {
			t.Errorf("branch %d dashed %q (seen %v)\n%s", b, dash, dashes, svg)
		}
		dashes[dash] = true
	}
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
func contains(s, sub string) bool  { return strings.Contains(s, sub) }
func between(s, open, close string) string {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, close)
	return v
}

// The layouts a reader gets by opening a node deep in a folded branch of a
// branch, and by expanding all, pinned as text and drawing.
func TestGoldenRevealAndExpandAll(t *testing.T) {
	ff := forkOfFork(t)
	l, added, err := lanes.Reveal(ff.p, nil, 9) // node_9: on the branch off the folded branch
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "fork_of_fork_reveal.txt"), []byte(fmt.Sprintf("added %v\n", added)+render(l)+"\n"+l.SVG()))
	sib := siblings(t)
	all := sib.build(t, allNodes(sib)...)
	golden.Check(t, filepath.Join("testdata", "siblings_all.txt"), []byte(render(all)+"\n"+all.SVG()))
}
