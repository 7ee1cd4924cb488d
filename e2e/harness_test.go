package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	homedir "github.com/workrail/workrail/server/home"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// bin is the workrail binary TestMain builds once for the whole package.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "workrail-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "workrail")
	build := exec.Command("go", "build", "-o", bin, "./cmd/workrail")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build workrail:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ---- home folders and processes -------------------------------------------

// newHome returns a fresh WorkRail home. Its cleanup kills every daemon
// still running on it (including ones a shim launched detached), before the
// folder itself is removed.
func newHome(t testing.TB) string {
	t.Helper()
	h := t.TempDir()
	// A unix socket path must fit in sun_path (108 bytes on Linux).
	if len(h)+len("/daemon.sock") > 100 {
		d, err := os.MkdirTemp("/tmp", "wr-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		h = d
	}
	t.Cleanup(func() { killHomeDaemons(t, h) })
	return h
}

// procEnv is the environment of every process the tests start for home.
func procEnv(home string) []string {
	return append(os.Environ(), "WORKRAIL_HOME="+home, "WORKRAIL_PORT=0")
}

// daemonInfo is daemon.json.
type daemonInfo struct {
	PID       int    `json:"pid"`
	URL       string `json:"url"`
	Socket    string `json:"socket"`
	Version   string `json:"version"`
	StartedAt string `json:"startedAt"`
}

func readInfo(home string) (daemonInfo, error) {
	var i daemonInfo
	b, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil {
		return i, err
	}
	return i, json.Unmarshal(b, &i)
}

func mustInfo(t testing.TB, home string) daemonInfo {
	t.Helper()
	i, err := readInfo(home)
	if err != nil {
		t.Fatalf("daemon.json: %v", err)
	}
	return i
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// Fields after the parenthesised command name: state is the first.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+2 {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

func waitGone(t testing.TB, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still alive after %s", pid, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitReaped waits until pid no longer exists at all, not even as a zombie.
func waitReaped(t testing.TB, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d was not reaped within %s", pid, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// daemonPIDs lists the live `<bin> daemon` processes whose WORKRAIL_HOME is
// home: only processes this test binary's workrail started can match.
func daemonPIDs(home string) []int { return commandPIDs(home, "daemon") }

// commandPIDs lists the live `<bin> command` processes whose WORKRAIL_HOME
// is home.
func commandPIDs(home, command string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
		if len(args) < 2 || args[0] != bin || args[1] != command {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		var h string
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "WORKRAIL_HOME="); ok {
				h = v // the last one wins, as in exec
			}
		}
		if h == home && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killHomeDaemons SIGKILLs every daemon of home that is still running.
func killHomeDaemons(t testing.TB, home string) {
	pids := daemonPIDs(home)
	if i, err := readInfo(home); err == nil && alive(i.PID) && isOurDaemon(i.PID) && !containsInt(pids, i.PID) {
		pids = append(pids, i.PID)
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, pid := range pids {
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("cleanup: daemon pid %d did not die", pid)
		}
	}
}

func isOurDaemon(pid int) bool {
	cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.HasPrefix(string(cl), bin+"\x00daemon")
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// syncBuffer is a bytes.Buffer safe for a process writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemonProc is a `workrail daemon` the test started as its child.
type daemonProc struct {
	cmd    *exec.Cmd
	info   daemonInfo
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan struct{}
	err    error // cmd.Wait's result, set before done closes
}

// exitCode waits up to within for the process to exit.
func (d *daemonProc) exitCode(within time.Duration) (int, bool) {
	select {
	case <-d.done:
	case <-time.After(within):
		return 0, false
	}
	var ee *exec.ExitError
	if errors.As(d.err, &ee) {
		return ee.ExitCode(), true
	}
	if d.err != nil {
		return -1, true
	}
	return 0, true
}

// startDaemon runs `workrail daemon --port 0` on home and waits until it
// has written daemon.json naming itself. Cleanup: SIGTERM and wait.
func startDaemon(t testing.TB, home string) *daemonProc {
	t.Helper()
	d, err := launchDaemon(home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.terminate(t) })
	return d
}

// startInProcess builds a daemon on home in this process, on a free
// port, with the assembly `workrail daemon` uses (cmd/workrail/daemon):
// for tests of what the daemon serves rather than of its process.
// Cleanup: Close.
func startInProcess(t testing.TB, home string) *daemon.Daemon {
	t.Helper()
	h := homedir.Dir(home)
	if err := os.MkdirAll(h.Path("logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(daemon.Config{Home: h, Port: daemon.Port{Given: true}, Version: "e2e", Log: daemon.NewLog(h, false, io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(context.Background()); err != nil {
			t.Errorf("closing the daemon: %v", err)
		}
	})
	return d
}

// launchDaemon runs `workrail daemon --port 0` with args on home.
func launchDaemon(home string, args ...string) (*daemonProc, error) {
	return launchCommand(home, append([]string{"daemon", "--port", "0"}, args...)...)
}

// launchCommand runs `workrail ARGS…` (a daemon) on home, as launchDaemon.
func launchCommand(home string, args ...string) (*daemonProc, error) {
	return launchProcess(home, exec.Command(bin, args...))
}

// launchProcess runs cmd, which execs a workrail daemon on home, and
// waits until that daemon has written daemon.json naming it.
func launchProcess(home string, cmd *exec.Cmd) (*daemonProc, error) {
	d := &daemonProc{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{}), cmd: cmd}
	d.cmd.Env = procEnv(home)
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if i, err := readInfo(home); err == nil && i.PID == d.cmd.Process.Pid {
			d.info = i
			return d, nil
		}
		select {
		case <-d.done:
			return nil, fmt.Errorf("daemon exited before writing daemon.json (%v); stderr:\n%s", d.err, d.stderr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.cmd.Process.Kill()
			<-d.done
			return nil, fmt.Errorf("daemon did not write daemon.json within 15s; stderr:\n%s", d.stderr)
		}
	}
}

func (d *daemonProc) terminate(t testing.TB) {
	select {
	case <-d.done:
		return
	default:
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	if _, ok := d.exitCode(10 * time.Second); !ok {
		t.Errorf("daemon pid %d ignored SIGTERM for 10s; killing it", d.cmd.Process.Pid)
		d.cmd.Process.Kill()
		<-d.done
	}
}

func (d *daemonProc) kill() {
	d.cmd.Process.Kill()
	<-d.done
}

// stopDaemon SIGKILLs the daemon named in home's daemon.json and waits
// until it is gone. It returns the pid it killed.
func stopDaemon(t testing.TB, home string) int {
	t.Helper()
	i := mustInfo(t, home)
	if !alive(i.PID) || !isOurDaemon(i.PID) {
		t.Fatalf("daemon.json names pid %d, which is not a live workrail daemon", i.PID)
	}
	if err := syscall.Kill(i.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", i.PID, err)
	}
	waitGone(t, i.PID, 10*time.Second)
	waitUnanswered(t, home, 10*time.Second)
	return i.PID
}

// waitUnanswered waits until nothing listens on home's socket. A killed
// daemon's main thread shows as a zombie while its other threads are
// still exiting and its listener still takes connections, which it then
// resets: a command run in that window meets a daemon that is neither
// running nor gone.
func waitUnanswered(t testing.TB, home string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		c, err := net.Dial("unix", filepath.Join(home, "daemon.sock"))
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still answers %s after its daemon was killed", filepath.Join(home, "daemon.sock"), within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ---- MCP clients ----------------------------------------------------------

type shim struct {
	c      *client.Client
	init   *mcp.InitializeResult
	stderr *syncBuffer
}

// spawnShim launches `workrail mcp` on home and initializes it.
func spawnShim(home string) (*shim, error) { return spawnShimOf(bin, home) }

// spawnShimOf is spawnShim for the workrail binary exe, with env added to
// (and overriding) the shim's environment. The shim runs in home, as an
// IDE runs it in a workspace: not in this repository, whose git state
// the daemon would observe.
func spawnShimOf(exe, home string, env ...string) (*shim, error) {
	return spawnShimIn(home, exe, home, env...)
}

// spawnShimIn is spawnShimOf with the shim's working folder dir.
func spawnShimIn(dir, exe, home string, env ...string) (*shim, error) {
	// Pin the classic initialize handshake: it is what IDEs send today.
	return spawnShimAt(mcp.LATEST_LEGACY_PROTOCOL_VERSION, dir, exe, home, env...)
}

// spawnShimAt is spawnShimIn for a client that asks for protocol version
// (2026-07-28 and later negotiate with server/discover, earlier ones
// with initialize).
func spawnShimAt(version, dir, exe, home string, env ...string) (*shim, error) {
	s := &shim{stderr: &syncBuffer{}}
	inDir := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env, cmd.Dir = append(os.Environ(), env...), dir
		return cmd, nil
	}
	c, err := client.NewStdioMCPClientWithOptions(exe, append([]string{"WORKRAIL_HOME=" + home, "WORKRAIL_PORT=0"}, env...), []string{"mcp"},
		transport.WithCommandStderrWriter(s.stderr), transport.WithCommandFunc(inDir))
	if err != nil {
		return nil, err
	}
	s.c = c
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "workrail-e2e", Version: "1"}
	s.init, err = c.Initialize(ctx, req)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w; shim stderr:\n%s", err, s.stderr)
	}
	return s, nil
}

// startShim returns an initialized client of a `workrail mcp` on home,
// closed at cleanup.
func startShim(t testing.TB, home string) *client.Client {
	t.Helper()
	return startShimFull(t, home).c
}

func startShimFull(t testing.TB, home string) *shim {
	t.Helper()
	s, err := spawnShim(home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.c.Close()
		if t.Failed() {
			t.Logf("shim stderr:\n%s", s.stderr)
		}
	})
	return s
}

// result is one tool result as the client saw it.
type result struct {
	S       map[string]any // structuredContent
	Raw     []byte         // structuredContent bytes as received
	Text    string         // content[0].text
	IsError bool
}

func (r result) kind() string { return str(r.S, "kind") }

// tryCall calls a tool and checks the result's envelope: content[0] is
// text and equals structuredContent.text.
func tryCall(ctx context.Context, c *client.Client, name string, args map[string]any) (result, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return result{}, err
	}
	r := result{Raw: res.RawStructuredContent, IsError: res.IsError}
	if len(r.Raw) == 0 {
		return r, fmt.Errorf("%s: no structuredContent", name)
	}
	if err := json.Unmarshal(r.Raw, &r.S); err != nil {
		return r, fmt.Errorf("%s: structuredContent: %w", name, err)
	}
	if len(res.Content) == 0 {
		return r, fmt.Errorf("%s: no content", name)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		return r, fmt.Errorf("%s: content[0] is %T, not text", name, res.Content[0])
	}
	r.Text = tc.Text
	if st, _ := r.S["text"].(string); st != r.Text {
		return r, fmt.Errorf("%s: content[0].text differs from structuredContent.text:\n%q\n%q", name, r.Text, st)
	}
	if r.Text == "" {
		return r, fmt.Errorf("%s: empty text", name)
	}
	if want := r.kind() == "error"; r.IsError != want {
		return r, fmt.Errorf("%s: isError %v for kind %q", name, r.IsError, r.kind())
	}
	return r, nil
}

func call(t testing.TB, c *client.Client, name string, args map[string]any) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := tryCall(ctx, c, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return r
}

// callTool is call returning the structured content and the text.
func callTool(t testing.TB, c *client.Client, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	r := call(t, c, name, args)
	return r.S, r.Text
}

// ---- result helpers -------------------------------------------------------

// str digs a string out of nested maps ("" when absent).
func str(m map[string]any, path ...string) string {
	v, _ := dig(m, path...).(string)
	return v
}

func dig(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func mustKind(t testing.TB, r result, kind string) {
	t.Helper()
	if r.kind() != kind {
		t.Fatalf("kind = %q, want %q; text:\n%s", r.kind(), kind, r.Text)
	}
}

func startHello(t testing.TB, c *client.Client) result {
	t.Helper()
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "wr.hello"})
	mustKind(t, r, "step")
	if got := str(r.S, "pending", "stepId"); got != "greet" {
		t.Fatalf("first step = %q, want greet", got)
	}
	return r
}

// nextArgs returns the nextCall arguments of a step result, with notes.
func nextArgs(t testing.TB, r result, notes string) map[string]any {
	t.Helper()
	if got := str(r.S, "nextCall", "tool"); got != "continue_workflow" {
		t.Fatalf("nextCall.tool = %q, want continue_workflow", got)
	}
	args, ok := dig(r.S, "nextCall", "arguments").(map[string]any)
	if !ok {
		t.Fatalf("nextCall.arguments missing: %s", r.Raw)
	}
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	out["output"] = map[string]any{"notesMarkdown": notes}
	return out
}

// advance follows nextCall with notes.
func advance(t testing.TB, c *client.Client, r result, notes string) result {
	t.Helper()
	return call(t, c, "continue_workflow", nextArgs(t, r, notes))
}

func rehydrate(t testing.TB, c *client.Client, stateToken string) result {
	t.Helper()
	return call(t, c, "continue_workflow", map[string]any{"stateToken": stateToken})
}

// ---- doctor ---------------------------------------------------------------

type doctorReport struct {
	Sessions []struct {
		SessionID string `json:"sessionId"`
		Health    struct {
			Status        string `json:"status"`
			FirstBadIndex int    `json:"firstBadIndex"`
			LastGoodIndex int    `json:"lastGoodIndex"`
			Reason        string `json:"reason"`
		} `json:"health"`
	} `json:"sessions"`
	Structure []string `json:"structure"`
	Healthy   int      `json:"healthy"`
	Total     int      `json:"total"`
}

// events maps each session id to its event count (lastGoodIndex).
func (d doctorReport) events() map[string]int {
	m := map[string]int{}
	for _, s := range d.Sessions {
		m[s.SessionID] = s.Health.LastGoodIndex
	}
	return m
}

// runDoctor runs `workrail doctor --json` on home.
func runDoctor(t testing.TB, home string) (doctorReport, int, string) {
	t.Helper()
	var rep doctorReport
	code, out, stderr := command(t, home, "doctor", "--json")
	if out != "" {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("doctor --json printed non-JSON (%v):\n%s", err, out)
		}
	}
	return rep, code, stderr
}

// command runs `workrail ARGS…` on home: exit code, stdout, stderr.
func command(t testing.TB, home string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = procEnv(home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Fatalf("workrail %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}

// healthyDoctor runs doctor and requires exit 0 with every session healthy.
func healthyDoctor(t testing.TB, home string) doctorReport {
	t.Helper()
	rep, code, stderr := runDoctor(t, home)
	if code != 0 {
		t.Fatalf("doctor exit %d; stderr: %s; report: %+v", code, stderr, rep)
	}
	for _, s := range rep.Sessions {
		if s.Health.Status != "healthy" {
			t.Fatalf("session %s is %s: %s", s.SessionID, s.Health.Status, s.Health.Reason)
		}
	}
	if rep.Healthy != rep.Total || rep.Total != len(rep.Sessions) {
		t.Fatalf("doctor: healthy %d, total %d, %d sessions", rep.Healthy, rep.Total, len(rep.Sessions))
	}
	return rep
}

// sessionEvents is the event count doctor reports for one session.
func sessionEvents(t testing.TB, home, session string) int {
	t.Helper()
	n, ok := healthyDoctor(t, home).events()[session]
	if !ok {
		t.Fatalf("doctor does not list session %s", session)
	}
	return n
}

// consoleAddr is the Console's address in a result's link to its run.
var consoleAddr = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/sessions/`)

// sameAnswer compares two answers byte for byte but for the Console's
// address in their run link: a replay repeats its answer exactly while
// the Console listens where it did, and a daemon these tests restart on
// port 0 listens elsewhere, so its links follow it.
func sameAnswer(a, b []byte) bool {
	mask := []byte("http://console/sessions/")
	return bytes.Equal(consoleAddr.ReplaceAll(a, mask), consoleAddr.ReplaceAll(b, mask))
}

// ---- filling a next call ----------------------------------------------------

// fillCall returns the arguments of r's nextCall with the place of each of
// its fills set to answer(fill), where a fill is {pointer, asks,
// required, options}; nothing else is changed.
func fillCall(t testing.TB, r result, answer func(fill map[string]any) any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(dig(r.S, "nextCall", "arguments"))
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		t.Fatalf("nextCall.arguments: %v: %s", err, r.Raw)
	}
	for _, f := range asList(r.S["fills"]) {
		slot := f.(map[string]any)
		setPointer(t, args, str(slot, "pointer"), answer(slot))
	}
	return args
}

// setPointer sets the value at a JSON pointer of doc (RFC 6901; every
// member on the way exists).
func setPointer(t testing.TB, doc map[string]any, ptr string, v any) {
	t.Helper()
	parts := strings.Split(ptr, "/")[1:]
	var cur any = doc
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		last := i == len(parts)-1
		switch n := cur.(type) {
		case map[string]any:
			if last {
				n[p] = v
				return
			}
			cur = n[p]
		case []any:
			k, err := strconv.Atoi(p)
			if err != nil || k >= len(n) {
				t.Fatalf("pointer %s: no element %s", ptr, p)
			}
			if last {
				n[k] = v
				return
			}
			cur = n[k]
		default:
			t.Fatalf("pointer %s: %s is not in %T", ptr, p, cur)
		}
	}
}

// plainAnswer is what a deciding agent writes where it is free to: the
// first option, a number or a boolean where the slot asks one, else text.
func plainAnswer(fill map[string]any, text string) any {
	asks := str(fill, "asks")
	switch {
	case len(asList(fill["options"])) > 0:
		return asList(fill["options"])[0]
	case strings.HasSuffix(asks, "(a number)"):
		return 1
	case strings.HasSuffix(asks, "true or false"):
		return true
	}
	return text
}
