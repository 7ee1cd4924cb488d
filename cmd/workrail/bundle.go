package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// gzipped says whether a file name asks for gzip: the name alone decides,
// so a bundle's bytes never depend on where they were written.
func gzipped(name string) bool { return strings.HasSuffix(name, ".json.gz") }

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	out := fs.String("o", "", "write to `FILE` instead of stdout (gzip when it ends in .json.gz)")
	redactNotes := fs.Bool("redact-notes", false, "replace every note body with a marker (the bundle says so), for sharing without them")
	redact := fs.Bool("redact", false, "mask everything an agent or a person wrote (notes, artifacts, gap texts, context values) and the observations (paths, branch, commit); it implies --redact-notes")
	markdown := fs.Bool("markdown", false, "write the session as Markdown (notes, steps, gaps, forks) for a pull request, not a bundle")
	schema := fs.Bool("schema", false, "print the bundle format's JSON Schema and exit")
	pos, code, done := parseFlagsAnywhere(fs, args, stdout, stderr)
	if done {
		return code
	}
	if *schema {
		stdout.Write(bundle.Schema())
		return 0
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, "workrail export: name one session, as `workrail sessions` lists it (ses_N)\n\n")
		commandUsage(fs, stderr)
		return 2
	}
	var id engine.SessionID
	if err := id.UnmarshalText([]byte(pos[0])); err != nil {
		fmt.Fprintf(stderr, "workrail export: %q is not a session id (ses_N, as `workrail sessions` lists them)\n", pos[0])
		return 2
	}
	o := bundle.ExportOptions{RedactNotes: *redactNotes, Redact: *redact}
	b, err := exportSession(id, o, *markdown, stderr)
	if err == nil {
		err = writeOut(*out, b, !*markdown && gzipped(*out), stdout)
	}
	if err != nil {
		return printFailure(false, "export", err, stdout, stderr)
	}
	if *out != "" {
		fmt.Fprintf(stderr, "Wrote %s (%s).\n", *out, exportedText(id, o.Level(), *markdown))
	}
	return 0
}

// exportedText names what export wrote.
func exportedText(id engine.SessionID, level bundle.Redaction, markdown bool) string {
	what := "the bundle of session " + id.String()
	if markdown {
		what = "session " + id.String() + " as Markdown"
	}
	switch level {
	case bundle.RedactNotes:
		what += ", note bodies redacted"
	case bundle.RedactAll:
		what += ", redacted (notes, artifacts, gap texts, context values and observations masked)"
	}
	return what
}

// exportSession asks the running daemon for the export, or reads the
// file itself, read-only, while none runs.
func exportSession(id engine.SessionID, o bundle.ExportOptions, markdown bool, stderr io.Writer) ([]byte, error) {
	h, err := home.Resolve()
	if err != nil {
		return nil, err
	}
	path := "/api/sessions/" + url.PathEscape(id.String()) + "/bundle"
	if markdown {
		path = "/api/sessions/" + url.PathEscape(id.String()) + "/markdown"
	}
	switch o.Level() {
	case bundle.RedactAll:
		path += "?redact=true"
	case bundle.RedactNotes:
		path += "?redactNotes=true"
	}
	b, err := exchange(h, "GET", path, nil, daemon.MaxBundle)
	if !errors.Is(err, errNotRunning) {
		return b, err
	}
	st, err := openReadOnly(h)
	if errors.Is(err, os.ErrNotExist) {
		return nil, engine.Errorf(engine.CodeInvalidInput, "there is no session %s: nothing is recorded in %s yet", id, h).With("sessionId", id.String())
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	uc, err := daemon.Service(h, st, stderr)
	if o.Redact {
		uc, err = scanningService(h, st, stderr) // a key holding a secret is masked too
	}
	if err != nil {
		return nil, err
	}
	if markdown {
		md, err := uc.ExportMarkdown(id, o)
		return []byte(md), err
	}
	return uc.Export(id, o)
}

// writeOut writes b to the file named out (packed with gzip when zip),
// replacing it only once it is whole, or to stdout when out is "". The
// file is readable by the user alone (0600), as the database is: an
// export holds their notes.
func writeOut(out string, b []byte, zip bool, stdout io.Writer) error {
	if out == "" {
		_, err := stdout.Write(b)
		return err
	}
	if zip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z) // no name, no time: the same bundle packs to the same bytes
		w.Write(b)
		if err := w.Close(); err != nil {
			return err
		}
		b = z.Bytes()
	}
	if err := home.WriteFileAtomic(out, b, 0o600); err != nil {
		return engine.Errorf(engine.CodeInvalidInput, "cannot write %s: %v", out, err).With("path", out)
	}
	return nil
}

func runImport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	dryRun := fs.Bool("dry-run", false, "verify the bundle and say what would be created; write nothing")
	asJSON := fs.Bool("json", false, "print the report as JSON (a refusal as the error envelope)")
	pos, code, done := parseFlagsAnywhere(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, "workrail import: name one bundle file (.json or .json.gz; - reads JSON from stdin)\n\n")
		commandUsage(fs, stderr)
		return 2
	}
	rep, err := importFile(pos[0], *dryRun, stderr)
	switch {
	case err != nil && *asJSON:
		return printFailure(true, "import", err, stdout, stderr)
	case err != nil:
		printRefusal(stderr, "import", err)
		return 1
	case *asJSON:
		printJSON(stdout, rep)
	default:
		fmt.Fprint(stdout, importText(rep))
	}
	return 0
}

// importFile reads the bundle in file and imports it through the running
// daemon, or into the file itself (holding its lock) while none runs.
func importFile(file string, dryRun bool, stderr io.Writer) (bundle.ImportReport, error) {
	var rep bundle.ImportReport
	b, err := readBundle(file)
	if err != nil {
		return rep, err
	}
	h, err := home.Resolve()
	if err != nil {
		return rep, err
	}
	path := "/api/import"
	if dryRun {
		path += "?dryRun=true"
	}
	answer, err := exchange(h, "POST", path, bytes.NewReader(b), 16<<20)
	if err == nil {
		return rep, json.Unmarshal(answer, &rep)
	}
	if !errors.Is(err, errNotRunning) {
		return rep, err
	}
	if err := h.CheckPrivate(); err != nil {
		return rep, err
	}
	st, err := store.Open(h.DB(), store.Options{Now: time.Now})
	if errors.Is(err, store.ErrLocked) {
		return rep, heldFile(h)
	}
	if err != nil {
		return rep, err
	}
	defer st.Close()
	uc, err := daemon.Service(h, st, stderr)
	if err != nil {
		return rep, err
	}
	return uc.Import(b, dryRun)
}

// readBundle reads a bundle's JSON from file ("-": stdin), unpacking a
// .json.gz, at most daemon.MaxBundle bytes of it.
func readBundle(file string) ([]byte, error) {
	var r io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, engine.Errorf(engine.CodeInvalidInput, "cannot read the bundle: %v", err).With("path", file)
		}
		defer f.Close()
		r = f
	}
	if gzipped(file) {
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, engine.Errorf(engine.CodeInvalidInput, "%s is named .json.gz but is not gzip data: %v", file, err).With("path", file)
		}
		defer z.Close()
		r = z
	}
	b, err := io.ReadAll(io.LimitReader(r, daemon.MaxBundle+1))
	switch {
	case err != nil:
		return nil, engine.Errorf(engine.CodeInvalidInput, "cannot read the bundle %s: %v", file, err).With("path", file)
	case len(b) > daemon.MaxBundle:
		return nil, engine.Errorf(engine.CodePayloadTooLarge, "the bundle %s is larger than %d MiB unpacked", file, daemon.MaxBundle>>20).
			With("path", file).With("limitBytes", daemon.MaxBundle)
	}
	return b, nil
}

// importText is an import's report in words.
func importText(r bundle.ImportReport) string {
	var b strings.Builder
	from := "session " + r.Source.String()
	if r.Title != "" {
		from += fmt.Sprintf(" (%q)", daemon.Clip(r.Title, 60))
	}
	what := fmt.Sprintf("%s, %s, %s", plural(r.Runs, "run"), plural(r.Nodes, "node"), plural(r.Events, "event"))
	added := fmt.Sprintf("%s and %s", plural(r.SnapshotsAdded, "snapshot"), plural(r.WorkflowsAdded, "pinned workflow"))
	if r.DryRun {
		fmt.Fprintf(&b, "Would import %s as a new session: %s; it would add %s. Nothing was written.\n", from, what, added)
	} else {
		fmt.Fprintf(&b, "Imported %s as %s: %s; %s added.\n", from, r.Session, what, added)
	}
	if n := r.SnapshotsPresent + r.WorkflowsPresent; n > 0 {
		fmt.Fprintf(&b, "Already stored here: %s and %s.\n", plural(r.SnapshotsPresent, "snapshot"), plural(r.WorkflowsPresent, "pinned workflow"))
	}
	switch r.Redaction {
	case bundle.RedactNotes:
		b.WriteString("Its note bodies were redacted when it was exported.\n")
	case bundle.RedactAll:
		b.WriteString("It was redacted when it was exported: what was written in it is masked.\n")
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if !r.DryRun {
		b.WriteString("A new chat finds it with resume_session; `workrail sessions` lists it.\n")
	}
	return b.String()
}

func plural(n int, what string) string { return daemon.Plural(n, what) }

// printRefusal says on stderr why a command was refused, with the
// details of the error envelope (for a bundle: the manifest entry, the
// expected and actual digest, the event index).
func printRefusal(stderr io.Writer, command string, err error) {
	fmt.Fprintf(stderr, "workrail %s: %v\n", command, err)
	var e *engine.Error
	if !errors.As(err, &e) {
		return
	}
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(stderr, "  %s: %v\n", k, e.Details[k])
	}
}

// parseFlagsAnywhere parses flags before, between and after the
// positional arguments (`export ses_1 -o x.json`), which the flag package
// alone stops at; after "--" every argument is positional.
func parseFlagsAnywhere(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (positional []string, code int, done bool) {
	for {
		if code, done := parseFlags(fs, args, stdout, stderr); done {
			return nil, code, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, 0, false
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(positional, rest...), 0, false
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}
