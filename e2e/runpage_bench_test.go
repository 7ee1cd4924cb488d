package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
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
	port := strconv.Itoa(freeTCPPort(b))
	cookie := keptLogin(b, home, port)
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
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Cookie", c.Name+"="+c.Value)
	t0 := time.Now()
	resp, err := noRedirects.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	took := time.Since(t0)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s = %d, %v", u, resp.StatusCode, err)
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
	ctx := context.Background()
	s := x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	var prev protocol.StepResult
	for i := 1; i < n; i++ {
		if i%50 == 0 && prev.StateToken != "" {
			re := x.Continue(ctx, []byte(`{"stateToken":"`+prev.StateToken+`"}`)).(protocol.StepResult)
			x.Continue(ctx, callArgs(b, re))
		}
		prev = s
		s = x.Continue(ctx, callArgs(b, s)).(protocol.StepResult)
	}
}

// callArgs is the arguments of s's next call, without output.
func callArgs(b *testing.B, s protocol.StepResult) []byte {
	a := s.NextCall.Arguments
	a.Output = nil
	raw, err := json.Marshal(a)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// freeTCPPort is a localhost port nothing listens on now.
func freeTCPPort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// keptLogin logs in to a daemon on home and port and stops it: the
// cookie it returns is a login the next daemon on that port keeps.
func keptLogin(b *testing.B, home, port string) *http.Cookie {
	d, err := launchDaemon(home, "--port", port)
	if err != nil {
		b.Fatal(err)
	}
	defer d.terminate(b)
	code, out, errOut := command(b, home, "console", "--print")
	link := strings.TrimSpace(out[strings.LastIndex(out, "\n  ")+1:])
	if code != 0 || !strings.Contains(link, "/login?token=") {
		b.Fatalf("console --print: exit %d:\n%s%s", code, out, errOut)
	}
	resp, err := noRedirects.Get(link)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if strings.HasPrefix(c.Name, "workrail_console_") {
			return c
		}
	}
	b.Fatalf("GET %s = %d, no login cookie", link, resp.StatusCode)
	return nil
}
