// Package e2e holds WorkRail's end-to-end tests. They build the real
// workrail binary once and drive it the way IDEs and agents do: through the
// stdio shim (`workrail mcp`), the daemon's unix socket and its loopback
// HTTP surface, with real processes that are started, killed and restarted.
//
// Run them with `go test ./e2e/`. `-short` skips the crash-safety loop;
// WORKRAIL_TIMINGS=1 enables TestShimTimings, which logs latency figures.
// `go test -run=NONE -bench=. ./e2e/` runs the benchmarks: a shim's spawn
// to tools/list, the memory of an idle daemon and shim, continue_workflow
// round trips, an advance at step 5 and at step 500 of one session, a
// daemon's start on a database of 10,000 sessions (filled first, about
// 30 s), a daemon's start to its first list_workflows with 60 workflows
// of the TypeScript WorkRail's format in workflowPaths and with none, and
// 8 and 32 clients at once over the HTTP MCP endpoint for -throughput
// (30 s) each. `.ci/tasks bench` runs them with every other
// benchmark through e2e/perf, which writes docs/performance.md.
package e2e
