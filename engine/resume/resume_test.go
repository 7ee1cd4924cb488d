package resume_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/resume"
)

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The locked normalization: NFKC, lowercase, then maximal runs of
// [a-z0-9_-]. A letter still outside ASCII after NFKC separates tokens,
// so "Ｃａｆé" (NFKC: "Café") is the token "caf" and never matches
// "cafe": the lock keeps no diacritic folding, and these cases pin that.
func TestTokens(t *testing.T) {
	var cases []struct {
		Name string
		In   string
		Want []string
	}
	readJSON(t, "tokens.json", &cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if got := resume.Tokens(c.In); !reflect.DeepEqual(got, c.Want) {
				t.Errorf("Tokens(%q) = %q; want %q", c.In, got, c.Want)
			}
		})
	}
}

// rankFixture is testdata/rank.json: records written by hand (notes and
// workflow as text, tokenized here) and queries with the whole ranking
// each must give.
type rankFixture struct {
	Records []struct {
		Session    uint64
		Written    uint64
		GitHeadSHA string `json:"gitHeadSha"`
		GitBranch  string `json:"gitBranch"`
		RepoRoot   string `json:"repoRoot"`
		Runs       []struct {
			ID       uint32
			Tip      uint32
			Activity uint64
			Workflow string
			Notes    string
		}
	}
	Cases []struct {
		Name  string
		Query struct {
			Text, GitBranch, GitHeadSHA, Workspace string
		}
		Want []string
	}
}

func (f rankFixture) records() []*resume.Record {
	var out []*resume.Record
	for _, r := range f.Records {
		rec := &resume.Record{Session: engine.SessionID(r.Session), Written: engine.Write(r.Written), GitHeadSHA: r.GitHeadSHA, GitBranch: r.GitBranch, RepoRoot: r.RepoRoot}
		for _, ru := range r.Runs {
			rec.Runs = append(rec.Runs, resume.Run{ID: engine.RunID(ru.ID), Tip: engine.NodeID(ru.Tip), Activity: engine.EventIndex(ru.Activity),
				WorkflowTokens: resume.Tokens(ru.Workflow), NoteTokens: resume.Tokens(ru.Notes)})
		}
		out = append(out, rec)
	}
	return out
}

func TestRank(t *testing.T) {
	var f rankFixture
	readJSON(t, "rank.json", &f)
	recs := f.records()
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			q := resume.NewQuery(c.Query.Text, c.Query.GitBranch, c.Query.GitHeadSHA, c.Query.Workspace)
			var got []string
			for m := range resume.Rank(q, recs) {
				got = append(got, fmt.Sprintf("%s %s %s", m.Session, m.Run.ID, m.Tier))
			}
			if len(got) > resume.MaxCandidates {
				got = got[:resume.MaxCandidates]
			}
			if !reflect.DeepEqual(got, c.Want) {
				t.Errorf("ranking\n got  %q\n want %q", got, c.Want)
			}
		})
	}
}

// The order does not depend on the order records come in.
func TestRankIsDeterministic(t *testing.T) {
	var f rankFixture
	readJSON(t, "rank.json", &f)
	recs := f.records()
	q := resume.NewQuery("", "", "", "")
	want := slices.Collect(resume.Rank(q, recs))
	for i := range recs {
		rotated := append(append([]*resume.Record{}, recs[i:]...), recs[:i]...)
		if got := slices.Collect(resume.Rank(q, rotated)); !reflect.DeepEqual(got, want) {
			t.Fatalf("rotation %d ranks differently:\n%+v\nwant\n%+v", i, got, want)
		}
	}
}

func TestTiersAreClosedAndOrdered(t *testing.T) {
	want := []resume.Tier{"git_head_sha", "git_branch", "notes", "workflow", "recency"}
	if got := resume.Tiers(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tiers() = %q; want %q", got, want)
	}
}

// marker is the truncation marker recaps and snippets share
// (project.Cut).
const marker = " … [truncated]"

func TestSnippetBudget(t *testing.T) {
	cases := []struct {
		name string
		in   string
		cut  bool
	}{
		{"short notes are kept whole", "fixing the auth bug", false},
		{"exactly the budget", strings.Repeat("a", resume.MaxSnippetBytes), false},
		{"one byte over", strings.Repeat("a", resume.MaxSnippetBytes+1), true},
		{"two-byte runes are never split", strings.Repeat("é", resume.MaxSnippetBytes), true},
		{"four-byte runes are never split", "x" + strings.Repeat("🦀", resume.MaxSnippetBytes), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := resume.Snippet(c.in)
			if len(got) > resume.MaxSnippetBytes || !utf8.ValidString(got) {
				t.Fatalf("snippet of %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
			if c.cut != (got != c.in) || c.cut != strings.HasSuffix(got, marker) {
				t.Fatalf("cut %v, ends with marker %v; want cut %v", got != c.in, strings.HasSuffix(got, marker), c.cut)
			}
			if c.cut && !strings.HasPrefix(c.in, strings.TrimSuffix(got, marker)) {
				t.Fatal("the kept text is not the start of the notes")
			}
		})
	}
}
