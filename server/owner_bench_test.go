package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkOwnerCheck is a page served without the login check, and with
// it for a login's cookie and the Bearer: the difference is what the
// check costs a page (the goal: at most 20 µs). The page is small, so the
// difference is not lost in the noise of writing a big one.
func BenchmarkOwnerCheck(b *testing.B) {
	o, id := benchOwner(b)
	html := bytes.Repeat([]byte("<tr><td>session</td><td>wr.hello</td><td>in progress</td></tr>\n"), 10)
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(html)
	})
	cookie := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
	cookie.AddCookie(&http.Cookie{Name: o.cookie, Value: id})
	token := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
	token.Header.Set("Authorization", "Bearer "+testToken)
	for _, bc := range []struct {
		name string
		h    http.Handler
		r    *http.Request
	}{
		{"unchecked", page, cookie},
		{"cookie", o.check(page), cookie},
		{"bearer", o.check(page), token},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				bc.h.ServeHTTP(rec, bc.r)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d", rec.Code)
				}
			}
		})
	}
}

// benchOwner is an owner with one login among others, as after a few
// browsers logged in, and that login's id.
func benchOwner(b *testing.B) (*owner, string) {
	o := testOwner(b, time.Now)
	var id string
	for range 8 {
		var err error
		if id, err = o.logins.Start(); err != nil {
			b.Fatal(err)
		}
	}
	return o, id
}

// BenchmarkOwnerAdmits is the check alone, for the cookie and the Bearer:
// what BenchmarkOwnerCheck's difference is made of, without a page's noise.
func BenchmarkOwnerAdmits(b *testing.B) {
	o, id := benchOwner(b)
	cookie := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
	cookie.AddCookie(&http.Cookie{Name: o.cookie, Value: id})
	token := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
	token.Header.Set("Authorization", "Bearer "+testToken)
	for name, r := range map[string]*http.Request{"cookie": cookie, "bearer": token} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, ok, _ := o.admit(r); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
