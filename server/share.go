package server

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine/protocol"
)

// shareRoutes mounts the API of `workrail sessions`, `export` and
// `import` on r (behind whatever r's middleware checks), when the wiring
// hands them in.
func (d *Daemon) shareRoutes(r chi.Router) {
	if d.cfg.API.Sessions == nil {
		return
	}
	r.Get("/api/sessions", d.sessions)
	r.Get("/api/sessions/{session}/bundle", d.export(false))
	r.Get("/api/sessions/{session}/markdown", d.export(true))
	r.Post("/api/import", d.importBundle)
}

// sessions answers GET /api/sessions: every session, newest first.
func (d *Daemon) sessions(w http.ResponseWriter, _ *http.Request) {
	v, refused := d.cfg.API.Sessions.List()
	answerJSON(w, v, refused)
}

// ExportAsk is what an export request asks for: the bundle or Markdown,
// with the note bodies (RedactNotes) or everything free-form (Redact)
// left out.
type ExportAsk struct {
	RedactNotes, Redact, Markdown bool
}

// export answers GET /api/sessions/{session}/bundle with the bundle's
// JSON, and …/markdown with the session as Markdown; ?redactNotes=true
// leaves the note bodies out, ?redact=true everything free-form.
func (d *Daemon) export(markdown bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		ask := ExportAsk{RedactNotes: q.Get("redactNotes") == "true", Redact: q.Get("redact") == "true", Markdown: markdown}
		b, refused := d.cfg.API.Sessions.Export(chi.URLParam(r, "session"), ask)
		if refused != nil {
			answerJSON(w, nil, refused)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if markdown {
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		}
		w.Write(b)
	}
}

// importBundle answers POST /api/import[?dryRun=true]: the body is the
// bundle's JSON (never gzip: the client unpacks a .json.gz), and the
// answer what was, or would be, created.
// Reading and checking the bundle hold room in the import budget, shared
// with the Console's previews: beyond it a request waits its turn, or is
// refused with 503 and the envelope when too many wait.
func (d *Daemon) importBundle(w http.ResponseWriter, r *http.Request) {
	if b := d.cfg.ImportBudget; b != nil {
		n := b.Size() // a body of unknown length may take it all
		if r.ContentLength > 0 {
			n = r.ContentLength
		}
		release, err := b.Reserve(r.Context(), n)
		if err != nil {
			e := protocol.NewError(protocol.Refuse(protocol.RefusedBusy, "the daemon is busy importing other bundles and has no memory to spare for this one now (%v). Retry in a minute; nothing was imported.", err))
			dropBody(w, r)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(e)
			return
		}
		defer release()
	}
	v, refused := d.cfg.API.Sessions.Import(r.Body, r.URL.Query().Get("dryRun") == "true")
	if refused != nil {
		dropBody(w, r) // a bundle over the size limit is refused unread
	}
	answerJSON(w, v, refused)
}

// Bounds on reading what is left of a refused request's body to drop it.
const (
	maxDropped  = 256 << 20
	dropTimeout = 30 * time.Second
)

// dropBody reads what is left of the body of a request refused before it
// was read, and drops it, before the refusal is written: a client still
// sending its body then reads the answer, where a connection closed on it
// gave a broken pipe or a reset instead of the envelope. The reading
// takes no memory and is bounded in bytes and time; past either the
// connection closes after the answer, as before.
func dropBody(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.ContentLength == 0 {
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(dropTimeout))
	n, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxDropped+1))
	if err != nil || n > maxDropped {
		w.Header().Set("Connection", "close")
		return
	}
	rc.SetReadDeadline(time.Time{})
}

// answerJSON writes v, or the error result with 422: the request was
// understood and refused (an internal failure too: the wiring logged it,
// and the envelope says whether to retry).
func answerJSON(w http.ResponseWriter, v jsontext.Value, refused *protocol.ErrorResult) {
	if refused != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		json.NewEncoder(w).Encode(refused)
		return
	}
	writeJSON(w, v)
}

// writeJSON writes an answer the wiring encoded, ending in a newline as
// every answer json.Encoder writes does.
func writeJSON(w http.ResponseWriter, v jsontext.Value) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(v)
	if len(v) == 0 || v[len(v)-1] != '\n' {
		w.Write([]byte{'\n'})
	}
}
