package console

import (
	"net/http"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/project"
)

// workflowsView is the catalog one workspace sees, by source: which
// definition wins an id, which are shadowed, which files fail to load,
// and how many runs are pinned to each workflow.
type workflowsView struct {
	Workspace  string   // "" for none: bundled, user and config sources
	Workspaces []string // the workspaces sessions were started in
	Groups     []sourceGroup
	Shadowed   []catalog.Shadow
	Problems   []catalog.LoadProblem
	Warnings   []catalog.SourceWarning // repositories serving less than they hold
	Sources    bool                    // a sources page is there to link to
}

type sourceGroup struct {
	Kind    catalog.SourceKind
	Entries []workflowRow
}

// workflowRow is one winning definition and the runs pinned to its id.
type workflowRow struct {
	catalog.Entry
	Pins pinCount
}

// pinCount counts the runs pinned to a workflow id: all of them, and
// those whose pin is not the current definition.
type pinCount struct{ Runs, Older int }

// pinRef is one run pinned to a workflow, found through its session's
// overview.
type pinRef struct {
	Session engine.SessionID
	Run     engine.RunID
	Hash    engine.WorkflowHash
}

// pinnedRuns walks the sessions' overviews once: the runs pinned to each
// workflow id, and the workspaces sessions were started in.
func (c *Console) pinnedRuns() (map[engine.WorkflowID][]pinRef, []string, error) {
	byID := map[engine.WorkflowID][]pinRef{}
	seen := map[string]bool{}
	err := c.store.Overviews(0, func(id engine.SessionID, o project.Overview, err error) bool {
		if err != nil {
			return true
		}
		if o.Workspace != "" {
			seen[o.Workspace] = true
		}
		for _, r := range o.Runs {
			byID[r.WorkflowID] = append(byID[r.WorkflowID], pinRef{Session: id, Run: r.ID, Hash: r.WorkflowHash})
		}
		return true
	})
	workspaces := make([]string, 0, len(seen))
	for ws := range seen {
		workspaces = append(workspaces, ws)
	}
	slices.Sort(workspaces)
	return byID, workspaces, err
}

// workflowList renders the catalog of ?workspace= (none by default).
func (c *Console) workflowList(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Workflows")
	pins, workspaces, err := c.pinnedRuns()
	if err != nil {
		c.fail(w, r, "the workflows", err)
		return
	}
	ws := r.URL.Query().Get("workspace")
	if ws != "" && !slices.Contains(workspaces, ws) {
		c.notFound(w, r)
		return
	}
	cat := c.workflows.Catalog(ws)
	v := workflowsView{Workspace: ws, Workspaces: workspaces, Shadowed: cat.Shadowed, Problems: cat.Problems, Warnings: cat.Warnings, Sources: c.sources != nil}
	for _, kind := range catalog.SourceKinds() {
		g := sourceGroup{Kind: kind}
		for _, e := range cat.All() {
			if e.Source.Kind == kind {
				g.Entries = append(g.Entries, workflowRow{Entry: e, Pins: countPins(pins[e.Compiled.ID], e.Compiled.Hash)})
			}
		}
		if len(g.Entries) > 0 {
			v.Groups = append(v.Groups, g)
		}
	}
	c.render(w, r, http.StatusOK, workflowsPage(m, v))
}

func countPins(refs []pinRef, current engine.WorkflowHash) pinCount {
	n := pinCount{Runs: len(refs)}
	for _, p := range refs {
		if p.Hash != current {
			n.Older++
		}
	}
	return n
}

func sourceTitle(k catalog.SourceKind) string {
	switch k {
	case catalog.Bundled:
		return "Bundled with WorkRail (read-only)"
	case catalog.User:
		return "Yours (user folder)"
	case catalog.Project:
		return "This workspace's project folder"
	case catalog.Config:
		return "Config folders"
	}
	return "Repositories (workflowRepos)"
}

// repoLine names the repository and commit an entry of a repository was
// read from.
func repoLine(r catalog.RepoRef) string {
	s := r.URL
	if r.Ref != "" {
		s += " (" + r.Ref + ")"
	}
	return s + " at " + r.Short()
}

// shadowSource names a source in a shadowing line: a repository by its
// address, any other by its kind.
func shadowSource(s catalog.Source) string {
	if s.Kind == catalog.Repo {
		return "repository " + s.Repo.URL
	}
	return string(s.Kind)
}
