package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// secretRoutes mounts, on the unix socket only, the API of `workrail
// doctor --secrets` and `workrail scrub`, when the wiring hands them in:
// a scrub deletes a session, which no web page may ask for.
func (d *Daemon) secretRoutes(r chi.Router) {
	s := d.cfg.API.Secrets
	if s == nil {
		return
	}
	r.Get("/api/secrets", func(w http.ResponseWriter, _ *http.Request) {
		v, refused := s.Find()
		answerJSON(w, v, refused)
	})
	r.Post("/api/sessions/{session}/scrub", func(w http.ResponseWriter, r *http.Request) {
		v, refused := s.Scrub(chi.URLParam(r, "session"))
		answerJSON(w, v, refused)
	})
}
