package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/go-chi/chi/v5"
	"github.com/workrail/workrail/console/diff"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
)

// workflowViewKind is the closed set of ways to look at one workflow.
type workflowViewKind string

const (
	viewSource   workflowViewKind = "source"    // the file as on disk
	viewCompiled workflowViewKind = "compiled"  // features, templates, contracts and probes expanded
	viewPinned   workflowViewKind = "pinned"    // what a run is pinned to, by hash
	viewDiff     workflowViewKind = "diff"      // a pinned version against the current compiled one
	viewExpand   workflowViewKind = "expansion" // the source against what it compiles to
)

var workflowViews = []workflowViewKind{viewSource, viewCompiled, viewExpand, viewPinned, viewDiff}

// workflowView is one workflow: its definition now, the versions runs are
// pinned to, and one view of it.
type workflowView struct {
	Entry     catalog.Entry
	Workspace string
	View      workflowViewKind
	Text      string              // the document the view shows
	Hash      engine.WorkflowHash // the pinned hash shown (viewPinned, viewDiff)
	Pinned    []pinnedVersion
	Diff      []diff.Hunk // viewDiff: the pinned version → the current one; viewExpand: source → compiled
	// Snapshot is the pinned workflow the pinned and diff views show,
	// read from the store; nil in the other views.
	Snapshot *pinned
	// Removed says no source defines the id any more: Entry holds the
	// pinned workflow only, and only the pinned view exists.
	Removed bool
}

// heading is what the page titles itself with: the pinned version in the
// pinned view, the current definition otherwise.
func (v workflowView) heading() (name, version string, hash engine.WorkflowHash) {
	if v.View == viewPinned && v.Snapshot != nil {
		return v.Snapshot.Name, v.Snapshot.Version, v.Snapshot.Hash
	}
	return v.Entry.Compiled.Name, v.Entry.Compiled.Version, v.Entry.Compiled.Hash
}

// pinnedVersion is one compiled version runs are pinned to.
type pinnedVersion struct {
	Hash    engine.WorkflowHash
	Runs    []pinRef
	Current bool
}

// workflowShow renders /workflows/{id}?view=…&hash=…&workspace=…. The
// pinned view reads its workflow from the store, so it still opens after
// the file that defined it is removed.
func (c *Console) workflowShow(w http.ResponseWriter, r *http.Request) {
	id := engine.WorkflowID(chi.URLParam(r, "id"))
	q := r.URL.Query()
	m := c.chrome("Workflow " + string(id))
	pins, _, err := c.pinnedRuns()
	if err != nil {
		c.fail(w, r, "workflow "+string(id), err)
		return
	}
	e, ok := c.workflows.Catalog(q.Get("workspace")).Get(id)
	v := workflowView{Entry: e, Workspace: q.Get("workspace"), View: viewSource, Pinned: versions(pins[id], e.Compiled.Hash), Removed: !ok}
	for _, k := range workflowViews {
		if string(k) == q.Get("view") {
			v.View = k
		}
	}
	if v.Removed && v.View != viewPinned {
		c.notFound(w, r)
		return
	}
	switch v.View {
	case viewSource:
		v.Text = string(e.Text)
	case viewCompiled:
		v.Text = indent(e.Compiled.Canonical)
	case viewExpand:
		v.Diff = diff.Lines(normalized(e.Text), indent(e.Compiled.Canonical), 3)
	case viewPinned, viewDiff:
		if v.Hash.UnmarshalText([]byte(q.Get("hash"))) != nil {
			c.notFound(w, r)
			return
		}
		p, err := c.pinnedVersion(v.Pinned, v.Hash)
		if err == nil {
			p.Compiled, err = p.Full() // the views describe the version whole: its about, contracts, assessments
		}
		if errors.Is(err, engine.ErrNotFound) {
			c.notFound(w, r)
			return
		}
		if err != nil {
			c.fail(w, r, "the version of "+string(id)+" pinned as "+v.Hash.String(), err)
			return
		}
		v.Snapshot, v.Text = &p, indent(p.Compiled.Canonical)
		if v.Removed {
			v.Entry.Compiled = *p.Compiled
		}
		if v.View == viewDiff {
			v.Diff = diff.Lines(v.Text, indent(e.Compiled.Canonical), 3)
		}
	}
	c.render(w, r, http.StatusOK, workflowPage(m, v))
}

// normalized is a source file laid out as a compiled workflow is (keys
// in canonical order, two-space indent), so that its diff against the
// compiled form shows what compiling added and changed, not formatting.
// The file loaded, so it is valid JSON.
func normalized(src []byte) string {
	var v any
	if err := json.Unmarshal(src, &v); err != nil {
		return string(src)
	}
	b, err := canon.JSON(v)
	if err != nil {
		return string(src)
	}
	return indent(b)
}

// versions groups the runs pinned to one id by hash, the current
// definition's first, then in order of the newest run.
func versions(refs []pinRef, current engine.WorkflowHash) []pinnedVersion {
	var out []pinnedVersion
	for _, p := range refs { // newest session first
		i := slices.IndexFunc(out, func(v pinnedVersion) bool { return v.Hash == p.Hash })
		if i < 0 {
			out = append(out, pinnedVersion{Hash: p.Hash, Current: p.Hash == current})
			i = len(out) - 1
		}
		out[i].Runs = append(out[i].Runs, p)
	}
	slices.SortStableFunc(out, func(a, b pinnedVersion) int {
		switch {
		case a.Current == b.Current:
			return 0
		case a.Current:
			return -1
		}
		return 1
	})
	return out
}

// pinnedVersion is the workflow pinned under hash, read from the store
// through a session one of its runs is in.
func (c *Console) pinnedVersion(vs []pinnedVersion, hash engine.WorkflowHash) (pinned, error) {
	for _, v := range vs {
		if v.Hash == hash {
			return c.pinned(v.Runs[0].Session, hash)
		}
	}
	return pinned{}, engine.ErrNotFound
}

// outline is a compiled workflow's steps and loops, nested, for the
// workflow page.
func outline(nodes []compile.Node) []outlineItem {
	out := make([]outlineItem, 0, len(nodes))
	for _, n := range nodes {
		switch {
		case n.Step != nil:
			out = append(out, outlineItem{ID: string(n.Step.ID), Title: n.Step.Title})
		case n.Loop != nil:
			out = append(out, outlineItem{ID: string(n.Loop.ID), Title: n.Loop.Title, Loop: true, Body: outline(n.Loop.Body)})
		}
	}
	return out
}

type outlineItem struct {
	ID, Title string
	Loop      bool
	Body      []outlineItem
}

// workflowURL is a workflow's page in one view.
func workflowURL(id engine.WorkflowID, workspace string, view workflowViewKind, hash engine.WorkflowHash) string {
	u := "/workflows/" + string(id) + "?view=" + string(view)
	if hash != (engine.WorkflowHash{}) {
		u += "&hash=" + hash.String()
	}
	if workspace != "" {
		u += "&workspace=" + url.QueryEscape(workspace)
	}
	return u
}
