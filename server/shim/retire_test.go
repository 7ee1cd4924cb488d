package shim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/shim"
)

// oldDaemon is a daemon of some version on a home's socket that answers
// POST /retire with a fixed status, and on 200 stops serving, as a daemon
// that agreed to retire does.
type oldDaemon struct {
	retires atomic.Int32 // POST /retire requests
	posts   atomic.Int32 // POST /mcp requests
}

func serveOld(t *testing.T, h home.Dir, version string, retire int) *oldDaemon {
	t.Helper()
	o := &oldDaemon{}
	os.Remove(h.Socket())
	ln, err := net.Listen("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := &http.Server{Handler: mux}
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"service": "workrail", "home": string(h), "pid": os.Getpid(), "version": version})
	})
	mux.HandleFunc("POST /retire", func(w http.ResponseWriter, r *http.Request) {
		o.retires.Add(1)
		w.WriteHeader(retire)
		if retire == http.StatusOK {
			go srv.Shutdown(context.Background())
		}
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		o.posts.Add(1)
		echo("old").ServeHTTP(w, r)
	})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return o
}

// versionedShim is a shim of version whose log the test can read.
func versionedShim(t *testing.T, h home.Dir, st *starter, version string, out io.Writer) (*shim.Shim, *syncBuffer) {
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shim log:\n%s", logs)
		}
	})
	return shim.New(shim.Config{Home: h, Version: version, StartDaemon: st.StartDaemon, StartTimeout: 5 * time.Second,
		Log: log.New(logs, "shim: ", 0)}, out), logs
}

func daemonOf(t *testing.T, line string) string {
	t.Helper()
	r := mustReply(t, line)
	if r.Result == nil {
		t.Fatalf("reply %s is no result", line)
	}
	return r.Result.Daemon
}

// TestOlderDaemonIsReplacedOnlyWhenIdle: a shim of a newer version asks
// an older daemon to retire; if it agrees (idle), the shim starts its own
// and its calls go there; if it refuses (in use by another window), the
// shim says so once and uses it.
func TestOlderDaemonIsReplacedOnlyWhenIdle(t *testing.T) {
	cases := []struct {
		name       string
		retire     int
		wantDaemon string
		wantStarts int32
		wantLog    string
	}{
		{"idle", http.StatusOK, "started", 1, "retired for version 2.0.0"},
		{"in use", http.StatusConflict, "old", 0, "an older daemon (version 1.0.0) is in use by another window"},
		{"cannot retire", http.StatusNotFound, "old", 0, "answered 404 when asked to retire"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			old := serveOld(t, h, "1.0.0", tc.retire)
			st := startsFake(t, h, 0)
			var out bytes.Buffer
			s, logs := versionedShim(t, h, st, "2.0.0", &out)
			lines := run(t, s, &out, ping+"\n"+strings.Replace(ping, `"id":1`, `"id":2`, 1)+"\n")
			if len(lines) != 2 {
				t.Fatalf("got %q, want two replies", lines)
			}
			for _, l := range lines {
				if got := daemonOf(t, l); got != tc.wantDaemon {
					t.Errorf("answered by %q, want %q", got, tc.wantDaemon)
				}
			}
			if n := old.retires.Load(); n != 1 {
				t.Errorf("asked the old daemon to retire %d times, want once", n)
			}
			if n := st.calls.Load(); n != tc.wantStarts {
				t.Errorf("started %d daemons, want %d", n, tc.wantStarts)
			}
			if n := strings.Count(logs.String(), tc.wantLog); n != 1 {
				t.Errorf("log says %q %d times, want once:\n%s", tc.wantLog, n, logs)
			}
		})
	}
}

// TestDaemonNotOlderIsNeverAskedToRetire: the same version, a newer one,
// or one that is not a semantic version is used as it is.
func TestDaemonNotOlderIsNeverAskedToRetire(t *testing.T) {
	for _, v := range []string{"2.0.0", "2.0.1", "3.0.0-rc.1", "dev", ""} {
		t.Run(v, func(t *testing.T) {
			h := newHome(t)
			old := serveOld(t, h, v, http.StatusOK)
			st := startsFake(t, h, 0)
			var out bytes.Buffer
			s, logs := versionedShim(t, h, st, "2.0.0", &out)
			lines := run(t, s, &out, ping+"\n")
			if len(lines) != 1 || daemonOf(t, lines[0]) != "old" {
				t.Errorf("got %q, want the running daemon's reply", lines)
			}
			if n := old.retires.Load(); n != 0 {
				t.Errorf("asked a daemon of version %q to retire %d times", v, n)
			}
			if n := st.calls.Load(); n != 0 {
				t.Errorf("started %d daemons", n)
			}
			if logs.String() != "" {
				t.Errorf("logged %q", logs)
			}
		})
	}
}

// closedPipe is a stdout whose reader has gone: every write fails.
type closedPipe struct{ writes atomic.Int32 }

func (c *closedPipe) Write([]byte) (int, error) {
	c.writes.Add(1)
	return 0, syscall.EPIPE
}

// TestClosedStdoutEndsTheShim: when the IDE closes the shim's stdout but
// not its stdin, the first answer it cannot write ends Run, quietly,
// instead of reading and forwarding for nobody.
func TestClosedStdoutEndsTheShim(t *testing.T) {
	h := newHome(t)
	f := serve(t, h, "workrail", string(h), echo("running"))
	in, feed := io.Pipe()
	t.Cleanup(func() { feed.Close() })
	out := &closedPipe{}
	logs := &syncBuffer{}
	s := shim.New(shim.Config{Home: h, Version: "1.0.0", StartDaemon: cannotStart().StartDaemon, Log: log.New(logs, "", 0)}, out)
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), in) }()
	if _, err := io.WriteString(feed, ping+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return within 15s of stdout closing")
	}
	if n := out.writes.Load(); n != 1 {
		t.Errorf("%d writes to the closed stdout, want 1", n)
	}
	if f.posts.Load() != 1 {
		t.Errorf("%d messages forwarded, want 1", f.posts.Load())
	}
	if logs.String() != "" {
		t.Errorf("logged %q, want nothing", logs)
	}
}
