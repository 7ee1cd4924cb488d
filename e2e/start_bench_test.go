package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// BenchmarkDaemonStart measures starting the daemon on a home whose
// database holds no sessions, then 10,000: from exec until its socket
// answers /health naming it (target at 10,000: 300 ms or less), median of
// at least 7. ns/op also counts the SIGTERM shutdown. It reports the
// file's size and the memory of the daemon once it answers.
func BenchmarkDaemonStart(b *testing.B) {
	for _, n := range []int{0, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			home := newHome(b)
			db := filepath.Join(home, "workrail.db")
			fillSessions(b, db, n)
			// The first start writes the keys and the token: a restart does not.
			startAnswering(b, home).terminate(b)
			medianOf(b, 7, func() time.Duration {
				t0 := time.Now()
				d := startAnswering(b, home)
				took := time.Since(t0)
				d.terminate(b)
				return took
			})
			d := startAnswering(b, home)
			reportMemory(b, "daemon", d.cmd.Process.Pid)
			d.terminate(b)
			fi, err := os.Stat(db)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(fi.Size())/(1<<20), "db-MiB")
		})
	}
}

// startAnswering runs `workrail daemon` on home and returns it once its
// socket answers /health with its pid.
func startAnswering(b *testing.B, home string) *daemonProc {
	b.Helper()
	d := &daemonProc{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(bin, "daemon", "--port", "0")
	d.cmd.Env = procEnv(home)
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	hc := socketHTTP(home)
	if err := d.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if healthPID(hc) == d.cmd.Process.Pid {
			return d
		}
		select {
		case <-d.done:
			b.Fatalf("daemon exited (%v); stderr:\n%s", d.err, d.stderr)
		case <-time.After(200 * time.Microsecond):
		}
	}
	d.kill()
	b.Fatalf("the daemon's socket did not answer /health within 30s; stderr:\n%s", d.stderr)
	return nil
}

// socketHTTP is an HTTP client of home's daemon socket that opens a new
// connection for every request, so it never talks to an earlier daemon.
func socketHTTP(home string) *http.Client {
	sock := filepath.Join(home, "daemon.sock")
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}
}

// healthPID is the pid /health names, 0 while nothing answers.
func healthPID(hc *http.Client) int {
	resp, err := hc.Get("http://workrail/health")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var id struct {
		Service string `json:"service"`
		PID     int    `json:"pid"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&id) != nil || id.Service != "workrail" {
		return 0
	}
	return id.PID
}

// fillSessions writes n sessions into a new database at path, each a run
// of wr.hello taken to its end with notes by the use cases over the real
// store, as agents leave them. Writers that write at once share commits.
func fillSessions(b *testing.B, path string, n int) {
	b.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Catalog(b, workflows.FS), workflow.Preferences{}, executetest.Clock, b.Logf)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range cap(errs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if err := helloRun(x, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// helloRun takes one run of wr.hello from start to end.
func helloRun(x *execute.Service, i int64) error {
	res := x.Start(context.Background(), []byte(`{"workflowId":"wr.hello"}`))
	for range len(helloSteps) + 1 {
		s, ok := res.(protocol.StepResult)
		if !ok {
			break
		}
		args := s.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: fmt.Sprintf("Session %d: did %s and noted what it asked for.", i, s.Pending.StepID)}
		raw, err := json.Marshal(args)
		if err != nil {
			return err
		}
		res = x.Continue(context.Background(), raw)
	}
	if res.ResultKind() != protocol.KindComplete {
		return fmt.Errorf("session %d ended on %s:\n%s", i, res.ResultKind(), res.RenderedText())
	}
	return nil
}
