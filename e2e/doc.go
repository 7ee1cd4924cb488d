// Package e2e holds WorkRail's end-to-end tests. They build the real
// workrail binary once and drive it the way IDEs and agents do: through the
// stdio shim (`workrail mcp`), the daemon's unix socket and its loopback
// HTTP surface, with real processes that are started, killed and restarted.
//
// Run them with `go test ./e2e/`. `-short` skips the crash-safety loop;
// WORKRAIL_TIMINGS=1 enables TestShimTimings, which logs latency figures.
// `go test -run=NONE -bench=. ./e2e/` runs the benchmarks: a shim's spawn
// to tools/list, the memory of an idle daemon and shim, and a daemon's
// start on a database of 10,000 sessions (filled first, about 30 s).
package e2e
