package project_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// generated is a random session log, built by moves a real session makes
// (advances, forks off old nodes and off forks, blocked attempts, notes on
// old nodes, gaps and their resolutions, several runs, completion) and a
// few only a hand-built log makes (a node linked long after it was
// created, activity on it before).
type generated struct {
	*projecttest.Log
	rng      *rand.Rand
	linked   map[engine.RunID][]engine.NodeID // reachable nodes of each run
	unlinked map[engine.NodeID]engine.RunID   // created, not linked yet
	attempts map[engine.NodeID]engine.Attempt
	gaps     []engine.EventID // every gap record, resolutions too
}

var someNotes = []string{"", "Did it.", "# Plan\n\nthen more", "\n\n- **Fixed** the *parser*\nsecond line", "   ", "`go test` passes"}

func generate(t *testing.T, seed uint64, events int) *generated {
	g := &generated{Log: projecttest.New(t), rng: rand.New(rand.NewPCG(seed, 7)), linked: map[engine.RunID][]engine.NodeID{},
		unlinked: map[engine.NodeID]engine.RunID{}, attempts: map[engine.NodeID]engine.Attempt{}}
	for len(g.Events) < events {
		g.move()
	}
	return g
}

// pos is a random position: mostly a pending step, sometimes complete.
func (g *generated) pos() run.Position {
	if g.rng.IntN(6) == 0 {
		return projecttest.Done
	}
	return projecttest.At(0, workflow.StepID(fmt.Sprintf("s%d", g.rng.IntN(5))))
}

// node picks a reachable node of a random run.
func (g *generated) node() (engine.RunID, engine.NodeID) {
	r := engine.RunID(1 + g.rng.IntN(len(g.linked)))
	ns := g.linked[r]
	// Favour recent nodes, as agents do, but fork off old ones too.
	if g.rng.IntN(3) > 0 {
		return r, ns[max(0, len(ns)-1-g.rng.IntN(3))]
	}
	return r, ns[g.rng.IntN(len(ns))]
}

func (g *generated) move() {
	if len(g.linked) == 0 || (len(g.linked) < 4 && g.rng.IntN(25) == 0) {
		r, root := g.StartWorkflow(engine.WorkflowID(fmt.Sprintf("wr.w%d", g.rng.IntN(2))), g.pos())
		g.linked[r] = []engine.NodeID{root}
		return
	}
	r, n := g.node()
	switch k := g.rng.IntN(20); {
	case k < 7:
		g.linked[r] = append(g.linked[r], g.Advance(r, n, g.attempts[n], g.pos()))
		g.attempts[n]++
	case k < 9:
		g.Block(r, n, g.attempts[n])
		g.attempts[n]++
	case k < 11:
		g.Output(r, n, "s", someNotes[g.rng.IntN(len(someNotes))])
	case k < 13:
		g.gaps = append(g.gaps, g.Add(r, n, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "assumed"}).ID)
	case k < 15:
		target := engine.EventID("evt_1_9999") // unknown
		if len(g.gaps) > 0 && g.rng.IntN(5) > 0 {
			target = g.gaps[g.rng.IntN(len(g.gaps))] // open, resolved, or itself a resolution
		}
		g.gaps = append(g.gaps, g.Add(r, n, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning,
			Summary: "resolved", ResolvesGapID: target}).ID)
	case k < 16:
		g.Add(r, n, &event.CapabilityObservedData{Capability: "delegation", Status: event.CapabilityAvailable, Provenance: event.ProbeStep})
	case k < 17:
		g.Add(0, 0, &event.ObservationRecordedData{Key: event.ObsGitBranch, Value: fmt.Sprintf("b%d", g.rng.IntN(3))})
	case k < 18:
		g.unlinked[g.Node(r, 0, "", g.pos())] = r
	default:
		for u, ur := range g.unlinked {
			if g.rng.IntN(2) == 0 {
				g.Output(ur, u, "s", "notes on a node not linked yet")
				return
			}
			if ur == r {
				g.Link(r, n, u)
				g.linked[r] = append(g.linked[r], u)
				delete(g.unlinked, u)
				return
			}
		}
	}
}

// The overview folded event by event equals, after every event, the full
// projections of the same prefix: each run's Summarize and the session's
// open Gaps. It is stored as JSON between appends, so it goes through
// JSON between events here too.
func TestOverviewEqualsTheFullProjectionAfterEveryEvent(t *testing.T) {
	shapes := map[string]int{}
	for seed := range uint64(300) {
		l := generate(t, seed, 40+int(seed%5)*40)
		g := project.NewGraph(projecttest.Session, l.Snapshot)
		var o project.Overview
		ln := project.NewLineage()
		for _, e := range l.Events {
			if err := g.Add(e); err != nil {
				t.Fatal(err)
			}
			if err := o.Add(g, e); err != nil {
				t.Fatalf("seed %d, event %d (%s): %v", seed, e.Index, e.Kind, err)
			}
			if err := project.Project(ln, g, &o, e); err != nil {
				t.Fatalf("seed %d, event %d (%s): projection: %v", seed, e.Index, e.Kind, err)
			}
			if diff := compareOverview(g, o, ln); diff != "" {
				t.Fatalf("seed %d, after event %d (%s): %s", seed, e.Index, e.Kind, diff)
			}
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			o = project.Overview{}
			if err := json.Unmarshal(b, &o); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range o.Runs {
			shapes[string(r.Status)]++
			if r.Forks > 0 {
				shapes["forked"]++
			}
			if r.Branches > 2 {
				shapes["3+ branches"]++
			}
		}
		if len(o.OpenGaps) > 0 {
			shapes["open gaps"]++
		}
		if len(o.Runs) > 1 {
			shapes["several runs"]++
		}
	}
	// The generator makes every shape the fold must get right.
	for _, want := range []string{"in_progress", "blocked", "complete", "forked", "3+ branches", "open gaps", "several runs"} {
		if shapes[want] < 10 {
			t.Errorf("only %d generated logs end %s: %v", shapes[want], want, shapes)
		}
	}
}

// compareOverview says how o differs from the full projections of g.
func compareOverview(g *project.Graph, o project.Overview, ln *project.Lineage) string {
	runs := g.Runs()
	if len(o.Runs) != len(runs) {
		return fmt.Sprintf("%d runs, want %d", len(o.Runs), len(runs))
	}
	for i, r := range runs {
		got := o.Runs[i]
		if got.ID != r.ID || got.WorkflowID != r.WorkflowID || got.Root != r.Root {
			return fmt.Sprintf("run %d is %+v, want %+v", i, got, r)
		}
		if r.Root == 0 {
			if got.Tip != 0 || got.Status != project.InProgress || got.Nodes != 0 {
				return fmt.Sprintf("run %s without a root: %+v", r.ID, got)
			}
			continue
		}
		s, err := project.Summarize(g, r)
		if err != nil {
			return err.Error()
		}
		p, err := ln.Projection(&o, r.ID)
		if err != nil {
			return err.Error()
		}
		want := project.RunOverview{ID: r.ID, WorkflowID: r.WorkflowID, WorkflowHash: r.WorkflowHash, Title: got.Title, Root: r.Root,
			Tip: s.Tip.ID, Status: s.Status, Pending: s.Pending, Nodes: s.Nodes, Branches: len(p.Branches), Forks: len(p.Branches) - 1,
			Verdict: p.Verdict(), StepsDone: len(p.Path(p.Tip)) - 1}
		if p.Complete() {
			want.StepsDone++
		}
		snap, err := g.Snapshot(s.Tip.Snapshot)
		if err != nil {
			return err.Error()
		}
		if !slices.Equal(got.At, snap.Position.Path) {
			return fmt.Sprintf("run %s: at %+v, want the tip's cursor %+v", r.ID, got.At, snap.Position.Path)
		}
		if got.At = nil; !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("run %s:\n got %+v\nwant %+v", r.ID, got, want)
		}
	}
	var open []project.OpenGap
	for _, gap := range project.Gaps(g.Events()) {
		if !gap.Resolved() {
			open = append(open, project.OpenGap{ID: gap.ID, Run: gap.Run, Severity: gap.Gap.Severity, Reason: gap.Gap.Reason})
		}
	}
	if !slices.Equal(o.OpenGaps, open) {
		return fmt.Sprintf("open gaps %v, want %v", o.OpenGaps, open)
	}
	if last := g.Events()[len(g.Events())-1]; o.Last != last.Index || o.LastKind != last.Kind {
		return fmt.Sprintf("last %d %s, want %d %s", o.Last, o.LastKind, last.Index, last.Kind)
	}
	if c := g.Created(); o.CreatedAt != c.CreatedAt || o.Workspace != c.WorkspacePath {
		return fmt.Sprintf("created %q in %q, want %q in %q", o.CreatedAt, o.Workspace, c.CreatedAt, c.WorkspacePath)
	}
	return ""
}

func TestHeadlineTitles(t *testing.T) {
	long := strings.Repeat("word ", 30)
	cases := []struct{ notes, want string }{
		{"Fixed the parser.", "Fixed the parser."},
		{"Fixed the parser.\nThen the tests.", "Fixed the parser."},
		{"\n\n  Indented first line  \nnext", "Indented first line"},
		{"# Plan", "Plan"},
		{"### Plan for `x`", "Plan for `x`"},
		{"#hashtag stays", "#hashtag stays"},
		{"- first item\n- second", "first item"},
		{"* starred item", "starred item"},
		{"+ plus item", "plus item"},
		{"12. numbered item", "numbered item"},
		{"3) numbered item", "numbered item"},
		{"2026 was a year", "2026 was a year"},
		{"**Done**", "Done"},
		{"- **Done** with it", "**Done** with it"},
		{"__init__", "init"},
		{"`go test ./...`", "go test ./..."},
		{"## **_Both_**", "Both"},
		{"#\n\n---\n", "---"},
		{"#\n**  **\nReal line", "Real line"},
		{"   \n\t\n", ""},
		{"", ""},
		{long, strings.TrimSpace(long[:79]) + "…"},
		{strings.Repeat("é", 80), strings.Repeat("é", 80)},
		{strings.Repeat("é", 81), strings.Repeat("é", 79) + "…"},
		// An earlier release recorded its placeholder as notes: never a title.
		{"Replace with 1-10 lines: what you did in this step and what you found.", ""},
		{"<<fill: (optional) 1-10 lines: what you did>>", ""},
	}
	for _, c := range cases {
		t.Run(c.notes, func(t *testing.T) {
			l := projecttest.New(t)
			r, root := l.Start(projecttest.At(0, "a"))
			l.Output(r, root, "a", c.notes)
			o := fold(t, l)
			title := c.want
			if title == "" {
				title = "wr.x" // notes without text give no title
			}
			if o.Title != title || o.Runs[0].Title != c.want {
				t.Fatalf("title %q, run title %q; want %q, %q", o.Title, o.Runs[0].Title, title, c.want)
			}
			if got := []rune(o.Title); len(got) > 80 {
				t.Fatalf("title of %d runes", len(got))
			}
		})
	}
}

func TestTitleSources(t *testing.T) {
	branch := func(l *projecttest.Log, name string) {
		l.Add(0, 0, &event.ObservationRecordedData{Key: event.ObsGitBranch, Value: name})
	}
	cases := []struct {
		name      string
		build     func(l *projecttest.Log)
		title     string
		from      project.TitleSource
		runTitles []string
	}{
		{"nothing yet", func(l *projecttest.Log) {}, "", "", nil},
		{"a branch", func(l *projecttest.Log) { branch(l, "main"); branch(l, "feature") }, "branch main", project.TitleFromObservation, nil},
		{"a head sha is no title", func(l *projecttest.Log) {
			l.Add(0, 0, &event.ObservationRecordedData{Key: event.ObsGitHeadSHA, Value: "abc"})
		}, "", "", nil},
		{"the workflow beats the branch", func(l *projecttest.Log) {
			branch(l, "main")
			l.StartWorkflow("wr.first", projecttest.At(0, "a"))
			l.StartWorkflow("wr.second", projecttest.At(0, "a"))
			branch(l, "later")
		}, "wr.first", project.TitleFromWorkflow, []string{"", ""}},
		{"notes beat the workflow; the first notes stay", func(l *projecttest.Log) {
			r, root := l.StartWorkflow("wr.first", projecttest.At(0, "a"))
			l.Output(r, root, "a", "")
			l.Output(r, root, "a", "  \n")
			l.Output(r, root, "a", "First notes")
			l.Output(r, root, "a", "Second notes")
			r2, root2 := l.StartWorkflow("wr.second", projecttest.At(0, "a"))
			l.Output(r2, root2, "a", "Notes of run 2")
		}, "First notes", project.TitleFromNotes, []string{"First notes", "Notes of run 2"}},
		{"notes of a later run title the session", func(l *projecttest.Log) {
			l.StartWorkflow("wr.first", projecttest.At(0, "a"))
			r2, root2 := l.StartWorkflow("wr.second", projecttest.At(0, "a"))
			l.Output(r2, root2, "a", "Notes of run 2")
		}, "Notes of run 2", project.TitleFromNotes, []string{"", "Notes of run 2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := projecttest.New(t)
			c.build(l)
			o := fold(t, l)
			var runTitles []string
			for _, r := range o.Runs {
				runTitles = append(runTitles, r.Title)
			}
			if o.Title != c.title || o.TitleFrom != c.from || !reflect.DeepEqual(runTitles, c.runTitles) {
				t.Fatalf("title %q from %q, runs %q; want %q from %q, runs %q", o.Title, o.TitleFrom, runTitles, c.title, c.from, c.runTitles)
			}
		})
	}
}

func TestOverviewSessionFigures(t *testing.T) {
	cases := []struct {
		name      string
		build     func(l *projecttest.Log)
		status    project.RunStatus
		workflows []engine.WorkflowID
		branches  int
	}{
		{"no run", func(l *projecttest.Log) {}, project.InProgress, nil, 0},
		{"one complete run", func(l *projecttest.Log) {
			r, root := l.Start(projecttest.At(0, "a"))
			l.Advance(r, root, 0, projecttest.Done)
		}, project.Complete, []engine.WorkflowID{"wr.x"}, 1},
		{"a complete run and one in progress", func(l *projecttest.Log) {
			r, root := l.StartWorkflow("wr.a", projecttest.At(0, "a"))
			l.Advance(r, root, 0, projecttest.Done)
			l.StartWorkflow("wr.b", projecttest.At(0, "a"))
			l.StartWorkflow("wr.a", projecttest.At(0, "a"))
		}, project.InProgress, []engine.WorkflowID{"wr.a", "wr.b"}, 3},
		{"blocked wins", func(l *projecttest.Log) {
			r, root := l.StartWorkflow("wr.a", projecttest.At(0, "a"))
			l.Advance(r, root, 0, projecttest.At(0, "b"))
			l.Advance(r, root, 1, projecttest.At(0, "c"))
			r2, root2 := l.StartWorkflow("wr.b", projecttest.At(0, "a"))
			l.Block(r2, root2, 0)
		}, project.Blocked, []engine.WorkflowID{"wr.a", "wr.b"}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := projecttest.New(t)
			c.build(l)
			o := fold(t, l)
			if o.Status() != c.status || !slices.Equal(o.Workflows(), c.workflows) || o.Branches() != c.branches {
				t.Fatalf("status %s, workflows %v, branches %d; want %s, %v, %d", o.Status(), o.Workflows(), o.Branches(), c.status, c.workflows, c.branches)
			}
		})
	}
}

// The stored record stays small: no empty fields.
func TestOverviewJSONIsCompact(t *testing.T) {
	l := projecttest.New(t)
	l.Start(projecttest.At(0, "a"))
	b, err := json.Marshal(fold(t, l))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"title":"wr.x","titleFrom":"workflow","createdAt":"2026-01-01T00:00:00Z","workspace":"/src/app",` +
		`"runs":[{"id":"run_1","workflowId":"wr.x","root":"node_1","tip":"node_1","status":"in_progress","pending":"a","at":[{"i":0}],"nodes":1,"verdict":"in_progress","branches":1}],` +
		`"last":3,"lastKind":"node_created"}`
	if string(b) != want {
		t.Fatalf("overview JSON\n got %s\nwant %s", b, want)
	}
}

func fold(t *testing.T, l *projecttest.Log) project.Overview {
	t.Helper()
	f, err := project.FoldAll(projecttest.Session, l.Events, l.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return f.Overview
}

// Each open gap keeps the severity and reason it was recorded with, what
// the gaps list filters by; a resolved one leaves the list.
func TestOverviewOpenGapsKeepTheirKind(t *testing.T) {
	l := projecttest.New(t)
	r, root := l.Start(projecttest.At(0, "a"))
	first := l.Add(r, root, &event.GapRecordedData{Reason: event.GapUserOnlyDependency, Severity: event.SeverityCritical, Summary: "asked"})
	second := l.Add(r, root, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "assumed"})
	o := fold(t, l)
	want := []project.OpenGap{
		{ID: first.ID, Run: r, Severity: event.SeverityCritical, Reason: event.GapUserOnlyDependency},
		{ID: second.ID, Run: r, Severity: event.SeverityWarning, Reason: event.GapAssumptionMade},
	}
	if !slices.Equal(o.OpenGaps, want) {
		t.Fatalf("open gaps %+v, want %+v", o.OpenGaps, want)
	}
	l.Add(r, root, &event.GapRecordedData{Reason: event.GapUserOnlyDependency, Severity: event.SeverityCritical, Summary: "answered", ResolvesGapID: first.ID})
	o = fold(t, l)
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	frag := `"openGaps":[{"id":"` + string(second.ID) + `","run":"run_1","severity":"warning","reason":"assumption_made"}]`
	if !strings.Contains(string(b), frag) {
		t.Fatalf("overview JSON %s\nwants %s", b, frag)
	}
}
