// Package console serves the browser Console: server-rendered templ pages
// over projections of the store, made live with htmx. It reads; it never
// becomes a second execution path.
//
// One page or action is one .templ file and the Go beside it under the
// same name (x.templ, x.go): the Go reads the page's view model and
// handles its routes, the template draws it. templ writes x_templ.go
// from x.templ (`go tool templ generate`; never edit it). Routes are
// mounted in console.go.
//
// The pages:
//
//	/                         sessions.go, sessions.templ (with the daemon's status)
//	/sessions/{s}             session.go, session.templ; session_notes.go and
//	                          .templ (the notes grouped by run and branch);
//	                          timeline.go (the lanes of its runs)
//	/sessions/{s}/events      events.go, events.templ
//	/sessions/{s}/runs/{r}    the run page: run.templ (header, needs, rows,
//	                          times and restart links) and run_panel.templ
//	                          (the open row); run_show.go (the request, the
//	                          view and its links, graph.svg and {r}.json),
//	                          run_rows.go (a row and its badges), run_panel.go
//	                          (the open row's attempts, outputs, gaps and
//	                          checkpoints), run_needs.go (what the run needs
//	                          now), run_words.go (branches, blockers and gaps
//	                          in words); the drawing is package console/lanes
//	…/runs/{r}/fork, handoff, restart
//	                          fork.go, fork.templ: the run's actions
//	/gaps                     gaps.go, gaps.templ
//	/workflows                workflows.go, workflows.templ
//	/workflows/{id}           workflow.go, workflow.templ; workflow_about.go
//	                          (what it says about itself, its contracts)
//	/workflows/…/edit, new    editor.go, editor.templ
//	/sources                  sources.go, sources.templ
//	/search                   search.go, search.templ
//	/import, …/bundle         share.go, share.templ
//	/config                   settings.go, settings.templ
//	/logout                   logins.go, logins.templ
//
// Shared by the pages: layout.templ and layout.go (every page's frame, the
// change poller, live panels, the error page; errors.go renders it);
// components.templ and components.go (pager, corrections, artifacts,
// drift, damage, diff; their Go is in pager.go, corrections.go,
// artifacts.go, drift.go); when.templ and when.go (times); errorlog.templ
// (the daemon's last errors). Caches of what pages read: folds.go,
// projections.go, pinned.go. Words every page uses: words.go, clip.go.
// csrf.go guards every form and htmx request.
package console
