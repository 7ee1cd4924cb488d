package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// sourceRoutes mounts the API of `workrail sources` on r (behind whatever
// r's middleware checks), when the wiring hands it in: the list of
// workflow sources with each repository's state, and a sync of the
// repositories now, answering the list as it then is.
func (d *Daemon) sourceRoutes(r chi.Router) {
	s := d.cfg.API.Sources
	if s == nil {
		return
	}
	r.Get("/api/sources", func(w http.ResponseWriter, _ *http.Request) { answerJSON(w, s.List(), nil) })
	r.Post("/api/sources/sync", func(w http.ResponseWriter, r *http.Request) { answerJSON(w, s.Sync(r.Context()), nil) })
}

// NotifyListChanged tells every client listening for notifications that
// the prompts (the workflows) may have changed: a sync moved a
// repository to another commit.
func (d *Daemon) NotifyListChanged() { d.notes.send(listChanged, listChangedMethod) }
