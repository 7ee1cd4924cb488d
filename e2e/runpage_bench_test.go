package e2e

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
)

// BenchmarkRunPageFirstView measures the first view of a 1,000-node run
// after a daemon start, as a person has it: the run (the chat went back
// every 50 steps, as console's BenchmarkRunPage builds it) is in the
// database, the browser holds a login from an earlier daemon, and each
// sample starts the real daemon, then times GET of the run page (folded,
// with a node's panel, and its JSON) from the request sent to the last
// byte read, then the same GET again. Medians of at least 9; the
// daemon's start is not timed.
func BenchmarkRunPageFirstView(b *testing.B) {
	home := newHome(b)
	fillLongRun(b, filepath.Join(home, "workrail.db"), 1000)
	cookie, port := keptLogin(b, home)
	for _, page := range []struct{ name, path string }{
		{"folded", "/sessions/ses_1/runs/run_1"},
		{"with-panel", "/sessions/ses_1/runs/run_1?node=node_500"},
		{"json", "/sessions/ses_1/runs/run_1.json"},
	} {
		b.Run(page.name, func(b *testing.B) {
			var first, again []time.Duration
			sample := func() {
				d, err := launchDaemon(home, "--port", port)
				if err != nil {
					b.Fatal(err)
				}
				defer d.terminate(b)
				first = append(first, timedGet(b, d.info.URL+page.path, cookie))
				again = append(again, timedGet(b, d.info.URL+page.path, cookie))
			}
			for b.Loop() {
				sample()
			}
			for len(first) < 9 {
				sample()
			}
			b.ReportMetric(float64(quantile(first, 0.5).Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(quantile(again, 0.5).Microseconds())/1000, "again-median-ms")
			b.ReportMetric(float64(len(first)), "samples")
		})
	}
}

// timedGet is how long GET u with the login cookie c takes, from the
// request sent to the last byte of a 200 answer read.
func timedGet(b *testing.B, u string, c *http.Cookie) time.Duration {
	t0 := time.Now()
	code, _, _ := get(b, u, "", "Cookie", c.Name+"="+c.Value)
	took := time.Since(t0)
	if code != http.StatusOK {
		b.Fatalf("GET %s = %d", u, code)
	}
	return took
}

// fillLongRun writes one run of n nodes into the database at path.
func fillLongRun(b *testing.B, path string, n int) {
	b.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Long(b, n), workflow.Preferences{}, executetest.Clock, b.Logf)
	executetest.RewoundRun(b, x, n, nil)
}

// keptLogin logs in to a daemon on home and stops it: the cookie it
// returns is a login the next daemon on the same port keeps.
func keptLogin(b *testing.B, home string) (*http.Cookie, string) {
	d, err := launchDaemon(home)
	if err != nil {
		b.Fatal(err)
	}
	defer d.terminate(b)
	c, code := logIn(b, printedLink(b, home))
	if c == nil {
		b.Fatalf("a login link = %d, no cookie", code)
	}
	return c, strings.TrimPrefix(d.info.URL, "http://127.0.0.1:")
}
