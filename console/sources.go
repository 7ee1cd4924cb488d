package console

import (
	"context"
	"net/http"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
)

// Sources are the workflow sources as the Console shows them, and the
// fetch of the repositories it may ask for (cmd wires server/sources and
// server/gitsource).
type Sources interface {
	List() SourceList
	// Sync fetches every repository now and lists the sources again.
	Sync(ctx context.Context) SourceList
}

// SourceList is every workflow source in precedence order, the
// repositories last: what `workrail sources --json` prints too.
type SourceList struct {
	Sources []SourceState `json:"sources"`
	// SyncMinutes is how often the daemon fetches the repositories (0:
	// only one not fetched yet, and when asked).
	SyncMinutes int `json:"syncMinutes"`
}

// SourceState is one source: a folder (bundled, the user's, a configured
// one), or a repository with the commit it serves, when it was fetched,
// and why the last fetch failed.
type SourceState struct {
	Kind catalog.SourceKind `json:"kind"`
	// Path is a folder's path, or the folder of a repository its
	// workflows are in ("" for its top).
	Path string `json:"path,omitempty"`
	// URL is a repository's address, never with credentials.
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Folder holds the workflow files of Commit.
	Folder    string    `json:"folder,omitempty"`
	SyncedAt  time.Time `json:"syncedAt,omitzero"`
	CheckedAt time.Time `json:"checkedAt,omitzero"`
	Error     string    `json:"error,omitempty"`
	// Skipped are the repository's files left out of Folder, and why.
	Skipped []SkippedFile `json:"skipped,omitempty"`
}

// SkippedFile is a file of a repository left out of its copy.
type SkippedFile struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Short is the commit's first 12 hex digits.
func (s SourceState) Short() string { return s.Commit[:min(len(s.Commit), 12)] }

// Repositories counts the repository sources.
func (l SourceList) Repositories() int {
	n := 0
	for _, s := range l.Sources {
		if s.Kind == catalog.Repo {
			n++
		}
	}
	return n
}

// Failing counts the repositories whose last fetch failed.
func (l SourceList) Failing() int {
	n := 0
	for _, s := range l.Sources {
		if s.Kind == catalog.Repo && s.Error != "" {
			n++
		}
	}
	return n
}

// sourcesView is the sources page: the list, and what a sync just did.
type sourcesView struct {
	List   SourceList
	Now    time.Time
	Synced bool // the page answers a sync
}

// sourcesPage lists the sources.
func (c *Console) sourcesPage(w http.ResponseWriter, r *http.Request) {
	if c.sources == nil {
		c.notFound(w, r)
		return
	}
	c.render(w, r, http.StatusOK, sourcesShow(c.chrome("Sources"), sourcesView{List: c.sources.List(), Now: c.now()}))
}

// sourcesSync fetches the repositories now (CSRF-checked like every post;
// a live login is enough: a sync fetches only what config.json names,
// which the daemon fetches by itself every interval, so it chooses no
// content an agent runs) and shows the sources as the sync left them.
func (c *Console) sourcesSync(w http.ResponseWriter, r *http.Request) {
	if c.sources == nil {
		c.notFound(w, r)
		return
	}
	l := c.sources.Sync(r.Context())
	c.render(w, r, http.StatusOK, sourcesShow(c.chrome("Sources"), sourcesView{List: l, Now: c.now(), Synced: true}))
}

// sourceKindText names a kind of source in a sources row.
func sourceKindText(k catalog.SourceKind) string {
	switch k {
	case catalog.Bundled:
		return "Bundled with WorkRail"
	case catalog.User:
		return "Your folder"
	case catalog.Project:
		return "Each workspace's .workrail/workflows"
	case catalog.Config:
		return "Configured folder"
	}
	return "Repository"
}

// millis is t as an event's time, for when.
func millis(t time.Time) event.Millis { return event.Millis(t.UnixMilli()) }

// syncedText says what a sync just did.
func syncedText(l SourceList) string {
	s := "Fetched " + count(l.Repositories(), "repository", "repositories")
	if n := l.Failing(); n > 0 {
		return s + "; " + count(n, "fetch", "fetches") + " failed, and what was fetched before keeps serving."
	}
	return s + "."
}
