package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// killAfterStart stands on a daemon's socket between the shim and the
// daemon: it passes every request on, but the first start_workflow it
// passes it answers no one: once the daemon has answered it (the run is
// committed), it kills the daemon and closes the socket, as a daemon
// killed between its commit and its answer leaves things.
type killAfterStart struct {
	real   string // the daemon's socket, moved aside
	daemon *daemonProc
	srv    *http.Server
	once   sync.Once
	lost   chan []byte // the answer the daemon gave, which never arrived
}

func (k *killAfterStart) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://workrail"+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", k.real)
	}}}
	resp, err := client.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"start_workflow"`)) {
		killed := false
		k.once.Do(func() {
			b, _ := io.ReadAll(resp.Body)
			k.lost <- b
			k.daemon.cmd.Process.Kill()
			<-k.daemon.done
			go k.srv.Close() // the socket goes with it; this request is never answered
			killed = true
		})
		if killed {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
	}
	for h, v := range resp.Header {
		w.Header()[h] = v
	}
	w.WriteHeader(resp.StatusCode)
	if f, ok := w.(http.Flusher); ok && resp.Header.Get("Content-Type") == "text/event-stream" {
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			f.Flush()
			if err != nil {
				return
			}
		}
	}
	io.Copy(w, resp.Body)
}

// A start whose daemon was killed after its commit and before its answer
// reached the agent used to leave a session nobody continued: the shim
// said DAEMON_UNAVAILABLE, "nothing was recorded", and the agent started
// again (19 orphans in 17,533 starts under kills). The shim now sends it
// again, under the retry key it minted, to the daemon it starts again,
// which answers with the run it recorded: one session, continued with
// the tokens of the answer that was lost.
func TestAStartWhoseAnswerWasLostIsAnsweredWithItsRun(t *testing.T) {
	home := newHome(t)
	d, err := launchDaemon(home)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(home, "daemon.sock")
	k := &killAfterStart{real: filepath.Join(home, "real.sock"), daemon: d, lost: make(chan []byte, 1)}
	if err := os.Rename(sock, k.real); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	k.srv = &http.Server{Handler: k}
	go k.srv.Serve(ln)
	t.Cleanup(func() { k.srv.Close() })

	c := startShim(t, home)
	r := startHello(t, c)
	var answer []byte
	select {
	case answer = <-k.lost:
	default:
		t.Fatal("the start did not pass through the daemon that was killed")
	}
	var lost struct {
		Result struct {
			Structured map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &lost); err != nil {
		t.Fatalf("the lost answer %q: %v", answer, err)
	}
	for _, f := range []string{"stateToken", "ackToken"} {
		if got, want := str(r.S, f), str(lost.Result.Structured, f); got == "" || got != want {
			t.Errorf("%s %q; want the lost answer's %q", f, got, want)
		}
	}
	if s := sessionsOf(t, home); len(s) != 1 || str(r.S, "session", "sessionId") != "ses_1" {
		t.Fatalf("sessions after a start whose answer was lost: %v; want ses_1 alone", s)
	}
	if next := advance(t, c, r, "Greeted the user."); next.kind() != "step" && next.kind() != "complete" {
		t.Fatalf("the run the lost start made does not continue: %s", next.Text)
	}
}
