package lanes_test

import (
	"errors"
	"fmt"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// A lane is free again below the last row of the branch that used it:
// each branch is drawn whole right below the row it left, so branches off
// the current one take turns on lane 1 and only a branch off a branch
// needs another; lane 0 is the tip's alone. (A branch's letter is the
// order it was made in: B, C, D, then E off D, then F.)
func TestLanesAreReused(t *testing.T) {
	s := newSession(t)
	r, root := s.start(at(0, "a"))
	n2 := s.advance(r, root, at(1, "b"))
	n3 := s.advance(r, n2, at(2, "c"))
	a1 := s.advance(r, n2, at(2, "c")) // branch B
	a2 := s.advance(r, a1, at(3, "d"))
	n4 := s.advance(r, n3, at(3, "d"))
	n5 := s.advance(r, n4, at(4, "e"))
	b1 := s.advance(r, n4, at(4, "e")) // branch C
	n6 := s.advance(r, n5, at(5, "f"))
	c1 := s.advance(r, n5, at(5, "f")) // branch D, made while C was open
	b2 := s.advance(r, b1, at(5, "f"))
	c2 := s.advance(r, c1, at(6, "g")) // D goes on
	e1 := s.advance(r, c1, at(6, "g")) // branch E, off D
	n7 := s.advance(r, n6, at(6, "g"))
	n8 := s.advance(r, n7, at(7, "h"))
	d1 := s.advance(r, n7, at(7, "h")) // branch F
	s.advance(r, n8, done)
	f := s.fixture(r, nil)

	cases := []struct {
		name   string
		expand []engine.NodeID
		want   map[engine.NodeID]int
		lanes  int
	}{
		{"all expanded: E beside D", []engine.NodeID{a1, b1, c1, d1, e1},
			map[engine.NodeID]int{root: 0, n3: 0, n7: 0, n8: 0, a1: 1, a2: 1, b1: 1, b2: 1, c1: 1, c2: 1, e1: 2, d1: 1}, 3},
		{"all folded: every stub on lane 1", nil,
			map[engine.NodeID]int{root: 0, n6: 0, n8: 0, a1: 1, b1: 1, c1: 1, d1: 1}, 2},
		{"D alone: E's stub beside it", []engine.NodeID{c1},
			map[engine.NodeID]int{b1: 1, c1: 1, c2: 1, e1: 2, d1: 1}, 3},
		{"C and F", []engine.NodeID{b1, d1},
			map[engine.NodeID]int{a1: 1, b1: 1, b2: 1, c1: 1, d1: 1}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := f.build(t, c.expand...)
			got := map[engine.NodeID]int{}
			for _, row := range l.Rows {
				got[row.Node] = row.Lane
			}
			for id, lane := range c.want {
				if g, ok := got[id]; !ok || g != lane {
					t.Errorf("%s on lane %d (shown: %v); want %d\n%s", id, g, ok, lane, render(l))
				}
			}
			if l.Lanes != c.lanes {
				t.Errorf("lanes = %d; want %d\n%s", l.Lanes, c.lanes, render(l))
			}
		})
	}
}

// Exactly one row is the tip: project.PreferredTip's node, on lane 0, and
// lane 0 holds the path from the root down to it and nothing else.
func TestTipIsMarkedOnLaneZero(t *testing.T) {
	cases := []struct {
		name  string
		build func(testing.TB) fixture
	}{
		{"linear", linear},
		{"the fork is preferred", oneFork},
		{"a fork of a fork", forkOfFork},
		{"the tip is a checkpoint", checkpoints},
		{"the old branch is preferred", func(tb testing.TB) fixture {
			s := newSession(tb)
			r, root := s.start(at(0, "a"))
			b := s.advance(r, root, at(1, "b"))
			c := s.advance(r, b, at(2, "c"))
			s.advance(r, b, at(2, "c"))
			s.advance(r, c, at(3, "d"))
			return s.fixture(r, nil)
		}},
		{"the tip is inside a loop", func(tb testing.TB) fixture {
			s := newSession(tb)
			r, n := s.start(at(0, "a"))
			for i := range 4 {
				n = s.advance(r, n, iteration(1, "body", i))
			}
			return s.fixture(r, nil)
		}},
		{"a single node", func(tb testing.TB) fixture {
			s := newSession(tb)
			r, _ := s.start(at(0, "a"))
			return s.fixture(r, nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.build(t)
			for _, expand := range [][]engine.NodeID{nil, f.expand} {
				l := f.build(t, expand...)
				checkTip(t, f, l)
			}
		})
	}
}

func checkTip(t *testing.T, f fixture, l lanes.Layout) {
	t.Helper()
	run, err := f.g.Run(f.run)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := f.g.Node(run.Root)
	tip, err := project.PreferredTip(f.g, root)
	if err != nil {
		t.Fatal(err)
	}
	path := map[engine.NodeID]bool{}
	for _, r := range f.p.Path(tip.ID) {
		path[r.Node] = true
	}
	want := f.p.Path(tip.ID)[len(f.p.Path(tip.ID))-1].Node
	tips := 0
	for _, row := range l.Rows {
		if row.Tip {
			tips++
			if tp, _ := f.p.Part(tip.ID); row.Node != want || row.Lane != 0 || row.Kind != lanes.NodeRow || row.TipCheckpoint != tp.Checkpoint {
				t.Errorf("tip row = %+v; want %s on lane 0", row, want)
			}
		}
		if on := path[row.Node] && path[row.Last]; on != (row.Lane == 0) {
			t.Errorf("row %s (last %s) on lane %d; on the path to the tip: %v\n%s", row.Node, row.Last, row.Lane, on, render(l))
		}
	}
	if tips != 1 || l.Tip != tip.ID {
		t.Errorf("%d tip rows, layout tip %s; want one, %s\n%s", tips, l.Tip, tip.ID, render(l))
	}
}

// An id that names no folded row on show changes nothing.
func TestExpandIgnoresWhatItCannotUnfold(t *testing.T) {
	ff, lp, l3, ns := forkOfFork(t), loop(t), loop3(t), nested(t)
	cases := []struct {
		name   string
		f      fixture
		expand []engine.NodeID
	}{
		{"an unknown node", ff, []engine.NodeID{999}},
		{"a branch inside a folded branch", ff, []engine.NodeID{ff.expand[1]}},
		{"a node with its own row", ff, []engine.NodeID{1, 3}},
		{"an iteration that is not the fold's first", lp, []engine.NodeID{lp.expand[0] + 1}},
		{"a later step of a multi-step fold's first iteration", l3, []engine.NodeID{l3.expand[0] + 1, l3.expand[0] + 2}},
		{"a multi-step fold's second iteration", l3, []engine.NodeID{l3.expand[0] + 3}},
		{"an inner loop's iteration inside an outer fold", ns, []engine.NodeID{ns.expand[0] + 2, ns.expand[0] + 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, got := c.f.build(t), c.f.build(t, c.expand...)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("expand %v changed the layout:\n%s\nwant:\n%s", c.expand, render(got), render(want))
			}
		})
	}
}

// The same log gives the same rows and the same bytes, however the maps
// inside the graph happen to iterate.
func TestLayoutIsDeterministic(t *testing.T) {
	for name, build := range map[string]func(testing.TB) fixture{"fork of fork": forkOfFork, "loop": loop, "1000": big,
		"loop with a fork": loop3Fork, "nested loops": nested, "1000 of a 3-step loop": bigLoop3, "checkpoints": checkpoints} {
		t.Run(name, func(t *testing.T) {
			f1, f2 := build(t), build(t)
			for _, expand := range [][]engine.NodeID{nil, f1.expand} {
				a, b := f1.build(t, expand...), f2.build(t, expand...)
				if !reflect.DeepEqual(a, b) {
					t.Fatal("two layouts of the same log differ")
				}
				if sa, sb := a.SVG(), b.SVG(); sa != sb || sa != a.SVG() {
					t.Fatal("the SVG of the same layout differs")
				}
			}
		})
	}
}

// A run without rows, or whose rows name a row the run does not hold, is
// an error, never a loop.
func TestBuildReportsWhatItCannotRead(t *testing.T) {
	cases := []struct {
		name  string
		p     *project.Projection
		found bool // the error wraps engine.ErrNotFound
	}{
		{"a run with no rows", project.Assemble(project.RunHead{Run: 1}, project.RunOverview{ID: 1}, nil), true},
		{"a row made from a row the run lacks", project.Assemble(project.RunHead{Run: 1, Root: 1}, project.RunOverview{ID: 1, Tip: 2},
			[]project.Part{{Run: 1, Node: 1, Step: "a"}, {Run: 1, Node: 2, From: 7, Step: "b"}}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := lanes.Build(c.p, nil)
			if err == nil || errors.Is(err, engine.ErrNotFound) != c.found || !strings.HasPrefix(err.Error(), "lanes: ") {
				t.Fatalf("Build = %+v, %v; want a lanes: error", l, err)
			}
		})
	}
}

// The drawing is decorative and inert: hidden from assistive technology,
// no script, handlers or style (presentation attributes only), one mark
// per row with its own shape.
func TestSVGIsDecorative(t *testing.T) {
	l := big(t).build(t)
	svg := l.SVG()
	if !strings.HasPrefix(svg, fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" class="lanes" width="%d" height="%d" aria-hidden="true" focusable="false">`, l.Lanes*lanes.LaneWidth, len(l.Rows)*lanes.RowHeight)) {
		t.Fatalf("svg opens with %.120s", svg)
	}
	if bad := regexp.MustCompile(`(?i)<script|style=|<style|\son\w+=|href|<title|<text`).FindString(svg); bad != "" {
		t.Fatalf("svg holds %q", bad)
	}
	stubs := 0
	for _, r := range l.Rows {
		if r.Kind == lanes.StubRow {
			stubs++
		}
	}
	count := func(s string) int { return strings.Count(svg, s) }
	marks := count("<circle ") + count(`<rect class="stub"`) + count(`<path class="tip"`) + count(`<path class="checkpoint"`)
	if marks != len(l.Rows) || count(`<path class="tip"`) != 1 || count(`<rect class="stub"`) != stubs || stubs == 0 {
		t.Fatalf("%d marks for %d rows, %d stub squares for %d stubs, %d tips", marks, len(l.Rows), count("<rect"), stubs, count(`class="tip"`))
	}
}

// A row where checkpoints were taken has its own shape in the drawing: a
// triangle (a hollow diamond when the tip is one of its checkpoints);
// every other mark keeps its shape.
func TestCheckpointsHaveTheirOwnShape(t *testing.T) {
	f := checkpoints(t)
	for _, expand := range [][]engine.NodeID{nil, f.expand} {
		l := f.build(t, expand...)
		svg := l.SVG()
		count := func(s string) int { return strings.Count(svg, s) }
		var marks, tips, stubs int
		for _, r := range l.Rows {
			switch {
			case r.TipCheckpoint:
				tips++
			case r.Checkpoint() && !r.Tip:
				marks++
			case r.Kind == lanes.StubRow:
				stubs++
			}
		}
		if count(`<path class="checkpoint"`) != marks || count(`<path class="tip checkpoint"`) != 1 || tips != 1 || marks < 2 {
			t.Errorf("expand %v: %d triangles for %d rows with checkpoints, %d hollow tips\n%s", expand, count(`<path class="checkpoint"`), marks, count(`class="tip checkpoint"`), render(l))
		}
		if count("<circle ")+count(`<rect class="stub"`)+count(`<path class="tip`)+count(`<path class="checkpoint"`) != len(l.Rows) || count(`<rect class="stub"`) != stubs {
			t.Errorf("expand %v: not one mark per row\n%s", expand, svg)
		}
	}
}

func TestSummaryCountsFoldedNodes(t *testing.T) {
	cases := []struct {
		row  lanes.Row
		want string
	}{
		{lanes.Row{Kind: lanes.StubRow, Folded: 1}, "1 step"},
		{lanes.Row{Kind: lanes.StubRow, Folded: 3}, "3 steps"},
		{lanes.Row{Kind: lanes.LoopRow, Folded: 5, Iterations: 5, Body: []workflow.StepID{"body"}}, "×5 iterations of body"},
		{lanes.Row{Kind: lanes.LoopRow, Folded: 36, Iterations: 12, Body: []workflow.StepID{"plan", "edit", "test"}},
			"×12 iterations of plan → edit → test (36 steps)"},
		{lanes.Row{Kind: lanes.LoopRow, Folded: 20, Iterations: 4, Body: []workflow.StepID{"a", "b", "c", "d", "e"}},
			"×4 iterations of a → b → c → … (20 steps)"},
		{lanes.Row{Kind: lanes.LoopRow, Folded: 16, Iterations: 4, Body: []workflow.StepID{"a", "b", "c", "d"}},
			"×4 iterations of a → b → c → d (16 steps)"},
		{lanes.Row{Kind: lanes.StubRow, Folded: 1, Checkpoints: 1}, "1 step and 1 checkpoint"},
		{lanes.Row{Kind: lanes.StubRow, Folded: 3, Checkpoints: 2}, "3 steps and 2 checkpoints"},
		{lanes.Row{Kind: lanes.NodeRow}, ""},
		{lanes.Row{Kind: lanes.NodeRow, Checkpoints: 2}, ""},
	}
	for _, c := range cases {
		if got := c.row.Summary(); got != c.want {
			t.Errorf("%s of %d: Summary = %q; want %q", c.row.Kind, c.row.Folded, got, c.want)
		}
	}
}

// The layout is pure: no Console, store, server, web framework or I/O.
func TestImportsStayPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{
		"github.com/workrail/workrail/store", "github.com/workrail/workrail/server", "github.com/workrail/workrail/console/",
		"github.com/workrail/workrail/engine/execute", "go.etcd.io/bbolt", "github.com/go-chi/", "github.com/a-h/templ", "net/http", "os/exec",
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/workrail/workrail/console/lanes" {
			continue
		}
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) || dep == "github.com/workrail/workrail/console" {
				t.Errorf("lanes depends on %s", dep)
				break
			}
		}
	}
}

// Loop iterations fold by the loop and iteration the rows' cursors name,
// never by step names, and only whole iterations that repeat: the shape
// lists each row, 'o' a step, '^' a step with checkpoints, '@' the tip's
// (a run that completed has its tip on the row of its last step), '#' a
// stub, 'xN' a fold of N iterations.
func TestLoopFoldsWholeRepeatedIterations(t *testing.T) {
	pe := pet[:2]
	loop2 := []run.Frame{{Index: 2}}
	cases := []struct {
		name string
		run  func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID
		open bool // the run waits at its last node instead of completing
		want string
	}{
		{"two loops with the same steps fold apart", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pe, 0, 3)
			n, _ = s.iterate(r, n, loop2, pe, 0, 3)
			return s.advance(r, n, at(3, "report"))
		}, false, "o x3 x3 @"},
		{"the same steps outside a loop never fold", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			for i := 1; i <= 6; i++ {
				n = s.advance(r, n, at(i, pe[i%2]))
			}
			return n
		}, false, "o o o o o o @"},
		{"iterations are told apart by their number", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pe, 0, 1)
			n, _ = s.iterate(r, n, topLoop, pe[:1], 1, 3) // edit skipped twice: plan, plan
			n, _ = s.iterate(r, n, topLoop, pe, 3, 5)
			return s.advance(r, n, at(2, "report"))
		}, false, "o o o x2 x2 @"},
		{"one iteration does not fold", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pet, 0, 1)
			return s.advance(r, n, at(2, "report"))
		}, false, "o o o o @"},
		{"the tip's iteration keeps its rows", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pet, 0, 4)
			return n
		}, true, "o x3 o o @"},
		{"a partial last iteration keeps its rows", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pet, 0, 3)
			n, _ = s.iterate(r, n, topLoop, pe, 3, 4)
			return n
		}, false, "o x3 o @"},
		{"a fork at an iteration's first step splits the fold", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pet, 0, 2)
			plan := s.advance(r, n, inside("plan", frame(1, 0), frame(0, 2)))
			s.advance(r, plan, inside("edit", frame(1, 0), frame(1, 2)))
			n = s.advance(r, plan, inside("edit", frame(1, 0), frame(1, 2)))
			n = s.advance(r, n, inside("test", frame(1, 0), frame(2, 2)))
			n, _ = s.iterate(r, n, topLoop, pet, 3, 6)
			return s.advance(r, n, at(2, "report"))
		}, false, "o x2 o # o o x3 @"},
		{"iterations that differ fold apart", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pet, 0, 2)
			n, _ = s.iterate(r, n, topLoop, pe, 2, 5)
			n, _ = s.iterate(r, n, topLoop, pet, 5, 6)
			return s.advance(r, n, at(2, "report"))
		}, false, "o x2 x3 o o o @"},
		{"a checkpoint splits the fold around its iteration", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, topLoop, pet, 0, 3)
			n = s.advance(r, n, inside("plan", frame(1, 0), frame(0, 3)))
			n = s.Checkpoint(r, n, "planned")
			n = s.advance(r, n, inside("edit", frame(1, 0), frame(1, 3)))
			n = s.advance(r, n, inside("test", frame(1, 0), frame(2, 3)))
			n, _ = s.iterate(r, n, topLoop, pet, 4, 6)
			return s.advance(r, n, at(2, "report"))
		}, false, "o x3 ^ o o x2 @"},
		{"an inner loop folds inside an outer iteration that does not repeat", func(s *session, r engine.RunID, n engine.NodeID) engine.NodeID {
			n, _ = s.iterate(r, n, []run.Frame{{Index: 1}, frame(0, 0)}, pet, 0, 6)
			n = s.advance(r, n, inside("review", frame(1, 0), frame(1, 0)))
			return s.advance(r, n, at(2, "report"))
		}, false, "o x6 o @"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t)
			r, root := s.start(at(0, "a"))
			if n := c.run(s, r, root); !c.open {
				s.advance(r, n, done)
			}
			l := s.fixture(r, nil).build(t)
			if got := shape(l); got != c.want {
				t.Fatalf("rows %q; want %q\n%s", got, c.want, render(l))
			}
		})
	}
}

func shape(l lanes.Layout) string {
	var out []string
	for _, r := range l.Rows {
		switch {
		case r.Tip:
			out = append(out, "@")
		case r.Checkpoint():
			out = append(out, "^")
		case r.Kind == lanes.StubRow:
			out = append(out, "#")
		case r.Kind == lanes.LoopRow:
			out = append(out, "x"+strconv.Itoa(r.Iterations))
		default:
			out = append(out, "o")
		}
	}
	return strings.Join(out, " ")
}

// Expanding a loop fold lays out every node it stands for, in its place
// and in order, and changes no other row.
func TestExpandingALoopFoldShowsItsNodes(t *testing.T) {
	for name, build := range map[string]func(testing.TB) fixture{"one step": loop, "three steps": loop3,
		"with a fork": loop3Fork, "nested": nested, "early exit": earlyExit, "1000": big} {
		t.Run(name, func(t *testing.T) {
			f := build(t)
			folded := f.build(t)
			seen := 0
			for i, fold := range folded.Rows {
				if fold.Kind != lanes.LoopRow {
					continue
				}
				seen++
				l := f.build(t, fold.Node)
				if len(l.Rows) != len(folded.Rows)-1+fold.Folded {
					t.Fatalf("expanding %s: %d rows; want %d\n%s", fold.Node, len(l.Rows), len(folded.Rows)-1+fold.Folded, render(l))
				}
				for k, r := range l.Rows[i : i+fold.Folded] {
					want := fold.Parent
					if k > 0 {
						want = l.Rows[i+k-1].Node
					}
					if r.Kind != lanes.NodeRow || r.Parent != want || (k == 0 && r.Node != fold.Node) || (k == fold.Folded-1 && r.Node != fold.Last) {
						t.Fatalf("expanding %s: row %d is %+v\n%s", fold.Node, i+k, r, render(l))
					}
				}
				rest := slices.Concat(l.Rows[:i], l.Rows[i+fold.Folded:])
				for k, r := range slices.Concat(folded.Rows[:i], folded.Rows[i+1:]) {
					if r.Node != rest[k].Node || r.Kind != rest[k].Kind || r.Summary() != rest[k].Summary() {
						t.Fatalf("expanding %s changed row %s:\n%s", fold.Node, r.Node, render(l))
					}
				}
			}
			if seen == 0 {
				t.Fatal("no loop fold to expand")
			}
		})
	}
}
