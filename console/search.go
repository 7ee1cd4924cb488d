package console

import (
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// Resumer is resume_session's search as the Console asks it: the
// sessions a brand new chat would be offered for q, best first, under the
// same tiers, order, health filter and budget as the tool's answer.
type Resumer interface {
	Matches(q resume.Query) ([]resume.Match, error)
}

// searchQuery is what the search page's URL asks for: resume_session's
// arguments, as a person types them.
type searchQuery struct {
	Q, GitBranch, GitHeadSHA, Workspace string
}

func parseSearchQuery(r *http.Request) searchQuery {
	u := r.URL.Query()
	return searchQuery{Q: strings.TrimSpace(u.Get("q")), GitBranch: strings.TrimSpace(u.Get("gitBranch")),
		GitHeadSHA: strings.TrimSpace(u.Get("gitHeadSha")), Workspace: strings.TrimSpace(u.Get("workspacePath"))}
}

// problem says why the query cannot be asked ("" when it can): the tool
// takes only an absolute workspace path, and so does the page.
func (q searchQuery) problem() string {
	if q.Workspace != "" && !filepath.IsAbs(q.Workspace) {
		return "The workspace must be an absolute path, like /home/you/src/app."
	}
	return ""
}

// url is the search page for this query.
func (q searchQuery) url() string {
	v := url.Values{}
	for k, s := range map[string]string{"q": q.Q, "gitBranch": q.GitBranch, "gitHeadSha": q.GitHeadSHA, "workspacePath": q.Workspace} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if len(v) == 0 {
		return "/search"
	}
	return "/search?" + v.Encode()
}

// more says whether the query uses the fields past its words, so the
// form shows them open.
func (q searchQuery) more() bool { return q.GitBranch != "" || q.GitHeadSHA != "" || q.Workspace != "" }

// searchView is the search page: the query, why it could not be asked,
// and the matches in rank order.
type searchView struct {
	Query   searchQuery
	Problem string
	Matches []match
	// NoMatch says the query asked for something no session matches: any
	// match is offered on recent activity alone.
	NoMatch bool
}

// asked describes what the query asks beyond recent activity, for "No
// session matches …"; "" when it asks nothing.
func (q searchQuery) asked() string {
	var parts []string
	if q.Q != "" {
		parts = append(parts, strconv.Quote(q.Q))
	}
	if q.GitBranch != "" {
		parts = append(parts, "branch "+q.GitBranch)
	}
	if q.GitHeadSHA != "" {
		parts = append(parts, "commit "+q.GitHeadSHA)
	}
	return strings.Join(parts, ", ")
}

// match is one session offered, with the title its overview gives it.
type match struct {
	resume.Match
	Title string
	// Verdict and StepsDone are the run's, from its projection's figures
	// the overview keeps.
	Verdict   project.Verdict
	StepsDone int
	// SnippetStep is the title of the step the snippet's notes report
	// on, in the run's pinned workflow ("" when the record names none).
	SnippetStep string
}

// search renders the search page: what resume_session would offer a new
// chat for the query in the URL.
func (c *Console) search(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Resume a session")
	v := searchView{Query: parseSearchQuery(r)}
	if r.Header.Get("HX-Request") == "true" {
		// The form sends its empty fields too; the address bar gets the
		// query's own URL, the one a reader would share.
		w.Header().Set("HX-Push-Url", v.Query.url())
	}
	// A query that cannot be asked is answered 200 all the same: htmx
	// swaps in only a success, and the reader must see why.
	v.Problem = v.Query.problem()
	if v.Problem != "" {
		c.render(w, r, http.StatusOK, searchPage(m, v))
		return
	}
	q := v.Query
	found, err := c.resumer.Matches(resume.NewQuery(q.Q, q.GitBranch, q.GitHeadSHA, q.Workspace))
	if err != nil {
		c.fail(w, r, "the sessions to resume", err)
		return
	}
	for _, f := range found {
		mt := match{Match: f, Title: f.Session.String(), Verdict: project.VerdictInProgress, SnippetStep: c.snippetStep(f)}
		if o, err := c.store.Overview(f.Session); err == nil { // else the match is shown all the same
			if o.Title != "" {
				mt.Title = o.Title
			}
			if ro := o.Run(f.Run.ID); ro != nil && ro.Verdict != "" {
				mt.Verdict, mt.StepsDone = ro.Verdict, ro.StepsDone
			}
		}
		v.Matches = append(v.Matches, mt)
	}
	v.NoMatch = q.asked() != "" && !slices.ContainsFunc(found, func(f resume.Match) bool { return f.Tier != resume.TierRecency })
	c.render(w, r, http.StatusOK, searchPage(m, v))
}

// snippetStep is the title of the step a match's snippet reports on;
// its id when the pinned workflow cannot be read (the match is shown all
// the same).
func (c *Console) snippetStep(f resume.Match) string {
	if f.Run.SnippetStep == "" {
		return ""
	}
	p, err := c.pinned(f.Session, f.Run.WorkflowHash)
	if err != nil {
		return string(f.Run.SnippetStep)
	}
	return stepTitle(p.Compiled, f.Run.SnippetStep)
}

// tierText says in words why a session is offered.
func tierText(t resume.Tier) string {
	switch t {
	case resume.TierHeadSHA:
		return "same HEAD commit"
	case resume.TierBranch:
		return "same git branch"
	case resume.TierNotes:
		return "words in its latest notes"
	case resume.TierWorkflow:
		return "words in its workflow"
	case resume.TierRecency:
		return "most recent activity"
	}
	return string(t)
}

// matchesText says how many sessions are offered, for the live region.
func matchesText(v searchView) string {
	if v.NoMatch {
		return "no session matches " + v.Query.asked()
	}
	switch len(v.Matches) {
	case 0:
		return "no session to resume"
	case 1:
		return "1 session to resume"
	}
	return strconv.Itoa(len(v.Matches)) + " sessions to resume"
}
