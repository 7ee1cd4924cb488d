package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/gitsource"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// OpenRepos is the repositories cfg names, as the home's cache holds
// them: no network is touched, so a daemon serves at once what was
// fetched before.
func OpenRepos(h home.Dir, cfg config.Config, log *slog.Logger) *gitsource.Set {
	var repos []gitsource.Repo
	for _, r := range cfg.WorkflowRepos {
		repos = append(repos, gitsource.Repo{URL: r.URL, Ref: r.Ref, Path: r.Path})
	}
	return gitsource.New(repos, gitsource.Options{Dir: h.Path("repos"), Log: log})
}

// NewRegistry is the workflow sources of h under cfg: the bundled ones,
// the user's folder, cfg's folders and, read at the commits they serve,
// its repositories.
func NewRegistry(h home.Dir, cfg config.Config, repos *gitsource.Set) (*sources.Registry, error) {
	reg, err := sources.New(workflows.FS, WorkflowDirs(h, cfg))
	if err != nil {
		return nil, err
	}
	reg.SetRepositories(func() []sources.Repository { return repositoriesOf(repos.States()) })
	return reg, nil
}

func repositoriesOf(states []gitsource.State) []sources.Repository {
	out := make([]sources.Repository, len(states))
	for i, st := range states {
		out[i] = sources.Repository{URL: st.URL, Ref: st.Ref, Path: st.Path, Commit: st.Commit, Folder: st.Folder,
			SyncedAt: st.SyncedAt, Error: st.Error}
		for _, k := range st.Skipped {
			out[i].Skipped = append(out[i].Skipped, sources.SkippedFile{File: k.File, Reason: k.Reason})
		}
	}
	return out
}

// syncRepos fetches the repositories in the background: at start, then
// every workflowReposSyncMinutes (0: only those not fetched yet), calling
// changed when a repository moves to another commit. It never delays
// the daemon's start or an agent's call. stop ends it.
func syncRepos(repos *gitsource.Set, minutes int, changed func()) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	repos.Tidy()
	repos.Run(ctx, time.Duration(minutes)*time.Minute, changed)
	return cancel
}

// Sources lists the workflow sources and fetches the repositories on
// demand: `workrail sources`, its API and the Console's sources page.
type Sources struct {
	h       home.Dir
	cfg     config.Config
	repos   *gitsource.Set
	changed func() // a sync moved a repository
}

// NewSources is the sources of h under cfg; changed (or nil) hears of a
// sync that moved a repository.
func NewSources(h home.Dir, cfg config.Config, repos *gitsource.Set, changed func()) Sources {
	return Sources{h: h, cfg: cfg, repos: repos, changed: changed}
}

// List is every source: bundled, the user's folder, cfg's folders, then
// the repositories with their state.
func (a Sources) List() console.SourceList {
	l := console.SourceList{SyncMinutes: a.cfg.WorkflowReposSyncMinutes,
		Sources: []console.SourceState{{Kind: catalog.Bundled}}}
	for _, d := range WorkflowDirs(a.h, a.cfg) {
		l.Sources = append(l.Sources, console.SourceState{Kind: d.Kind, Path: d.Path})
	}
	for _, st := range a.repos.States() {
		s := console.SourceState{Kind: catalog.Repo, URL: st.URL, Ref: st.Ref, Path: st.Path, Commit: st.Commit, Folder: st.Folder,
			SyncedAt: st.SyncedAt, CheckedAt: st.CheckedAt, Error: st.Error}
		for _, k := range st.Skipped {
			s.Skipped = append(s.Skipped, console.SkippedFile{File: k.File, Reason: k.Reason})
		}
		l.Sources = append(l.Sources, s)
	}
	return l
}

// Sync fetches every repository now and lists the sources again.
func (a Sources) Sync(ctx context.Context) console.SourceList {
	if a.repos.Sync(ctx, false) && a.changed != nil {
		a.changed()
	}
	return a.List()
}

// sourcesAnswers is Sources as the daemon's /api/sources answers it.
type sourcesAnswers struct{ Sources }

// List is the console.SourceList.
func (a sourcesAnswers) List() jsontext.Value { return answerOf(a.Sources.List()) }

// Sync is the console.SourceList after a sync.
func (a sourcesAnswers) Sync(ctx context.Context) jsontext.Value {
	return answerOf(a.Sources.Sync(ctx))
}
