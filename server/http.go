package server

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"
)

// router is the loopback TCP surface: the Console, its static assets and,
// behind the bearer token, MCP over streamable HTTP.
func (d *Daemon) router(port int, mcpHTTP http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(sameHost(port))
	r.Handle("/static/*", http.FileServerFS(d.cfg.Static))
	r.With(bearer(d.cfg.Token)).Handle("/mcp", mcpHTTP)
	r.Get("/api/doctor", d.doctor)
	d.cfg.Console(r)
	return r
}

// doctor answers `workrail doctor` while the daemon owns the database.
func (d *Daemon) doctor(w http.ResponseWriter, r *http.Request) {
	reports, err := d.cfg.Doctor()
	if err != nil {
		d.cfg.Log.Printf("doctor: %v", err)
		http.Error(w, "internal error; the daemon log has the details", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reports)
}

// sameHost refuses requests whose Host is not this loopback listener (DNS
// rebinding) and cross-site requests whose Origin is another site.
func sameHost(port int) func(http.Handler) http.Handler {
	allowed := map[string]bool{
		fmt.Sprintf("127.0.0.1:%d", port): true,
		fmt.Sprintf("localhost:%d", port): true,
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !allowed[r.Host] {
				http.Error(w, "forbidden: unexpected Host header", http.StatusForbidden)
				return
			}
			if o := r.Header.Get("Origin"); o != "" {
				u, err := url.Parse(o)
				if err != nil || !allowed[u.Host] {
					http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func bearer(token string) func(http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="workrail"`)
				http.Error(w, "unauthorized: send the token from auth.token in the WorkRail home folder as a Bearer token", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
