package sources

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// Repository is a git repository of workflows as its keeper
// (server/gitsource, through the wiring) reports it: the commit whose
// workflow files are in Folder, when it was fetched, and why the last
// fetch failed. Its folder is read like any other source's, after the
// configured folders, in workflowRepos order.
type Repository struct {
	URL, Ref string // the address without credentials, the ref followed
	// Path is the repository's folder of workflows; Skipped files are
	// named from the repository's top.
	Path   string
	Commit string // "" before the first fetch
	Folder string
	// SyncedAt is when a fetch last succeeded.
	SyncedAt time.Time
	Error    string
	Skipped  []SkippedFile
}

// SkippedFile is a file of a repository left out of its folder, and why.
type SkippedFile struct {
	File, Reason string
}

// SetRepositories hands the registry its repository sources: repos is
// asked on every call, so it must be cheap, and tells the folders and the
// state of each as they are now. Call it before the registry serves.
func (r *Registry) SetRepositories(repos func() []Repository) { r.repos = repos }

func (r *Registry) repositories() []Repository {
	if r.repos == nil {
		return nil
	}
	return r.repos()
}

// Source is the catalog source a repository's folder is read as.
func (p Repository) Source() catalog.Source {
	return catalog.Source{Kind: catalog.Repo, Path: p.Folder, Repo: catalog.RepoRef{URL: p.URL, Ref: p.Ref, Commit: p.Commit}}
}

// repoSources are the repositories' folders, in workflowRepos order; a
// repository fetched never is none.
func repoSources(repos []Repository) []catalog.Source {
	var out []catalog.Source
	for _, p := range repos {
		if p.Folder != "" {
			out = append(out, p.Source())
		}
	}
	return out
}

// skippedProblems are the files the fetches left out, as load problems
// of their repositories: a file over a workflow file's size is listed as
// it would be from a folder.
func skippedProblems(repos []Repository) []catalog.LoadProblem {
	var out []catalog.LoadProblem
	for _, p := range repos {
		for _, s := range p.Skipped {
			rel := strings.TrimPrefix(s.File, p.Path+"/")
			if p.Path == "" {
				rel = s.File
			}
			out = append(out, catalog.LoadProblem{Source: p.Source(), File: filepath.Join(p.Folder, filepath.FromSlash(rel)),
				Problems: workflow.Problems{{Message: fmt.Sprintf("left out of the copy fetched: %s %s", path.Clean(s.File), s.Reason)}}})
		}
	}
	return out
}

// repoWarnings say which repositories serve less than they name: one
// never fetched serves nothing, and one whose last fetch failed serves the
// commit fetched before.
func repoWarnings(repos []Repository) []catalog.SourceWarning {
	var out []catalog.SourceWarning
	for _, p := range repos {
		src := p.Source()
		switch {
		case p.Commit == "" && p.Error == "":
			out = append(out, catalog.SourceWarning{Code: catalog.SourceUnavailable, Source: src,
				Message: fmt.Sprintf("%s has not been fetched yet: its workflows are listed once the first fetch ends (`workrail sources` shows it)", p.URL)})
		case p.Commit == "":
			out = append(out, catalog.SourceWarning{Code: catalog.SourceUnavailable, Source: src,
				Message: fmt.Sprintf("%s could not be fetched, so none of its workflows are listed: %s", p.URL, p.Error)})
		case p.Error != "":
			out = append(out, catalog.SourceWarning{Code: catalog.SourceStale, Source: src, LastSynced: p.SyncedAt.UTC().Format(time.RFC3339),
				Message: fmt.Sprintf("%s could not be fetched; its workflows are those of commit %s, fetched %s: %s", p.URL, src.Repo.Short(), p.SyncedAt.UTC().Format(time.RFC3339), p.Error)})
		}
	}
	return out
}
