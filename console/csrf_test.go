package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/workflows"
)

// TestCSRF: a state-changing request is refused before any handler runs
// unless it carries the token the pages hand out, as a header (htmx) or a
// form field (plain forms); reads never need it.
func TestCSRF(t *testing.T) {
	h := serve(t, memstore.New(), executetest.Catalog(t, workflows.FS))
	page := httptest.NewRecorder()
	h.ServeHTTP(page, httptest.NewRequest(http.MethodGet, "/", nil))
	m := regexp.MustCompile(`X-CSRF-Token&#34;:&#34;([0-9a-f]{64})&#34;`).FindStringSubmatch(page.Body.String())
	if m == nil {
		t.Fatal("the page carries no CSRF token in hx-headers")
	}
	token := m[1]
	for _, tc := range []struct {
		name          string
		header, field string
		method        string
		refused       bool
	}{
		{name: "no token", method: http.MethodPost, refused: true},
		{name: "wrong header", method: http.MethodPost, header: strings.Repeat("0", 64), refused: true},
		{name: "wrong field", method: http.MethodPost, field: token[:63] + "x", refused: true},
		{name: "delete without", method: http.MethodDelete, refused: true},
		{name: "header", method: http.MethodPost, header: token},
		{name: "field", method: http.MethodPost, field: token},
		{name: "get needs none", method: http.MethodGet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"csrf": {tc.field}}.Encode()
			req := httptest.NewRequest(tc.method, "/nowhere", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.header != "" {
				req.Header.Set("X-CSRF-Token", tc.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if refused := rec.Code == http.StatusForbidden; refused != tc.refused {
				t.Fatalf("%s /nowhere = %d; refused %v, want %v", tc.method, rec.Code, refused, tc.refused)
			}
			if tc.refused && !strings.Contains(rec.Body.String(), "nothing was changed") {
				t.Errorf("the refusal does not say nothing was changed:\n%s", rec.Body.String())
			}
		})
	}
}
