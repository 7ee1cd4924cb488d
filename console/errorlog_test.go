package console_test

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
)

type errorLog []console.LoggedError

func (l errorLog) LastErrors() []console.LoggedError { return l }

// The home page lists the daemon's last errors as the log gives them
// (newest first), escaped, and says nothing when there are none.
func TestHomeShowsRecentErrors(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	two := errorLog{
		{Time: at, Tool: "continue_workflow", Code: "TOKEN_SCOPE_MISMATCH", Message: "tool call answered with an error", Session: 3},
		{Time: at.Add(-time.Minute), Message: `console: render /x: <script>alert("x")</script> & more`},
	}
	section := regexp.MustCompile(`(?s)<section class="recent-errors.*?</section>`)
	for _, tc := range []struct {
		name   string
		log    console.ErrorLog
		golden string // "" when the page lists no errors
	}{
		{"no log", nil, ""},
		{"no errors", errorLog{}, ""},
		{"two errors", two, "recent_errors.html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := chi.NewRouter()
			console.New(console.Config{Store: memstore.New(), About: console.About{Version: "test", Log: "/home/dev/.local/share/workrail/logs/workrail.log"},
				Secret: []byte("test secret"), Now: func() time.Time { return at }, Logf: t.Logf, Errors: tc.log}).Routes(r)
			code, body := getPath(t, r, "/")
			if code != http.StatusOK {
				t.Fatalf("GET / = %d", code)
			}
			got := section.FindString(body)
			if tc.golden == "" {
				if got != "" || strings.Contains(body, "Recent errors") {
					t.Fatalf("the page lists errors:\n%s", got)
				}
				return
			}
			if strings.Contains(got, "<script>") {
				t.Fatalf("a message reached the page unescaped:\n%s", got)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(got+"\n"))
		})
	}
}

// Every code of the closed set is said in words on the home page.
func TestEveryErrorCodeHasWords(t *testing.T) {
	for _, code := range engine.Codes() {
		r := chi.NewRouter()
		log := errorLog{{Time: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Tool: "continue_workflow", Code: string(code), Message: "tool call answered with an error"}}
		console.New(console.Config{Store: memstore.New(), About: console.About{Version: "test"}, Secret: []byte("test secret"),
			Now: time.Now, Logf: t.Logf, Errors: log}).Routes(r)
		_, body := getPath(t, r, "/")
		if strings.Contains(body, "tool call answered with an error") || !strings.Contains(body, "<code>"+string(code)+"</code>") {
			t.Errorf("%s is not said in words on the home page", code)
		}
	}
}
