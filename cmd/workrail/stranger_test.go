package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/web"
)

// strangerEnv marks a run of this test binary as the other local user's
// client (see stranger); its value is the daemon's base URL.
const strangerEnv = "WORKRAIL_TEST_STRANGER"

// nobody is the other local user the stranger runs as.
const nobody = 65534

func TestMain(m *testing.M) {
	if base := os.Getenv(strangerEnv); base != "" {
		os.Exit(stranger(base, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// probe is one request the stranger sends, and what came back.
type probe struct {
	Method, Path, ContentType, Body string
	Header                          map[string]string
	Status                          int
	Answer                          string
	Err                             string
}

// strangerReport is everything the stranger tried.
type strangerReport struct {
	Probes []probe
	// Files are the home's secrets the stranger tried to read, each with
	// what happened ("" when it read it).
	Files map[string]string
}

// stranger is the other user's side: it reads the probes and the home's
// secret paths from stdin, sends every probe with no cookie and no token,
// tries to read each secret and the socket, and writes what happened.
func stranger(base string, in io.Reader, out io.Writer) int {
	var req struct {
		Probes  []probe
		Secrets []string
	}
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "stranger:", err)
		return 1
	}
	rep := strangerReport{Files: map[string]string{}}
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range req.Probes {
		r, err := http.NewRequest(p.Method, base+p.Path, strings.NewReader(p.Body))
		if err == nil {
			for k, v := range p.Header {
				r.Header.Set(k, v)
			}
			if p.ContentType != "" {
				r.Header.Set("Content-Type", p.ContentType)
			}
			var resp *http.Response
			if resp, err = hc.Do(r); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				p.Status, p.Answer = resp.StatusCode, string(b)
			}
		}
		if err != nil {
			p.Err = err.Error()
		}
		rep.Probes = append(rep.Probes, p)
	}
	for _, path := range req.Secrets {
		rep.Files[path] = ""
		if _, err := os.ReadFile(path); err != nil {
			rep.Files[path] = err.Error()
		}
		if strings.HasSuffix(path, ".sock") {
			if c, err := net.Dial("unix", path); err != nil {
				rep.Files[path] = err.Error()
			} else {
				c.Close()
				rep.Files[path] = ""
			}
		}
	}
	json.NewEncoder(out).Encode(rep)
	return 0
}

// TestStrangerGetsOnlyTheLoginPage is issue 24's attack, as another local
// user: against a real daemon with sessions and a workflow of the owner's,
// a process running as nobody, with no cookie and no token, asks for every
// route the daemon's router has (chi.Walk: a new route cannot be left
// out), path parameters filled with real ids, every static asset, and
// posts every form with the owner's real CSRF token (as if it leaked). Each
// page answers the login page, the API its 401, the assets their files;
// no answer holds the CSRF token, a session's id or title, the workflow's
// name or the home folder; the POSTs change nothing; the home's secrets
// and socket are out of reach.
func TestStrangerGetsOnlyTheLoginPage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("this test runs requests as user nobody (65534), which needs root to switch to; run it as root (CI does)")
	}
	h := home.Dir(t.TempDir())
	t.Setenv("WORKRAIL_HOME", string(h))
	if _, err := home.Resolve(); err != nil {
		t.Fatal(err)
	}
	const flowName, title = "Payroll sync of the owner", "Moved the quarterly payroll export"
	writeFile(t, h.Path("workflows/user.payroll.json"), `{"id": "user.payroll", "name": "`+flowName+`", "description": "private",
  "version": "1.0.0", "steps": [{"id": "one", "title": "One", "prompt": "Do it."}, {"id": "two", "title": "Two", "prompt": "Then this."}]}`)
	wr, err := daemon.New(daemon.Config{Home: h, Port: daemon.Port{Given: true}, Version: version, Snippets: snippets(executable(), h),
		Log: daemon.NewLog(h, false, io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wr.Close(t.Context()) })
	d := wr.Server()

	session, run := seedSession(t, h, "user.payroll", title)
	token := strings.TrimSpace(string(readFile(t, h.Path("auth.token"))))
	page := ownerGet(t, d.URL()+"/", token)
	csrf := regexp.MustCompile(`X-CSRF-Token&#34;:&#34;([0-9a-f]{64})`).FindStringSubmatch(page)
	if csrf == nil || !strings.Contains(page, title) {
		t.Fatalf("the owner's sessions page has no form token or lacks the session:\n%.2000s", page)
	}
	digest := ownerPreview(t, h, d.URL(), token, csrf[1], session)
	params := map[string]string{"{session}": session, "{run}": run, "{id}": "user.payroll", "{digest}": digest}

	var probes []probe
	err = chi.Walk(d.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		switch {
		case strings.HasSuffix(route, "/*"):
			if method == http.MethodGet {
				probes = append(probes, assetProbes(t, route)...)
			}
			return nil
		case method == http.MethodPost:
			probes = append(probes, postProbe(route, params, csrf[1]))
		default:
			probes = append(probes, probe{Method: method, Path: fill(route, params)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	probes = append(probes, probe{Method: "GET", Path: "/no-such-page"}, probe{Method: "GET", Path: "/health"},
		probe{Method: "GET", Path: "/sessions/" + session, Header: map[string]string{"HX-Request": "true"}},
		probe{Method: "GET", Path: "/login?token=" + strings.Repeat("A", 43)})
	if len(probes) < 40 {
		t.Fatalf("only %d probes: the walk missed the Console's routes", len(probes))
	}

	t.Logf("%d probes as user %d", len(probes), nobody)
	before := ownerState(t, h, d)
	rep := runStranger(t, d.URL(), probes, []string{h.Path("auth.token"), h.Path("keys.json"), h.DB(), h.DaemonLog(), h.Socket()})
	if len(rep.Probes) != len(probes) {
		t.Fatalf("the stranger answered %d probes of %d", len(rep.Probes), len(probes))
	}
	secrets := map[string]string{"the CSRF token": csrf[1], "the session's title": title, "the session's id": session,
		"the workflow's name": flowName, "the home folder": string(h), "auth.token": token}
	for _, p := range rep.Probes {
		what := p.Method + " " + p.Path
		if p.Err != "" {
			t.Errorf("%s: %s", what, p.Err)
			continue
		}
		switch {
		case strings.HasPrefix(p.Path, "/static/"):
			if p.Status != http.StatusOK {
				t.Errorf("%s = %d; want the asset", what, p.Status)
			}
		case p.Path == "/mcp" || strings.HasPrefix(p.Path, "/api/"):
			if p.Status != http.StatusUnauthorized {
				t.Errorf("%s = %d; want 401", what, p.Status)
			}
		default:
			if p.Status != http.StatusUnauthorized || !strings.Contains(p.Answer, "Log in to the Console") {
				t.Errorf("%s = %d; want the login page:\n%.500s", what, p.Status, p.Answer)
			}
		}
		for name, s := range secrets {
			if strings.Contains(p.Answer, s) {
				t.Errorf("%s: the answer holds %s", what, name)
			}
		}
	}
	for path, err := range rep.Files {
		if err == "" || !strings.Contains(err, "permission denied") {
			t.Errorf("the stranger reached %s (%q); want permission denied", path, err)
		}
	}
	if after := ownerState(t, h, d); !slices.Equal(after, before) {
		t.Errorf("the stranger's POSTs changed the owner's state:\nbefore %q\nafter  %q", before, after)
	}
	select {
	case a := <-d.Control():
		t.Errorf("the stranger had the daemon %s", a)
	default:
	}
}

// fill puts real ids in a route's parameters.
func fill(route string, params map[string]string) string {
	for k, v := range params {
		route = strings.ReplaceAll(route, k, v)
	}
	return route
}

// postProbe is a POST to route that would change something if it were
// let through: the owner's CSRF token in the header and the form, and
// fields that create, overwrite, fork or restart.
func postProbe(route string, params map[string]string, csrf string) probe {
	form := "csrf=" + csrf + "&name=planted&text=" + strings.Repeat("x", 40) + "&context=%7B%7D&action=save&kind=user"
	return probe{Method: http.MethodPost, Path: fill(route, params), Body: form, ContentType: "application/x-www-form-urlencoded",
		Header: map[string]string{"X-CSRF-Token": csrf}}
}

// assetProbes is a GET of every file served under route (a /* pattern).
func assetProbes(t *testing.T, route string) []probe {
	prefix := strings.TrimSuffix(route, "*")
	var out []probe
	err := fs.WalkDir(web.Static, strings.Trim(prefix, "/"), func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			out = append(out, probe{Method: http.MethodGet, Path: "/" + path})
		}
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no assets under %s: %v", route, err)
	}
	return out
}

// runStranger runs this test binary again as nobody, from a copy nobody
// can execute, and returns its report.
func runStranger(t *testing.T, base string, probes []probe, secrets []string) strangerReport {
	t.Helper()
	dir, err := os.MkdirTemp("", "wr-stranger-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "stranger")
	writeFile(t, exe, string(readFile(t, self)))
	if err := errors.Join(os.Chmod(dir, 0o755), os.Chmod(exe, 0o755)); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(map[string]any{"Probes": probes, "Secrets": secrets})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = []string{strangerEnv + "=" + base, "HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the stranger: %v\n%s", err, stderr.String())
	}
	var rep strangerReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("the stranger's report: %v\n%s", err, out.String())
	}
	return rep
}

// ownerState is what a POST that got through would change: every
// session's event count, the workflow files and config.json.
func ownerState(t *testing.T, h home.Dir, d *server.Daemon) []string {
	t.Helper()
	body, err := exchange(h, "GET", "/api/doctor", nil, 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	var reports []struct {
		SessionID string `json:"sessionId"`
		Health    struct {
			LastGoodIndex int `json:"lastGoodIndex"`
		} `json:"health"`
	}
	if err := json.Unmarshal(body, &reports); err != nil {
		t.Fatalf("doctor: %v: %s", err, body)
	}
	var state []string
	for _, r := range reports {
		state = append(state, fmt.Sprintf("session %s: %d events", r.SessionID, r.Health.LastGoodIndex))
	}
	for _, name := range []string{"workflows", "config.json"} {
		filepath.WalkDir(h.Path(name), func(path string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				state = append(state, fmt.Sprintf("%s %x", path, sha256.Sum256(readFile(t, path))))
			}
			return nil
		})
	}
	return append(state, "pid "+fmt.Sprint(d.Info().PID), "started "+d.Started().String())
}

// seedSession starts workflow over the socket, as a shim would, and
// advances it once with notes whose first line is title: the session's
// id and run.
func seedSession(t *testing.T, h home.Dir, workflow, title string) (session, run string) {
	t.Helper()
	r := mcpCall(t, h, "start_workflow", map[string]any{"workflowId": workflow})
	var sc struct {
		Session struct {
			SessionID string `json:"sessionId"`
			RunID     string `json:"runId"`
		} `json:"session"`
		NextCall struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"nextCall"`
	}
	if err := json.Unmarshal(r, &sc); err != nil || sc.Session.SessionID == "" || sc.NextCall.Arguments == nil {
		t.Fatalf("start_workflow: %v: %s", err, r)
	}
	args := sc.NextCall.Arguments
	args["output"] = map[string]any{"notesMarkdown": title + "\n\nand checked the totals."}
	mcpCall(t, h, "continue_workflow", args)
	return sc.Session.SessionID, sc.Session.RunID
}

// mcpCall calls a tool over the home's socket and returns its structured
// content.
func mcpCall(t *testing.T, h home.Dir, tool string, args map[string]any) json.RawMessage {
	t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest("POST", "http://workrail/mcp", bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := daemonClient(h, time.Minute).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				body = []byte(strings.TrimSpace(d))
			}
		}
	}
	var answer struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Result.IsError || answer.Result.StructuredContent == nil {
		t.Fatalf("%s: %v: %s", tool, err, body)
	}
	return answer.Result.StructuredContent
}

// ownerGet is a Console page as its owner reads it (the Bearer).
func ownerGet(t *testing.T, u, token string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s as the owner = %d:\n%s", u, resp.StatusCode, b)
	}
	return string(b)
}

// ownerPreview has the owner preview an import of session's bundle in the
// Console, and returns the preview's digest: a real {digest}.
func ownerPreview(t *testing.T, h home.Dir, base, token, csrf, session string) string {
	t.Helper()
	bundle, err := exchange(h, "GET", "/api/sessions/"+session+"/bundle", nil, 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", csrf)
	fw, _ := mw.CreateFormFile("bundle", "session.json")
	fw.Write(bundle)
	mw.Close()
	req, _ := http.NewRequest("POST", base+"/import", &body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`action="/import/([0-9a-f]{64})"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the owner's import preview = %d, no digest:\n%.2000s", resp.StatusCode, page)
	}
	return string(m[1])
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
