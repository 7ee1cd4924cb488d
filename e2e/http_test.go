package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var httpClient = &http.Client{Timeout: 30 * time.Second}

// ownerAuth is the header pair that opens home's Console, for get.
func ownerAuth(t testing.TB, home string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "auth.token"))
	if err != nil {
		t.Fatalf("auth.token: %v", err)
	}
	return "Authorization", "Bearer " + strings.TrimSpace(string(b))
}

func get(t testing.TB, u, host string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// postMCP posts one JSON-RPC message to /mcp and returns the status and the
// JSON-RPC messages of the answer (JSON or an event stream).
func postMCP(t *testing.T, base string, hdr map[string]string, msg string) (int, []map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("POST /mcp: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	var raws [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				raws = append(raws, []byte(strings.TrimSpace(d)))
			}
		}
	} else {
		raws = append(raws, body)
	}
	var out []map[string]any
	for _, r := range raws {
		var m map[string]any
		if err := json.Unmarshal(r, &m); err != nil {
			t.Fatalf("POST /mcp answered non-JSON (%v): %q", err, body)
		}
		out = append(out, m)
	}
	return resp.StatusCode, out
}

func TestHTTPSurface(t *testing.T) {
	home := newHome(t)
	base := startInProcess(t, home).Server().URL()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	tokenBytes, err := os.ReadFile(filepath.Join(home, "auth.token"))
	if err != nil {
		t.Fatalf("auth.token: %v", err)
	}
	token := strings.TrimSpace(string(tokenBytes))
	if len(token) < 32 {
		t.Fatalf("auth.token is %q: too short to be a secret", token)
	}
	if fi, err := os.Stat(filepath.Join(home, "auth.token")); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("auth.token mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Join(home, "daemon.sock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("daemon.sock: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}

	const htmx = "/static/htmx-2.0.11.min.js"
	t.Run("console", func(t *testing.T) {
		if code, _, body := get(t, base+"/", ""); code != http.StatusUnauthorized || !strings.Contains(body, "workrail console") {
			t.Fatalf("GET / without a credential = %d; want 401 and how to log in:\n%s", code, body)
		}
		code, hdr, body := get(t, base+"/", "", "Authorization", "Bearer "+token)
		if code != http.StatusOK {
			t.Fatalf("GET / = %d", code)
		}
		if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET / Content-Type %q, want text/html", ct)
		}
		for _, want := range []string{"WorkRail Console", htmx} {
			if !strings.Contains(body, want) {
				t.Errorf("GET / lacks %q", want)
			}
		}
		code, _, js := get(t, base+htmx, "")
		if code != http.StatusOK || !strings.Contains(js, "htmx") {
			t.Errorf("GET %s = %d, %d bytes, contains htmx: %v", htmx, code, len(js), strings.Contains(js, "htmx"))
		}
		if code, _, _ := get(t, base+"/static/nope.js", ""); code != http.StatusNotFound {
			t.Errorf("GET /static/nope.js = %d, want 404", code)
		}
	})

	t.Run("doctor", func(t *testing.T) {
		// Any web page can make the browser send a GET without an Origin:
		// the API answers only to the bearer.
		for _, auth := range []string{"", "Bearer wrong"} {
			if code, _, _ := get(t, base+"/api/doctor", "", "Authorization", auth); code != http.StatusUnauthorized {
				t.Fatalf("GET /api/doctor with %q = %d; want 401", auth, code)
			}
		}
		code, hdr, body := get(t, base+"/api/doctor", "", "Authorization", "bearer "+token)
		if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Fatalf("GET /api/doctor = %d %s", code, hdr.Get("Content-Type"))
		}
		var reports []any
		if err := json.Unmarshal([]byte(body), &reports); err != nil {
			t.Fatalf("/api/doctor is not a JSON array: %v: %s", err, body)
		}
	})

	t.Run("host check", func(t *testing.T) {
		for _, tc := range []struct {
			host string
			want int
		}{
			{"evil.example:" + port, http.StatusForbidden},
			{"evil.example", http.StatusForbidden},
			{"127.0.0.1:1", http.StatusForbidden},
			{"localhost:" + port, http.StatusOK},
			{"127.0.0.1:" + port, http.StatusOK},
		} {
			for _, path := range []string{"/", "/api/doctor", htmx} {
				if code, _, _ := get(t, base+path, tc.host, "Authorization", "Bearer "+token); code != tc.want {
					t.Errorf("GET %s with Host %s = %d, want %d", path, tc.host, code, tc.want)
				}
			}
		}
	})

	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`
	t.Run("mcp auth", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			hdr  map[string]string
			want int
		}{
			{"no bearer", nil, http.StatusUnauthorized},
			{"wrong bearer", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", len(token))}, http.StatusUnauthorized},
			{"token without scheme", map[string]string{"Authorization": token}, http.StatusUnauthorized},
			{"cross-origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
			{"bearer", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
		} {
			code, msgs := postMCP(t, base, tc.hdr, initialize)
			if code != tc.want {
				t.Errorf("%s: POST /mcp = %d, want %d", tc.name, code, tc.want)
				continue
			}
			if code != http.StatusOK {
				continue
			}
			if len(msgs) != 1 || str(msgs[0], "result", "serverInfo", "name") != "workrail" || str(msgs[0], "result", "protocolVersion") == "" {
				t.Errorf("%s: initialize answered %v", tc.name, msgs)
			}
		}
	})

	t.Run("event stream", func(t *testing.T) {
		// GET /mcp is the notification stream for a client that asks for
		// one (the daemon ends it at shutdown: server's
		// TestNotificationStream); anything else is refused.
		code, hdr, _ := get(t, base+"/mcp", "", "Authorization", "Bearer "+token)
		if code != http.StatusMethodNotAllowed || hdr.Get("Allow") != http.MethodPost {
			t.Fatalf("GET /mcp = %d, Allow %q; want 405, POST", code, hdr.Get("Allow"))
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET /mcp for an event stream = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	})

	t.Run("mcp tools over http", func(t *testing.T) {
		auth := map[string]string{"Authorization": "Bearer " + token}
		code, msgs := postMCP(t, base, auth, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.hello"}}}`)
		if code != http.StatusOK || len(msgs) != 1 {
			t.Fatalf("tools/call = %d %v", code, msgs)
		}
		sc, _ := dig(msgs[0], "result", "structuredContent").(map[string]any)
		if str(sc, "kind") != "step" || str(sc, "pending", "stepId") != "greet" {
			t.Fatalf("start_workflow over HTTP: %v", msgs[0])
		}
		code, msgs = postMCP(t, base, auth, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		if code != http.StatusOK || len(msgs) != 1 {
			t.Fatalf("tools/list over HTTP = %d %v (want 200 and one answer)", code, msgs)
		}
		tools, _ := dig(msgs[0], "result", "tools").([]any)
		if len(tools) != 6 { // the four core tools, checkpoint_workflow and resume_session
			t.Errorf("tools/list over HTTP: %v", msgs[0])
		}
	})
}
