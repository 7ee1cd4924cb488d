package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/home"
)

// syncWait bounds `workrail sources sync`'s wait for the daemon: each
// fetch is bounded by itself, a few at once.
const syncWait = 15 * time.Minute

// runSources lists the workflow sources, each repository with the
// commit it serves, when it was fetched and why the last fetch failed;
// `sources sync` fetches the repositories first (exit 1 when one failed).
func runSources(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sources", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the sources as JSON (a failure as the error envelope)")
	pos, code, done := parseFlagsAnywhere(fs, args, stdout, stderr)
	if done {
		return code
	}
	sync := len(pos) == 1 && pos[0] == "sync"
	if len(pos) > 0 && !sync {
		fmt.Fprintf(stderr, "workrail sources: unexpected argument %q (the one command is sync)\n\n", pos[0])
		commandUsage(fs, stderr)
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		return printFailure(*asJSON, "sources", err, stdout, stderr)
	}
	l, err := sourcesOf(h, sync)
	if err != nil {
		return printFailure(*asJSON, "sources", err, stdout, stderr)
	}
	if *asJSON {
		printJSON(stdout, l)
	} else {
		printSources(stdout, l)
	}
	if sync && l.Failing() > 0 {
		return 1
	}
	return 0
}

// sourcesOf asks the daemon, or, with none running, reads the home's
// cache (and, to sync, fetches into it from this process).
func sourcesOf(h home.Dir, sync bool) (console.SourceList, error) {
	var l console.SourceList
	method, path := http.MethodGet, "/api/sources"
	if sync {
		method, path = http.MethodPost, "/api/sources/sync"
	}
	err := askDaemonWithin(h, syncWait, method, path, &l)
	if !errors.Is(err, errNotRunning) {
		return l, err
	}
	cfg, err := config.Load(h.Path("config.json"))
	if err != nil {
		return l, err
	}
	api := daemon.NewSources(h, cfg, daemon.OpenRepos(h, cfg, nil), nil)
	if sync {
		return api.Sync(context.Background()), nil
	}
	return api.List(), nil
}

// printSources is the table people read: a line a source, a failure's
// reason and the files a fetch left out below it.
func printSources(w io.Writer, l console.SourceList) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tSOURCE\tCOMMIT\tLAST FETCHED\tSTATE")
	var notes []string
	for _, s := range l.Sources {
		where, commit, fetched, state := s.Path, "-", "-", "-"
		if s.Kind == catalog.Bundled {
			where = "(in the binary)"
		}
		if s.Kind == catalog.Repo {
			where, state = s.URL, "ok"
			if s.Ref != "" {
				where += " (" + s.Ref + ")"
			}
			if s.Path != "" {
				where += " " + s.Path
			}
			if s.Commit != "" {
				commit = s.Short()
			}
			if !s.SyncedAt.IsZero() {
				fetched = s.SyncedAt.UTC().Format("2006-01-02 15:04 UTC")
			}
			switch {
			case s.Error != "" && s.Commit != "":
				state = "last fetch failed: serving the copy before"
			case s.Error != "":
				state = "not fetched"
			case s.Commit == "":
				state = "not fetched yet"
			}
			if s.Error != "" {
				notes = append(notes, fmt.Sprintf("%s: %s", s.URL, s.Error))
			}
			for _, k := range s.Skipped {
				notes = append(notes, fmt.Sprintf("%s: left out %s: %s", s.URL, k.File, k.Reason))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Kind, daemon.OrDash(where), commit, fetched, state)
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, "  "+n)
	}
	if n := l.Repositories(); n > 0 {
		every := fmt.Sprintf("every %d min", l.SyncMinutes)
		if l.SyncMinutes == 0 {
			every = "on no timer (workflowReposSyncMinutes is 0: at start only one not fetched yet)"
		}
		what := "the repository"
		if n > 1 {
			what = fmt.Sprintf("the %d repositories", n)
		}
		fmt.Fprintf(w, "The daemon fetches %s %s; `workrail sources sync` fetches now.\n", what, every)
	} else {
		fmt.Fprintln(w, "No repositories: add one with `workrail config set workflowRepos '[{\"url\": \"https://…\"}]'`.")
	}
}
