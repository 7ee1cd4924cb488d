package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Hostile workflow files cannot take the daemon down. A cloned
// repository's .workrail/workflows is read when an IDE lists prompts for
// that folder, with no action from the user. These tests run the daemon
// under an address-space limit (ulimit -v) a gigabyte above what it
// reaches serving ordinary calls, put the two bombs of a hostile
// repository in a project folder, and have one agent list and start
// them while another agent works in another folder: the daemon stays up
// (the same process throughout), answers the other agent meanwhile, and
// lists the files as problems saying what they expand to.

// ordinaryPeak is the address space (VmPeak, in KiB) a daemon reaches
// serving ordinary calls on this machine: Go reserves address space, so
// a limit is set above it.
var ordinaryPeak = sync.OnceValues(func() (int, error) {
	home, err := os.MkdirTemp("/tmp", "wr-peak-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(home)
	d, err := launchDaemon(home)
	if err != nil {
		return 0, err
	}
	defer d.kill()
	s, err := spawnShim(home)
	if err != nil {
		return 0, err
	}
	defer s.c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"list_workflows", map[string]any{}}, {"start_workflow", map[string]any{"workflowId": "wr.hello"}}} {
		if _, err := tryCall(ctx, s.c, c.tool, c.args); err != nil {
			return 0, err
		}
	}
	return vmPeak(d.cmd.Process.Pid)
})

// vmPeak is pid's peak address space in KiB.
func vmPeak(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmPeak:"); ok {
			return strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	return 0, fmt.Errorf("no VmPeak in /proc/%d/status", pid)
}

// limitedDaemon starts a daemon on home whose address space is limited
// to a gigabyte more than an ordinary daemon reaches; shims find it on
// the socket.
func limitedDaemon(t *testing.T, home string) *daemonProc {
	t.Helper()
	peak, err := ordinaryPeak()
	if err != nil {
		t.Fatalf("measuring an ordinary daemon: %v", err)
	}
	limit := peak + 1<<20
	d, err := launchProcess(home, exec.Command("sh", "-c", `ulimit -v "$1" && exec "$0" daemon --port 0`, bin, strconv.Itoa(limit)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.terminate(t) })
	t.Logf("daemon pid %d under ulimit -v %d KiB (an ordinary daemon peaks at %d KiB)", d.cmd.Process.Pid, limit, peak)
	return d
}

// writeProject writes files into a project's .workrail/workflows.
func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	project := t.TempDir()
	dir := filepath.Join(project, ".workrail", "workflows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project
}

// otherAgent works through wr.hello in its own folder, again and again,
// until stop closes, and reports each call that was not answered.
func otherAgent(t *testing.T, home string, stop <-chan struct{}) (calls func() int, failures <-chan error) {
	t.Helper()
	c := startShim(t, home)
	errs := make(chan error, 100)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			r, err := tryCall(ctx, c, "start_workflow", map[string]any{"workflowId": "wr.hello"})
			if err == nil && r.kind() == "step" {
				args := map[string]any{"stateToken": str(r.S, "stateToken"), "ackToken": str(r.S, "ackToken"),
					"output": map[string]any{"notesMarkdown": "Greeted the user."}}
				r, err = tryCall(ctx, c, "continue_workflow", args)
			}
			cancel()
			if err == nil && r.kind() != "step" && r.kind() != "blocked" {
				err = fmt.Errorf("answered %s: %s", r.kind(), r.Text)
			}
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			n += 2
			mu.Unlock()
		}
	}()
	t.Cleanup(wg.Wait)
	return func() int { mu.Lock(); defer mu.Unlock(); return n }, errs
}

// stillUp fails the test unless the daemon d started is the one running.
func stillUp(t *testing.T, home string, d *daemonProc) {
	t.Helper()
	select {
	case <-d.done:
		t.Fatalf("the daemon died (%v); stderr:\n%.3000s", d.err, d.stderr)
	default:
	}
	if i := mustInfo(t, home); i.PID != d.cmd.Process.Pid {
		t.Fatalf("daemon.json names pid %d; the daemon started was %d", i.PID, d.cmd.Process.Pid)
	}
}

// problem is the load problem list_workflows reports for file, "" when
// it reports none.
func problem(r result, file string) string {
	problems, _ := r.S["problems"].([]any)
	for _, p := range problems {
		m, _ := p.(map[string]any)
		if filepath.Base(str(m, "file")) != file {
			continue
		}
		list, _ := m["problems"].([]any)
		var out []string
		for _, x := range list {
			q, _ := x.(map[string]any)
			out = append(out, fmt.Sprintf("%s %v:%v %s", str(q, "pointer"), q["line"], q["column"], str(q, "message")))
		}
		return strings.Join(out, "; ")
	}
	return ""
}

// listAsTheIDE lists the prompts a shim started in project sees, as an
// IDE does when it opens the folder, and the workflows with their load
// problems.
func listAsTheIDE(t *testing.T, home, project string) (prompts []string, list result) {
	t.Helper()
	s, err := spawnShimIn(project, bin, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("prompts/list: %v; shim stderr:\n%s", err, s.stderr)
	}
	for _, p := range res.Prompts {
		prompts = append(prompts, p.Name)
	}
	list, err = tryCall(ctx, s.c, "list_workflows", map[string]any{"workspacePath": project})
	if err != nil {
		t.Fatal(err)
	}
	return prompts, list
}

// A TypeScript-format routine with a 200 KB prompt, called from 3,000
// templateCall steps (530 KB of files): the build before the limits
// expanded it past the address space and died on the first list.
func TestExpansionBombLeavesTheDaemonUp(t *testing.T) {
	long := strings.Repeat("Check every file for {topic}. ", 200_000/30)
	calls := make([]string, 3000)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"id":"c%d","title":"Call","templateCall":{"templateId":"wr.templates.routine.big","args":{"topic":"x"}}}`, i)
	}
	project := writeProject(t, map[string]string{
		"routine-big.json": `{"id":"routine-big","name":"Big","version":"1.0.0","description":"A long routine.",
"steps":[{"id":"s","title":"Look at {topic}","prompt":"` + long + `"}]}`,
		"expand.json": `{"id":"expand","name":"Expand","version":"1.0.0","description":"Calls it 3,000 times.","steps":[
` + strings.Join(calls, ",\n") + `]}`,
		"good.json": `{"id":"project.good","name":"Good","version":"1","description":"An ordinary workflow.","steps":[{"id":"a","title":"A","prompt":"Do a."}]}`,
	})
	home := newHome(t)
	d := limitedDaemon(t, home)
	stop := make(chan struct{})
	answered, failures := otherAgent(t, home, stop)
	prompts, list := listAsTheIDE(t, home, project)
	close(stop)
	stillUp(t, home, d)
	select {
	case err := <-failures:
		t.Fatalf("the other agent's call: %v", err)
	default:
	}
	if !strings.Contains(strings.Join(prompts, " "), "project.good") || strings.Contains(strings.Join(prompts, " "), "expand") {
		t.Errorf("prompts %v; want project.good and not the bomb", prompts)
	}
	want := "/steps/1000 1002:1 expands to 3,000 steps once its routine calls are expanded, over the limit of 1,000"
	if got := problem(list, "expand.json"); !strings.HasPrefix(got, want) {
		t.Errorf("expand.json: %q; want %q", got, want)
	}
	c := startShim(t, home)
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "expand", "workspacePath": project})
	if str(r.S, "error", "code") != "WORKFLOW_NOT_FOUND" || !strings.Contains(r.Text, "expands to 3,000 steps") {
		t.Errorf("starting it: %.1000s", r.Text)
	}
	stillUp(t, home, d)
	if answered() == 0 {
		t.Error("the other agent's calls were not answered")
	}
	t.Logf("the other agent made %d calls meanwhile, all answered", answered())
}

// A prompt of 200,000 {{t}} (a 1 MB file) is a problem; one of 50,000
// (250 KB, within the limit of a prompt) started or advanced to with a
// 10,000-byte t would render 500 MB: the build before the limits died
// rendering it. Both are refused; the same calls with a smaller t go on.
func TestRenderBombLeavesTheDaemonUp(t *testing.T) {
	step := func(id, prompt string) string {
		return `{"id":"` + id + `","title":"` + strings.ToUpper(id) + `","prompt":"` + prompt + `"}`
	}
	workflow := func(id string, steps ...string) string {
		return `{"id":"` + id + `","name":"` + id + `","version":"1","description":"d",
"context":[{"name":"t","type":"string","description":"What to look at."}],"steps":[` + strings.Join(steps, ",") + `]}`
	}
	project := writeProject(t, map[string]string{
		"render.json":         workflow("project.render", step("look", strings.Repeat("{{t}}", 200_000))),
		"render-start.json":   workflow("project.render-start", step("look", strings.Repeat("{{t}}", 50_000))),
		"render-advance.json": workflow("project.render-advance", step("find", "Find it."), step("look", strings.Repeat("{{t}}", 50_000))),
	})
	home := newHome(t)
	d := limitedDaemon(t, home)
	stop := make(chan struct{})
	answered, failures := otherAgent(t, home, stop)
	_, list := listAsTheIDE(t, home, project)
	want := "/steps/0 2:84 step look: its title and prompt expand to 1,000,004 bytes, over the limit of 262,144 (256 KiB) for one prompt"
	if got := problem(list, "render.json"); !strings.HasPrefix(got, want) {
		t.Errorf("render.json: %q; want %q", got, want)
	}
	c := startShim(t, home)
	big := strings.Repeat("x", 10_000)
	tooLarge := func(what string, r result) {
		t.Helper()
		if r.kind() != "error" || str(r.S, "error", "code") != "PAYLOAD_TOO_LARGE" || !strings.Contains(r.Text, "would render to 500,000,") {
			t.Fatalf("%s: %.1000s", what, r.Text)
		}
	}
	start := func(id, topic string) result {
		return call(t, c, "start_workflow", map[string]any{"workflowId": id, "workspacePath": project, "context": map[string]any{"t": topic}})
	}
	tooLarge("start", start("project.render-start", big))
	mustKind(t, start("project.render-start", "x"), "step")
	first := start("project.render-advance", "x")
	mustKind(t, first, "step")
	ack := map[string]any{"stateToken": str(first.S, "stateToken"), "ackToken": str(first.S, "ackToken"),
		"context": map[string]any{"t": big}, "output": map[string]any{"notesMarkdown": "Found it."}}
	tooLarge("advance", call(t, c, "continue_workflow", ack))
	ack["context"] = map[string]any{"t": "y"}
	if next := call(t, c, "continue_workflow", ack); str(next.S, "pending", "stepId") != "look" {
		t.Fatalf("the same ackToken with a smaller t: %.500s", next.Text)
	}
	close(stop)
	stillUp(t, home, d)
	select {
	case err := <-failures:
		t.Fatalf("the other agent's call: %v", err)
	default:
	}
	if bytes.Contains([]byte(d.stderr.String()), []byte("panic")) {
		t.Errorf("daemon stderr:\n%.3000s", d.stderr)
	}
	if answered() == 0 {
		t.Error("the other agent's calls were not answered")
	}
	t.Logf("the other agent made %d calls meanwhile, all answered", answered())
}
