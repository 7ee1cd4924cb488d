package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
)

// csrfHeader carries the token on htmx requests (set by the layout's
// hx-headers); plain forms send it as the hidden field csrfField.
const (
	csrfHeader = "X-CSRF-Token"
	csrfField  = "csrf"
)

// csrfToken derives the forms' token from the daemon's secret: stable
// across restarts (a page left open still works), unknown to any page
// that cannot read the Console's own pages.
func csrfToken(secret []byte) string {
	if len(secret) == 0 {
		panic("console: a CSRF secret is required")
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("workrail console csrf v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// checkCSRF refuses every state-changing request that does not carry the
// token, before its handler reads anything; the transport's Origin and
// Host checks run first.
func (c *Console) checkCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		got := r.Header.Get(csrfHeader)
		switch {
		case got != "":
		case isMultipart(r):
			// An upload: only its first part, the token, is read here.
			got, r = multipartToken(w, r)
		default:
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			got = r.PostFormValue(csrfField)
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(c.csrf)) != 1 {
			c.render(w, r, http.StatusForbidden, errorPage(c.chrome("Refused"),
				"This request did not carry the Console's form token, so nothing was changed. Reload the page and try again."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// maxForm bounds a form body: a workflow file (1 MiB, the sources' limit)
// plus room for the other fields.
const maxForm = 1<<20 + 64<<10

// hxHeaders is the layout's hx-headers value: every htmx request carries
// the token.
func hxHeaders(m chrome) string {
	b, _ := json.Marshal(map[string]string{csrfHeader: m.CSRF})
	return string(b)
}

// isMultipart says whether r's body is a multipart form (a file upload).
func isMultipart(r *http.Request) bool {
	t, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return t == "multipart/form-data"
}
