package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// secretRoutes mounts, on the unix socket only, the API of `workrail
// doctor --secrets` and `workrail scrub`, when the wiring hands them in:
// a scrub deletes a session, which no web page may ask for.
func (d *Daemon) secretRoutes(r chi.Router) {
	if d.cfg.Secrets != nil {
		r.Get("/api/secrets", func(w http.ResponseWriter, _ *http.Request) {
			v, refused := d.cfg.Secrets()
			answerJSON(w, v, refused)
		})
	}
	if d.cfg.Scrub != nil {
		r.Post("/api/sessions/{session}/scrub", func(w http.ResponseWriter, r *http.Request) {
			v, refused := d.cfg.Scrub(chi.URLParam(r, "session"))
			answerJSON(w, v, refused)
		})
	}
}
