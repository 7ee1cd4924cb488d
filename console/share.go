package console

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// Bundles are the use cases that share a session (execute.Service
// provides them): its bundle, its Markdown, and importing a bundle as a
// new session.
type Bundles interface {
	Export(id engine.SessionID, o bundle.ExportOptions) ([]byte, error)
	ExportMarkdown(id engine.SessionID, o bundle.ExportOptions) (string, error)
	Import(b []byte, dryRun bool) (bundle.ImportReport, error)
}

const (
	// maxUpload bounds an uploaded bundle, as sent and unpacked: far above
	// a session of a thousand steps.
	maxUpload = 32 << 20
	// An upload is held from its preview until it is confirmed for
	// uploadTTL, and uploads hold at most maxHeld bytes together (the
	// oldest preview not yet confirmed gives way first).
	uploadTTL = 15 * time.Minute
	maxHeld   = 2 * maxUpload
)

// shareRoutes are a session's downloads and the import pages.
func (c *Console) shareRoutes(r chi.Router) {
	r.Get("/sessions/{session}/bundle", c.exportBundle)
	r.Get("/sessions/{session}/markdown", c.exportMarkdown)
	r.Get("/import", c.importForm)
	r.Post("/import", c.importPreview)
	r.Get("/import/{digest}", c.importShow)
	r.Post("/import/{digest}", c.importConfirm)
}

// exportOptions are the redactions a download's URL asks for:
// ?redactNotes=1 leaves the note bodies out, ?redact=1 everything
// free-form.
func exportOptions(r *http.Request) bundle.ExportOptions {
	q := r.URL.Query()
	return bundle.ExportOptions{RedactNotes: q.Get("redactNotes") == "1", Redact: q.Get("redact") == "1"}
}

// exportBundle downloads a session's bundle, redacted as exportOptions
// says; ?gzip=1 packs it as <session>.json.gz.
func (c *Console) exportBundle(w http.ResponseWriter, r *http.Request) {
	id, ok := c.sessionParam(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	q := r.URL.Query()
	b, err := c.bundles.Export(id, exportOptions(r))
	if c.exportFailed(w, r, id, err) {
		return
	}
	name, kind := id.String()+".json", "application/json"
	if q.Get("gzip") == "1" {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z) // no name, no time: the same bundle packs to the same bytes
		zw.Write(b)
		zw.Close()
		b, name, kind = z.Bytes(), name+".gz", "application/gzip"
	}
	download(w, name, kind, b)
}

// exportMarkdown downloads a session as Markdown, for a pull request,
// redacted as exportOptions says.
func (c *Console) exportMarkdown(w http.ResponseWriter, r *http.Request) {
	id, ok := c.sessionParam(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	md, err := c.bundles.ExportMarkdown(id, exportOptions(r))
	if c.exportFailed(w, r, id, err) {
		return
	}
	download(w, id.String()+".md", "text/markdown; charset=utf-8", []byte(md))
}

// exportFailed shows why an export failed, when it did.
func (c *Console) exportFailed(w http.ResponseWriter, r *http.Request, id engine.SessionID, err error) bool {
	var e *engine.Error
	switch {
	case err == nil:
		return false
	case !errors.As(err, &e) || e.Code == engine.CodeInternal:
		c.fail(w, r, "the export of "+id.String(), err)
	case e.Code == engine.CodeInvalidInput:
		// The use case's answer for a session it does not hold: the
		// session went after the URL was checked.
		c.notFound(w, r)
	default:
		c.render(w, r, http.StatusConflict, errorPage(c.chrome("Export refused"), "WorkRail could not export "+id.String()+" ("+string(e.Code)+"): "+e.Message))
	}
	return true
}

// download answers b as a file the browser saves under name.
func download(w http.ResponseWriter, name, kind string, b []byte) {
	w.Header().Set("Content-Type", kind)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Write(b)
}

// sessionParam is the session a download's URL names, when it is one
// the store holds (a missing one is not found, as its page is).
func (c *Console) sessionParam(r *http.Request) (engine.SessionID, bool) {
	var id engine.SessionID
	if id.UnmarshalText([]byte(chi.URLParam(r, "session"))) != nil {
		return id, false
	}
	_, err := c.store.Health(id)
	return id, !errors.Is(err, engine.ErrNotFound)
}

// importView is the import page in each of its states: the form alone,
// a preview (what the upload would create, or why it is refused), or
// what was imported.
type importView struct {
	Name     string // the uploaded file's name
	Digest   string // hex sha256 of the bundle's JSON: the upload's slot
	Report   *bundle.ImportReport
	Refused  *engine.Error
	Imported bool
	Gone     bool // the slot named in the URL is no longer held
	// Already are the sessions of this store imported from the same
	// session at the same chain head (previews only).
	Already []engine.SessionID
}

// listEnd is what follows item i of n in a sentence's list: a comma, or
// the full stop after the last.
func listEnd(i, n int) string {
	if i == n-1 {
		return "."
	}
	return ","
}

// importedAlready lists the sessions imported from the session rep comes
// from, as of the same chain head: a confirmation would make another
// copy. Each session's first event says; a session that cannot be read
// is passed over (its page says why).
func (c *Console) importedAlready(rep bundle.ImportReport) ([]engine.SessionID, error) {
	ids, err := c.store.SessionIDs()
	if err != nil {
		return nil, err
	}
	src := event.ImportSource{Session: rep.Source, ChainHead: rep.SourceChainHead}
	var out []engine.SessionID
	for _, id := range ids {
		c.store.View(id, func(tx execute.ReadTx) error {
			e, err := tx.Event(1)
			if d, ok := e.Data.(*event.SessionCreatedData); err == nil && ok && d.ImportedFrom != nil && *d.ImportedFrom == src {
				out = append(out, id)
			}
			return nil
		})
	}
	return out, nil
}

// importForm renders the upload form.
func (c *Console) importForm(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, importPage(c.chrome("Import a session"), importView{}))
}

// ImportBudget is the memory the daemon lets imports hold at once, shared
// with its import API: Reserve holds room to read and parse a bundle of
// at most n bytes, waiting in a bounded queue, until release is called.
type ImportBudget interface {
	Reserve(ctx context.Context, n int64) (release func(), err error)
}

// importPreview reads an upload, checks it in full with a dry run and
// holds it until it is confirmed (or refused). Reading and the dry run
// hold room in the import budget: a preview beyond it waits its turn, or
// is refused with 503 when too many wait.
func (c *Console) importPreview(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Import a session")
	var release func()
	defer func() {
		if release != nil {
			release()
		}
	}()
	name, b, e := readUpload(w, r, func(name string) *engine.Error {
		var e *engine.Error
		release, e = c.reserveUpload(r, name)
		return e
	})
	if e != nil {
		status := map[engine.Code]int{engine.CodePayloadTooLarge: http.StatusRequestEntityTooLarge, engine.CodeDaemonUnavailable: http.StatusServiceUnavailable}[e.Code]
		c.render(w, r, cmp.Or(status, http.StatusUnprocessableEntity), importPage(m, importView{Name: name, Refused: e}))
		return
	}
	v := importView{Name: name}
	rep, err := c.bundles.Import(b, true)
	if c.importRefused(w, r, m, &v, err) {
		return
	}
	v.Report, v.Digest = &rep, c.uploads.put(name, b, rep, c.now())
	if v.Already, err = c.importedAlready(rep); err != nil {
		c.fail(w, r, "the sessions imported before", err)
		return
	}
	c.render(w, r, http.StatusOK, importPage(m, v))
}

// importRefused shows the import page with why the use case refused a
// bundle; an internal failure is the 500 page.
func (c *Console) importRefused(w http.ResponseWriter, r *http.Request, m chrome, v *importView, err error) bool {
	if err == nil {
		return false
	}
	var e *engine.Error
	if !errors.As(err, &e) || e.Code == engine.CodeInternal {
		c.fail(w, r, "the import", err)
		return true
	}
	v.Refused = e
	c.render(w, r, http.StatusUnprocessableEntity, importPage(m, *v))
	return true
}

// importShow is where a confirmed import lands (what it created), or a
// held preview (what its dry run said it would create).
func (c *Console) importShow(w http.ResponseWriter, r *http.Request) {
	c.showUpload(w, r, http.StatusOK, c.chrome("Import a session"), chi.URLParam(r, "digest"))
}

// showUpload renders the upload held under digest, with status when it
// is held.
func (c *Console) showUpload(w http.ResponseWriter, r *http.Request, status int, m chrome, digest string) {
	u, ok := c.uploads.get(digest, c.now())
	if !ok {
		c.render(w, r, http.StatusNotFound, importPage(m, importView{Gone: true}))
		return
	}
	v := importView{Name: u.name, Digest: digest, Report: &u.report, Imported: !u.report.DryRun}
	if !v.Imported {
		var err error
		if v.Already, err = c.importedAlready(u.report); err != nil {
			c.fail(w, r, "the sessions imported before", err)
			return
		}
	}
	c.render(w, r, status, importPage(m, v))
}

// importConfirm imports a held upload, once: confirming it again (a
// second click, a resubmitted form) finds it imported and goes on to the
// same result.
func (c *Console) importConfirm(w http.ResponseWriter, r *http.Request) {
	digest := chi.URLParam(r, "digest")
	c.importMu.Lock()
	defer c.importMu.Unlock()
	u, ok := c.uploads.get(digest, c.now())
	if !ok {
		c.render(w, r, http.StatusNotFound, importPage(c.chrome("Import a session"), importView{Gone: true}))
		return
	}
	if u.report.DryRun {
		m := c.chrome("Import a session")
		if m.Relogin = c.stale(r); m.Relogin > 0 {
			c.showUpload(w, r, reloginStatus, m, digest)
			return
		}
		rep, err := c.bundles.Import(u.bundle, false)
		if c.importRefused(w, r, m, &importView{Name: u.name, Digest: digest}, err) {
			return
		}
		c.uploads.imported(u, rep, c.now())
	}
	http.Redirect(w, r, "/import/"+digest, http.StatusSeeOther)
}

// reserveUpload holds room in the import budget for the upload of file
// name: its size as sent, or for a .json.gz what it may unpack to.
func (c *Console) reserveUpload(r *http.Request, name string) (func(), *engine.Error) {
	if c.budget == nil {
		return nil, nil
	}
	n := int64(maxUpload)
	if r.ContentLength > 0 && !strings.HasSuffix(name, ".gz") {
		n = min(r.ContentLength, n)
	}
	release, err := c.budget.Reserve(r.Context(), n)
	if err != nil {
		return nil, engine.Errorf(engine.CodeDaemonUnavailable, "the daemon is busy checking other bundles and has no memory to spare for this one now (%v); upload it again in a minute", err)
	}
	return release, nil
}

// readUpload reads the bundle of an import form: the file part, unpacked
// when its name ends in .json.gz, at most maxUpload bytes either way.
// reserve is called with the file's name before its bytes are read.
func readUpload(w http.ResponseWriter, r *http.Request, reserve func(name string) *engine.Error) (name string, b []byte, e *engine.Error) {
	mr := uploadParts(w, r)
	if mr == nil {
		return "", nil, engine.Errorf(engine.CodeInvalidInput, "choose a bundle file (.json or .json.gz) to upload")
	}
	for {
		p, err := mr.NextPart()
		if err != nil {
			return "", nil, uploadError(err, "the upload ended before its file")
		}
		if p.FormName() != "bundle" {
			continue
		}
		name = p.FileName()
		if name == "" {
			return "", nil, engine.Errorf(engine.CodeInvalidInput, "choose a bundle file (.json or .json.gz) to upload")
		}
		if e := reserve(name); e != nil {
			return name, nil, e
		}
		b, e = readBundle(name, p)
		return name, b, e
	}
}

// readBundle reads one uploaded file, unpacking a .json.gz; each of the
// file and what it unpacks to is at most maxUpload bytes.
func readBundle(name string, f io.Reader) ([]byte, *engine.Error) {
	b, e := readAtMost(f, "the file could not be read")
	if e != nil || !strings.HasSuffix(name, ".json.gz") {
		return b, e
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, engine.Errorf(engine.CodeInvalidInput, "%s is named .json.gz but is not gzip data", name)
	}
	defer z.Close()
	return readAtMost(z, name+" could not be unpacked")
}

// readAtMost reads r whole, refusing more than maxUpload bytes.
func readAtMost(r io.Reader, what string) ([]byte, *engine.Error) {
	b, err := io.ReadAll(io.LimitReader(r, maxUpload+1))
	if err != nil {
		return nil, uploadError(err, what)
	}
	if len(b) > maxUpload {
		return nil, tooLarge()
	}
	return b, nil
}

// uploadError says why reading an upload failed: too large, or broken.
func uploadError(err error, what string) *engine.Error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return tooLarge()
	}
	return engine.Errorf(engine.CodeInvalidInput, "%s (%v); upload the file again", what, err)
}

func tooLarge() *engine.Error {
	return engine.Errorf(engine.CodePayloadTooLarge, "the bundle is larger than %d MiB (packed or unpacked), the most the Console takes; import it with `workrail import FILE`, which takes up to 64 MiB", maxUpload>>20).
		With("limitBytes", maxUpload)
}

// partsKey holds, in a request's context, the multipart reader whose
// first part the CSRF check read.
type partsKey struct{}

// uploadParts is the multipart body of r after the CSRF field: the one
// the CSRF check read its token from, or (an htmx request, whose token
// is a header) r's own; nil when r has none.
func uploadParts(w http.ResponseWriter, r *http.Request) *multipart.Reader {
	if mr, ok := r.Context().Value(partsKey{}).(*multipart.Reader); ok {
		return mr
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+maxForm)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil
	}
	return mr
}

// multipartToken reads the CSRF token from the first part of a multipart
// form (the forms put their csrf field first) and hands the rest of the
// parts on in the request's context: the token is checked before a byte
// of the upload is read, and nothing is parsed into memory or onto disk
// beyond it.
func multipartToken(w http.ResponseWriter, r *http.Request) (string, *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+maxForm)
	mr, err := r.MultipartReader()
	if err != nil {
		return "", r
	}
	p, err := mr.NextPart()
	if err != nil || p.FormName() != csrfField {
		return "", r
	}
	token, err := io.ReadAll(io.LimitReader(p, 256))
	if err != nil {
		return "", r
	}
	return string(token), r.WithContext(context.WithValue(r.Context(), partsKey{}, mr))
}

// uploads are the bundles previewed and not yet confirmed, each in a slot
// named by the sha256 of its JSON: a confirmation imports exactly the
// bytes its preview checked, without sending them again. Slots live for
// uploadTTL; a restart forgets them (the reader uploads the file again).
type uploads struct {
	mu    sync.Mutex
	slots []*upload // oldest first
}

// upload is one slot: the bundle and its dry run's report until it is
// imported, then what the import created (a report that is no dry run)
// without the bundle.
type upload struct {
	digest, name string
	bundle       []byte
	at           time.Time
	report       bundle.ImportReport
}

// put holds b, with the report of its dry run, under its digest and
// returns the digest; the same bytes previewed again take their old slot
// (confirmed again, they make one more new session). To keep within
// maxHeld, the oldest slots still holding a bundle give way.
func (u *uploads) put(name string, b []byte, dry bundle.ImportReport, now time.Time) string {
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	u.mu.Lock()
	defer u.mu.Unlock()
	u.expire(now)
	u.slots = slices.DeleteFunc(u.slots, func(s *upload) bool { return s.digest == digest })
	held := len(b)
	for _, s := range u.slots {
		held += len(s.bundle)
	}
	for i := 0; held > maxHeld && i < len(u.slots); {
		if s := u.slots[i]; s.bundle != nil {
			held -= len(s.bundle)
			u.slots = slices.Delete(u.slots, i, i+1)
			continue
		}
		i++
	}
	u.slots = append(u.slots, &upload{digest: digest, name: name, bundle: b, at: now, report: dry})
	return digest
}

// get returns a copy of the slot named digest, if it is held.
func (u *uploads) get(digest string, now time.Time) (upload, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.expire(now)
	for _, s := range u.slots {
		if s.digest == digest {
			return *s, true
		}
	}
	return upload{}, false
}

// imported records what the import of slot up created, letting its bytes
// go, as the newest slot: held again if it expired or gave way while the
// import ran, so the confirmation lands on the session it created.
func (u *uploads) imported(up upload, rep bundle.ImportReport, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.slots = slices.DeleteFunc(u.slots, func(s *upload) bool { return s.digest == up.digest })
	u.slots = append(u.slots, &upload{digest: up.digest, name: up.name, at: now, report: rep})
}

// expire drops the slots older than uploadTTL.
func (u *uploads) expire(now time.Time) {
	u.slots = slices.DeleteFunc(u.slots, func(s *upload) bool { return now.Sub(s.at) > uploadTTL })
}

// detail is one detail of a refusal as the import page lists it.
type detail struct{ Label, Value string }

// details are a refusal's details in words, by key: "manifestEntry"
// reads "manifest entry".
func details(e *engine.Error) []detail {
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]detail, len(keys))
	for i, k := range keys {
		out[i] = detail{Label: words(k), Value: valueText(e.Details[k])}
	}
	return out
}

// valueText is a detail's value as the page shows it.
func valueText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return text(b)
}

// addedText says how many records an import adds (or, on a dry run,
// would add), and how many the store held already.
func addedText(dryRun bool, added, present int) string {
	t := strconv.Itoa(added) + " added"
	if dryRun {
		t = strconv.Itoa(added) + " to add"
	}
	if present > 0 {
		t += ", " + strconv.Itoa(present) + " already here"
	}
	return t
}
