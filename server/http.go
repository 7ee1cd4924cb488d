package server

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-json-experiment/json/jsontext"
)

// router is the loopback TCP surface: the Console behind the owner's
// credential, its static assets (open: they reveal no data, and the login
// page uses the stylesheet), the login link and, behind the bearer token,
// MCP over streamable HTTP and the API.
func (d *Daemon) router(port int, mcpHTTP http.Handler) chi.Router {
	r := chi.NewRouter()
	// Cross-origin protection refuses a browser's state-changing request
	// from another site (Sec-Fetch-Site), whatever it carries.
	r.Use(readBodyWithin(d.lim.TCPBody), secureHeaders, sameHost(port), http.NewCrossOriginProtection().Handler)
	r.Handle("/static/*", noListing(http.FileServerFS(d.cfg.Static)))
	r.With(bearer(d.cfg.Token), d.act.track, guard).Post("/mcp", mcpHTTP.ServeHTTP)
	r.With(bearer(d.cfg.Token)).Get("/mcp", d.notes.stream(d.tcpStreams, d.lim))
	r.With(bearer(d.cfg.Token)).Get("/api/doctor", d.doctor)
	r.With(bearer(d.cfg.Token)).Get("/api/status", d.status)
	r.With(bearer(d.cfg.Token)).Group(d.shareRoutes)
	r.With(bearer(d.cfg.Token)).Group(d.sourceRoutes)
	r.Get("/login", d.owner.login)
	// Every Console route is the owner's, and so is every other path: the
	// not-found answer goes through the group's check (the Console may set
	// its own not-found page; it is checked too).
	r.Group(func(r chi.Router) {
		r.Use(d.owner.check)
		r.NotFound(http.NotFound)
		d.cfg.Console(r)
	})
	return r
}

// socketRouter is the unix socket surface, reachable only by this user:
// MCP for shims, the daemon's identity, doctor, status, stop, restart,
// sessions, export and import, workflow sources, a Console login link and the end of every
// login for the CLI, and retiring for a newer shim (never on TCP: a web
// page could ask it).
func (d *Daemon) socketRouter(mcpHTTP http.Handler) http.Handler {
	r := chi.NewRouter()
	r.With(d.act.track, guard).Post("/mcp", mcpHTTP.ServeHTTP)
	r.Get("/mcp", d.notes.stream(d.socketStreams, d.lim))
	r.Get("/health", d.health)
	r.Post("/retire", d.retire)
	r.Get("/api/doctor", d.doctor)
	r.Get("/api/status", d.status)
	r.Post("/api/stop", d.stop)
	r.Post("/api/restart", d.restart)
	r.Post("/api/login-link", d.loginLink)
	r.Post("/api/logout-all", d.logoutAll)
	d.shareRoutes(r)
	d.sourceRoutes(r)
	d.secretRoutes(r)
	return r
}

// noListing serves files, never a folder's listing.
func noListing(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// noStream refuses a GET /mcp that asks for no event stream.
func noStream(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	http.Error(w, "this server sends no event stream; POST JSON-RPC messages to /mcp", http.StatusMethodNotAllowed)
}

// Identity is what /health answers: which program, for which home.
type Identity struct {
	Service string `json:"service"` // always "workrail"
	Home    string `json:"home"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

func (d *Daemon) health(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(Identity{Service: "workrail", Home: string(d.cfg.Home), PID: os.Getpid(), Version: d.cfg.Version})
}

// doctor answers `workrail doctor` while the daemon owns the database.
// Requests that arrive while a check runs share its result: each check
// reads every session.
func (d *Daemon) doctor(w http.ResponseWriter, r *http.Request) {
	reports, err, _ := d.doctors.Do("doctor", func() (any, error) { return d.cfg.API.Admin.Doctor() })
	if err != nil {
		d.cfg.Log.Error("doctor failed", "err", err)
		http.Error(w, "internal error; the daemon log has the details", http.StatusInternalServerError)
		return
	}
	writeJSON(w, reports.(jsontext.Value))
}

// secureHeaders tells the browser what the Console may do: load scripts,
// styles and images from itself only, never be framed, send no referrer,
// and take content types as given.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		// same-origin, not no-referrer: under no-referrer a browser sends a
		// plain form's POST with "Origin: null", which sameHost refuses, so
		// no Console form would work without a script. Other sites still
		// get no referrer.
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
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

// bearer admits requests carrying the token; the scheme's name is
// case-insensitive (RFC 9110 §11.1).
func bearer(token string) func(http.Handler) http.Handler {
	want := []byte(token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="workrail"`)
				http.Error(w, "unauthorized: send the token from auth.token in the WorkRail home folder as a Bearer token", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
