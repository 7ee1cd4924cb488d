package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/server/home"
)

// Every command answers --help and -h with its own usage on stdout and
// exit 0; the top level answers them, --version and help COMMAND too; a
// bad flag or an unknown command is exit 2 with the reason on stderr.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args           string
		code           int
		stdout, stderr string // substrings; "" for none expected
	}{
		{"--help", 0, "Usage:\n  workrail [daemon]", ""},
		{"-h", 0, "WORKRAIL_HOME", ""},
		{"help", 0, "WORKRAIL_PORT", ""},
		{"--version", 0, "workrail " + version + "\n", ""},
		{"version", 0, "workrail " + version + "\n", ""},
		{"version --help", 0, "Usage: workrail version", ""},
		{"daemon --help", 0, "Usage: workrail [daemon] [--port N]\n\nRun the daemon", ""},
		{"daemon -h", 0, "-port int", ""},
		{"daemon -help", 0, "-verbose", ""},
		{"mcp --help", 0, "Usage: workrail mcp\n", ""},
		{"console --help", 0, "Usage: workrail console [--print | --logout-all]\n\nOpen the Console in your browser", ""},
		{"console now", 2, "", `unexpected argument "now"`},
		{"mcp -h", 0, "Usage: workrail mcp\n", ""},
		{"validate --help", 0, "-bundled", ""},
		{"doctor --help", 0, "-salvage FILE", ""},
		{"keys --help", 0, "Usage: workrail keys rotate", ""},
		{"help validate", 0, "Usage: workrail validate", ""},
		{"status --help", 0, "Usage: workrail status [--json]", ""},
		{"stop -h", 0, "Usage: workrail stop", ""},
		{"restart --help", 0, "Restart the daemon in place", ""},
		{"config --help", 0, "set KEY VALUE", ""},
		{"config sett a b", 2, "", `unknown action "sett"; did you mean "set"?`},
		{"config get", 2, "", `"get" takes 1 argument(s)`},
		{"help valdate", 2, "", `unknown command "valdate"; did you mean "validate"?`},
		{"valdate x.json", 2, "", `did you mean "validate"?`},
		{"daemon --bogus", 2, "", "flag provided but not defined: -bogus"},
		{"daemon extra", 2, "", `unexpected argument "extra"`},
		{"mcp stray", 2, "", "takes no arguments"},
		{"validate", 2, "", "name at least one file"},
		{"keys spin", 2, "", "the only action is rotate"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(strings.Fields(tc.args), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d; want %d\nstdout: %s\nstderr: %s", code, tc.code, &stdout, &stderr)
			}
			for _, c := range []struct {
				name, got, want string
			}{{"stdout", stdout.String(), tc.stdout}, {"stderr", stderr.String(), tc.stderr}} {
				if c.want == "" && c.got != "" {
					t.Errorf("unexpected %s:\n%s", c.name, c.got)
				}
				if !strings.Contains(c.got, c.want) {
					t.Errorf("%s lacks %q:\n%s", c.name, c.want, c.got)
				}
			}
		})
	}
}

// The IDE snippets name WORKRAIL_HOME exactly when the home is not the
// default one, and stay valid JSON and shell whatever the paths hold.
func TestSnippetsCarryANonDefaultHome(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/home/dev/.local/share")
	for _, tc := range []struct {
		name, exe string
		home      home.Dir
		env       bool
	}{
		{"default home", "/usr/local/bin/workrail", "/home/dev/.local/share/workrail", false},
		{"another home", "/usr/local/bin/workrail", "/tmp/wr-home", true},
		{"a path with a space and a quote", "/opt/my tools/workrail", `/tmp/it's "here"`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snippets(tc.exe, tc.home)
			claude := s[0].Text
			if got := strings.Contains(claude, "-e WORKRAIL_HOME="); got != tc.env {
				t.Errorf("Claude Code snippet %q: WORKRAIL_HOME given %v, want %v", claude, got, tc.env)
			}
			for _, sn := range s[1:] {
				var v map[string]map[string]struct {
					Command string            `json:"command"`
					Env     map[string]string `json:"env"`
				}
				if err := json.Unmarshal([]byte(sn.Text), &v); err != nil {
					t.Fatalf("%s snippet is not JSON: %v\n%s", sn.Client, err, sn.Text)
				}
				for _, servers := range v {
					got := servers["workrail"]
					if got.Command != tc.exe || (got.Env["WORKRAIL_HOME"] == string(tc.home)) != tc.env {
						t.Errorf("%s snippet %+v; want command %q, WORKRAIL_HOME %v", sn.Client, got, tc.exe, tc.env)
					}
				}
			}
		})
	}
	if got := shellQuote(`/tmp/it's`); got != `'/tmp/it'\''s'` {
		t.Errorf("shellQuote = %s", got)
	}
}

// A restart re-runs the daemon with its --port replaced, however it was
// written: never one more each time.
func TestWithPort(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"workrail daemon --port 0", "workrail daemon --port 7777"},
		{"workrail daemon --port 7777", "workrail daemon --port 7777"},
		{"workrail daemon -port=0 --verbose", "workrail daemon --verbose --port 7777"},
		{"workrail --port=0", "workrail --port 7777"},
		{"workrail daemon --verbose --any-port --port 0 -port 1", "workrail daemon --verbose --any-port --port 7777"},
		{"workrail", "workrail --port 7777"},
	} {
		got := strings.Join(withPort(strings.Fields(tc.args), 7777), " ")
		if got != tc.want {
			t.Errorf("withPort(%s) = %s; want %s", tc.args, got, tc.want)
		}
		if again := strings.Join(withPort(strings.Fields(got), 7777), " "); again != got {
			t.Errorf("withPort twice = %s; want %s", again, got)
		}
	}
	// A port WORKRAIL_PORT chose is replaced there, never added to the arguments.
	env := []string{"HOME=/root", "WORKRAIL_PORT=0", "WORKRAIL_PORT=1", "PATH=/bin"}
	want := []string{"HOME=/root", "PATH=/bin", "WORKRAIL_PORT=7777"}
	if got := withEnvPort(withEnvPort(env, 7777), 7777); !slices.Equal(got, want) {
		t.Errorf("withEnvPort twice = %q; want %q", got, want)
	}
}
