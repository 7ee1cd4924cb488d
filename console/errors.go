package console

import (
	"net/http"

	"github.com/a-h/templ"
)

// render writes a page with its status.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, page templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := page.Render(r.Context(), w); err != nil {
		c.logf("console: render %s: %v", r.URL.Path, err)
	}
}

// notFound is the styled 404 page, with a way home.
func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusNotFound, errorPage(c.chrome("Not found"),
		"There is nothing at "+r.URL.Path+". Sessions and runs are listed on the home page."))
}

// fail logs an unexpected error in full and shows the reader the 500 page.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	c.logf("console: %s: %v", what, err)
	c.render(w, r, http.StatusInternalServerError, errorPage(c.chrome("Something went wrong"),
		"WorkRail could not show "+what+". The daemon log has the details; your sessions are not affected."))
}
