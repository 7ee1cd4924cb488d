package project_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

func notes(r event.Recap) string {
	var out []string
	for _, e := range r.Entries {
		out = append(out, e.NotesMarkdown)
	}
	return strings.Join(out, "|")
}

func TestRecapIsThePathsNotesOldestFirst(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	n2 := s.advance(r, root, 0, "b", "one")
	n3 := s.advance(r, n2, 0, "c", "two")
	s.advance(r, n2, 1, "c", "elsewhere") // a fork: not on n4's path
	n4 := s.advance(r, n3, 0, "d", "three")
	g := s.graph()
	cases := []struct {
		from, stop engine.NodeID
		want       string
	}{
		{n4, 0, "one|two|three"},
		{n4, n2, "two|three"},
		{n3, 0, "one|two"},
		{root, 0, ""},
	}
	for _, c := range cases {
		rc, err := project.Recap(g, mustNode(t, g, c.from), c.stop)
		if err != nil {
			t.Fatal(err)
		}
		if got := notes(rc); got != c.want || rc.Omitted != 0 || rc.Policy != "" || rc.Entries == nil {
			t.Errorf("Recap(%s, stop %d) = %q (omitted %d, policy %q); want %q", c.from, c.stop, got, rc.Omitted, rc.Policy, c.want)
		}
	}
	rc, _ := project.Recap(g, mustNode(t, g, n4), 0)
	if e := rc.Entries[2]; e.Node != n4 || e.StepID != "did-d" || strings.Join(e.Artifacts, ",") != "k,(no kind)" {
		t.Fatalf("entry = %+v", e)
	}
}

func TestRecapKeepsTheMostRecentWithinItsBudget(t *testing.T) {
	s := newSession(t)
	r, n := s.run("a")
	for i := 0; i < 12; i++ {
		n = s.advance(r, n, 0, "s", fmt.Sprintf("note %d %s", i, strings.Repeat("é", 1500)))
	}
	rc, err := project.Recap(s.graph(), mustNode(t, s.graph(), n), 0)
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, e := range rc.Entries {
		size += len(e.NotesMarkdown)
		if len(e.NotesMarkdown) > project.EntryBudget || !utf8.ValidString(e.NotesMarkdown) || !strings.HasSuffix(e.NotesMarkdown, "… [truncated]") {
			t.Fatalf("entry of %d bytes, valid %v: %.30q…", len(e.NotesMarkdown), utf8.ValidString(e.NotesMarkdown), e.NotesMarkdown)
		}
	}
	if size > project.RecapBudget || rc.Omitted == 0 || len(rc.Entries)+rc.Omitted != 12 || rc.Policy != "kept_most_recent" {
		t.Fatalf("kept %d (%d bytes), omitted %d, policy %q", len(rc.Entries), size, rc.Omitted, rc.Policy)
	}
	if last := rc.Entries[len(rc.Entries)-1].NotesMarkdown; !strings.HasPrefix(last, "note 11 ") {
		t.Fatalf("the newest note was not kept: %.20s", last)
	}
}

func TestCutKeepsWholeRunesAndSaysSo(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly20bytes......", 20, "exactly20bytes......"},
		{"abcdefghijklmnopqrstuvwxyz", 20, "abcd … [truncated]"},
		{"ab   " + strings.Repeat("x", 30), 21, "ab … [truncated]"},
		{"ééééééééééééééééééé", 21, "éé … [truncated]"},
		{"日本語のテキストです", 22, "日本 … [truncated]"},
	}
	for _, c := range cases {
		if got := project.Cut(c.in, c.n); got != c.want || len(got) > c.n || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q; want %q", c.in, c.n, got, c.want)
		}
	}
}

// A fork's picture: each earlier branch with its tip's pending step,
// depth and latest note; what the preferred one recorded below the fork.
func TestBranchesDescribeTheEarlierBranches(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	p := s.advance(r, root, 0, "b", "before the fork")
	a1 := s.advance(r, p, 0, "c", "branch a, first\nsecond line")
	s.advance(r, a1, 0, "", "branch a, done")
	b1 := s.advance(r, p, 1, "c", "branch b, latest")
	g := s.graph()
	f, err := project.Branches(g, mustNode(t, g, p))
	if err != nil {
		t.Fatal(err)
	}
	want := []event.Branch{{Node: a1, StepID: "", Depth: 2, Summary: "branch a, done"}, {Node: b1, StepID: "c", Depth: 1, Summary: "branch b, latest"}}
	if fmt.Sprint(f.Siblings) != fmt.Sprint(want) || f.Omitted != 0 {
		t.Fatalf("siblings = %+v; want %+v", f.Siblings, want)
	}
	if got := notes(f.Downstream); got != "branch b, latest" {
		t.Fatalf("downstream = %q; want the latest branch's notes below the fork", got)
	}
}

func TestBranchesAreBounded(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	for i := 0; i < project.MaxSiblings+3; i++ {
		s.advance(r, root, engine.Attempt(i), "b", "")
	}
	g := s.graph()
	f, err := project.Branches(g, mustNode(t, g, root))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Siblings) != project.MaxSiblings || f.Omitted != 3 || f.Siblings[0].Summary != "" {
		t.Fatalf("siblings %d, omitted %d", len(f.Siblings), f.Omitted)
	}
}

// latestNote looks up the branch for the newest note, stopping at the
// fork point; a note's first line is its summary.
func TestBranchSummaryIsTheNewestNoteBelowTheFork(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	p := s.advance(r, root, 0, "b", "above the fork")
	a1 := s.advance(r, p, 0, "c", "on the branch\nmore")
	s.advance(r, a1, 0, "d", "")
	s.advance(r, p, 1, "c", "")
	g := s.graph()
	f, _ := project.Branches(g, mustNode(t, g, p))
	if f.Siblings[0].Summary != "on the branch" || f.Siblings[1].Summary != "" {
		t.Fatalf("summaries = %q, %q", f.Siblings[0].Summary, f.Siblings[1].Summary)
	}
}
