package resume_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
	"github.com/workrail/workrail/engine/resume"
)

func workflowName(engine.WorkflowHash) string { return "Bug Fix" }

// fold folds a log event by event as a store does (project.Index, then
// the overview, then the record), refreshing the record after each event
// for which refreshAfter says so and once at the end, then names it.
func fold(t *testing.T, l *projecttest.Log, refreshAfter func(i int) bool) (resume.Record, *project.Graph) {
	t.Helper()
	g := project.NewGraph(projecttest.Session, l.Snapshot)
	var o project.Overview
	var r resume.Record
	for i, e := range l.Events {
		if err := g.Add(e); err != nil {
			t.Fatal(err)
		}
		if err := o.Add(g, e); err != nil {
			t.Fatal(err)
		}
		if err := r.Add(g, e); err != nil {
			t.Fatal(err)
		}
		if refreshAfter(i) {
			if err := r.Refresh(g, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.Refresh(g, o); err != nil {
		t.Fatal(err)
	}
	r.Name(workflowName)
	return r, g
}

// logs are sessions shaped the ways runs grow: straight on, forked by a
// rewound chat, an old branch touched again, checkpointed, two runs.
func logs(t *testing.T) map[string]*projecttest.Log {
	out := map[string]*projecttest.Log{}

	l := projecttest.New(t)
	l.Add(0, 0, &event.ObservationRecordedData{Key: event.ObsGitBranch, Value: "fix/auth"})
	l.Add(0, 0, &event.ObservationRecordedData{Key: event.ObsGitHeadSHA, Value: "0123abcd"})
	l.Add(0, 0, &event.ObservationRecordedData{Key: event.ObsRepoRoot, Value: "/src/app"})
	r, root := l.Start(projecttest.At(0, "a"))
	n2 := l.Advance(r, root, 0, projecttest.At(1, "b"))
	l.Output(r, n2, "a", "Fixing the auth bug")
	n3 := l.Advance(r, n2, 0, projecttest.At(2, "c"))
	l.Output(r, n3, "b", "Found the token refresh race")
	out["straight"] = l

	l = projecttest.New(t)
	r, root = l.Start(projecttest.At(0, "a"))
	old := l.Advance(r, root, 0, projecttest.At(1, "b"))
	l.Output(r, old, "a", "first try: cache")
	fork := l.Advance(r, root, 1, projecttest.At(1, "b"))
	l.Output(r, fork, "a", "second try: queue")
	out["forked"] = l

	l = projecttest.New(t)
	r, root = l.Start(projecttest.At(0, "a"))
	old = l.Advance(r, root, 0, projecttest.At(1, "b"))
	l.Output(r, old, "a", "first try: cache")
	fork = l.Advance(r, root, 1, projecttest.At(1, "b"))
	l.Output(r, fork, "a", "second try: queue")
	l.Block(r, old, 0) // the old branch is the latest touched again
	out["old branch touched"] = l

	l = projecttest.New(t)
	r, root = l.Start(projecttest.At(0, "a"))
	l.Output(r, root, "a", "started")
	l.Checkpoint(r, root, "checkpoint: halfway through the migration")
	out["checkpointed"] = l

	l = projecttest.New(t)
	r1, root1 := l.Start(projecttest.At(0, "a"))
	l.Output(r1, root1, "a", "first run notes")
	r2, root2 := l.StartWorkflow("wr.docs", projecttest.At(0, "a"))
	l.Output(r2, root2, "a", "second run notes")
	n := l.Advance(r1, root1, 0, projecttest.Done)
	l.Output(r1, n, "a", "first run finished")
	l.Node(r2, 0, "", projecttest.At(1, "b")) // created, never linked
	out["two runs"] = l
	return out
}

// pathActivity is the highest last activity from n up to its run's root.
func pathActivity(t *testing.T, g *project.Graph, n project.Node) engine.EventIndex {
	top := n.LastActivity
	for n.Parent != 0 {
		var err error
		if n, err = g.Node(n.Parent); err != nil {
			t.Fatal(err)
		}
		top = max(top, n.LastActivity)
	}
	return top
}

// A record is a function of the log alone: refreshed after every event,
// at random commits or once at the end, it is the same, byte for byte;
// and each run's tip and activity are the preferred tip's, as
// project.PreferredTip computes them by walking the run.
func TestRecordDoesNotDependOnWhenItIsRefreshed(t *testing.T) {
	for name, l := range logs(t) {
		t.Run(name, func(t *testing.T) {
			once, g := fold(t, l, func(int) bool { return false })
			every, _ := fold(t, l, func(int) bool { return true })
			odd, _ := fold(t, l, func(i int) bool { return i%3 == 1 })
			want, _ := json.Marshal(once)
			for _, r := range []resume.Record{every, odd} {
				if got, _ := json.Marshal(r); string(got) != string(want) {
					t.Fatalf("refreshed at other times:\n%s\nwant\n%s", got, want)
				}
			}
			for _, ru := range once.Runs {
				root, err := g.Node(ru.Root)
				if err != nil {
					t.Fatal(err)
				}
				tip, err := project.PreferredTip(g, root)
				if err != nil {
					t.Fatal(err)
				}
				if ru.Tip != tip.ID || ru.Activity != pathActivity(t, g, tip) {
					t.Errorf("%s: tip %s at %d; want %s at %d", ru.ID, ru.Tip, ru.Activity, tip.ID, pathActivity(t, g, tip))
				}
			}
		})
	}
}

func TestRecordContents(t *testing.T) {
	type run struct {
		Tip      engine.NodeID
		Status   project.RunStatus
		Notes    []string
		Snippet  string
		Workflow []string
	}
	cases := []struct {
		log            string
		sha, br, repo  string
		runs           []run
		activityIsLast bool
	}{
		{"straight", "0123abcd", "fix/auth", "/src/app", []run{{3, project.InProgress,
			[]string{"auth", "bug", "fixing", "found", "race", "refresh", "the", "token"}, "Found the token refresh race", []string{"bug", "fix", "wr", "x"}}}, true},
		// The fork is the latest branch: its notes, not the first try's.
		{"forked", "", "", "", []run{{3, project.InProgress, []string{"queue", "second", "try"}, "second try: queue", []string{"bug", "fix", "wr", "x"}}}, true},
		{"old branch touched", "", "", "", []run{{2, project.Blocked, []string{"cache", "first", "try"}, "first try: cache", []string{"bug", "fix", "wr", "x"}}}, true},
		{"checkpointed", "", "", "", []run{{2, project.InProgress,
			[]string{"checkpoint", "halfway", "migration", "started", "the", "through"}, "checkpoint: halfway through the migration", []string{"bug", "fix", "wr", "x"}}}, true},
		// The unlinked node touched run 2 last but no path reaches it.
		{"two runs", "", "", "", []run{
			{3, project.Complete, []string{"finished", "first", "notes", "run"}, "first run finished", []string{"bug", "fix", "wr", "x"}},
			{2, project.InProgress, []string{"notes", "run", "second"}, "second run notes", []string{"bug", "docs", "fix", "wr"}},
		}, false},
	}
	all := logs(t)
	for _, c := range cases {
		t.Run(c.log, func(t *testing.T) {
			l := all[c.log]
			r, _ := fold(t, l, func(int) bool { return false })
			if r.Session != projecttest.Session || r.Last != engine.EventIndex(len(l.Events)) {
				t.Errorf("session %s last %d; want %s %d", r.Session, r.Last, projecttest.Session, len(l.Events))
			}
			if r.GitHeadSHA != c.sha || r.GitBranch != c.br || r.RepoRoot != c.repo {
				t.Errorf("observations %q %q %q; want %q %q %q", r.GitHeadSHA, r.GitBranch, r.RepoRoot, c.sha, c.br, c.repo)
			}
			var got []run
			for _, ru := range r.Runs {
				got = append(got, run{ru.Tip, ru.Status, ru.NoteTokens, ru.Snippet, ru.WorkflowTokens})
			}
			if !reflect.DeepEqual(got, c.runs) {
				t.Errorf("runs\n got  %+v\n want %+v", got, c.runs)
			}
			if c.activityIsLast && r.Runs[0].Activity != r.Last {
				t.Errorf("activity %d; the last event (%d) touched the tip's path", r.Runs[0].Activity, r.Last)
			}
		})
	}
}

// A run is matched by its latest notes only: those on the tip and the
// nodes above it up to RecentNodes, within RecentNotesBytes, the newest
// always (cut before the word the budget falls in, as Tokens reads words:
// an uppercase or fullwidth letter at the cut is part of one).
func TestLatestNotesAreBounded(t *testing.T) {
	// pad is a note's start, n bytes long, that leaves its last word at
	// byte n: the cut, at RecentNotesBytes, falls in that word when it is
	// longer than RecentNotesBytes-n.
	pad := func(n int) string { return strings.Repeat("x ", n/2) + strings.Repeat(" ", n%2) }
	cases := []struct {
		name   string
		notes  []string // one node each, oldest first
		tokens []string // the run's note tokens
	}{
		{"the tip and seven above", []string{"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9"},
			[]string{"w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9"}},
		{"within the byte budget", []string{"old " + strings.Repeat("a ", 600), "mid " + strings.Repeat("b ", 300), "new " + strings.Repeat("c ", 300)},
			[]string{"b", "c", "mid", "new"}},
		{"the newest alone, cut before a word", []string{"older", pad(resume.RecentNotesBytes-2) + "needle"},
			[]string{"x"}},
		{"an uppercase word at the cut", []string{"older", pad(resume.RecentNotesBytes-6) + "AUTHENTICATION"},
			[]string{"x"}},
		{"a camelCase word at the cut", []string{"older", pad(resume.RecentNotesBytes-7) + "refreshToken"},
			[]string{"x"}},
		// Five fullwidth letters are 15 bytes written, 5 normalized: the
		// normalized note fits whole.
		{"a fullwidth word past the written budget", []string{"older", pad(resume.RecentNotesBytes-6) + "ｔｏｋｅｎ"},
			[]string{"token", "x"}},
		{"a word ending at the cut", []string{"older", pad(resume.RecentNotesBytes-6) + "needle tail"},
			[]string{"needle", "x"}},
		{"nodes without notes are passed over", []string{"first", "", "", ""},
			[]string{"first"}},
		{"a placeholder recorded as notes is passed over", []string{"first", "Replace with 1-10 lines: what you did in this step and what you found."},
			[]string{"first"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := projecttest.New(t)
			r, n := l.Start(projecttest.At(0, "a"))
			for i, notes := range c.notes {
				if i > 0 {
					n = l.Advance(r, n, 0, projecttest.At(0, "a"))
				}
				if notes != "" {
					l.Add(r, n, &event.NodeOutputAppendedData{StepID: "a", NotesMarkdown: notes})
				}
			}
			rec, _ := fold(t, l, func(int) bool { return false })
			ru := rec.Runs[0]
			if !reflect.DeepEqual(ru.NoteTokens, c.tokens) {
				t.Errorf("tokens %q; want %q", ru.NoteTokens, c.tokens)
			}
			newest := ""
			for _, n := range c.notes {
				if n != "" && !fill.IsTemplate(n) {
					newest = n
				}
			}
			if len(ru.Snippet) > resume.MaxSnippetBytes || !strings.HasPrefix(newest, strings.TrimSuffix(ru.Snippet, marker)) {
				t.Errorf("snippet %q", ru.Snippet)
			}
		})
	}
}
