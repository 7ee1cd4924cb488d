package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/engine/workflow/legacy"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// fileReport is one file's result in `workrail validate --json`.
type fileReport struct {
	File         string            `json:"file"`
	Valid        bool              `json:"valid"`
	WorkflowID   string            `json:"workflowId,omitempty"`
	WorkflowHash string            `json:"workflowHash,omitempty"`
	Problems     workflow.Problems `json:"problems"`
	Warnings     []catalog.Notice  `json:"warnings,omitempty"`
	// RefusedForNewFiles says why a new file must not be written like
	// this one (the TypeScript format, an id without namespace), though
	// this one loads and runs.
	RefusedForNewFiles []string `json:"refusedForNewFiles,omitempty"`
}

// Why a file's shape is refused for new files.
const (
	refusedLegacyFormat = "written in the TypeScript WorkRail format: it runs, but write new workflows in WorkRail's own format"
	refusedLegacyID     = "its id has no namespace: it runs, but new workflows need namespace.name"
	refusedReservedID   = "its id is in the wr namespace, WorkRail's own: it loads under the id its warning names, but a new workflow needs an id of its own"
)

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	bundled := fs.Bool("bundled", false, "check as a bundled workflow (allows the reserved wr namespace)")
	builtins := fs.Bool("catalog", false, "print the builtins catalog (features, templates, contracts, operators, loops, routines…) instead")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if *builtins {
		return printCatalog(stdout, stderr, *asJSON)
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, "workrail validate: name at least one file or folder\n\n")
		commandUsage(fs, stderr)
		return 2
	}
	kind := catalog.User
	if *bundled {
		kind = catalog.Bundled
	}
	reports := validateFiles(fs.Args(), kind)
	ok := true
	for _, r := range reports {
		ok = ok && r.Valid
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"valid": ok, "files": reports})
	} else {
		printValidation(stdout, reports)
	}
	if !ok {
		return 1
	}
	return 0
}

// validateFiles checks the files named, and the *.json files of each
// folder named with its subfolders (as the daemon reads a source
// folder), as one set: a routine call resolves among them, then among
// the bundled routines.
func validateFiles(args []string, kind catalog.SourceKind) []fileReport {
	var reports []fileReport
	var files []catalog.File
	paths, unread := expand(args)
	for _, u := range unread {
		reports = append(reports, fileReport{File: u.File, Problems: u.Problems})
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			reports = append(reports, fileReport{File: path, Problems: workflow.Problems{{Message: err.Error()}}})
			continue
		}
		files = append(files, catalog.File{Name: path, Data: b})
	}
	bundled, _ := catalog.LoadFS(workflows.FS, catalog.Source{Kind: catalog.Bundled})
	entries, problems := catalog.LoadSet(files, catalog.Source{Kind: kind}, catalog.RoutinesOf(bundled), places(args)...)
	byFile := map[string]fileReport{}
	for _, e := range entries {
		byFile[e.File] = fileReport{File: e.File, Valid: true, WorkflowID: string(e.Compiled.ID),
			WorkflowHash: e.Compiled.Hash.String(), Problems: workflow.Problems{}, Warnings: e.Warnings}
	}
	for _, p := range problems {
		byFile[p.File] = fileReport{File: p.File, Problems: p.Problems}
	}
	for _, f := range files {
		r := byFile[f.Name]
		if legacy.IsLegacy(f.Data) {
			r.RefusedForNewFiles = append(r.RefusedForNewFiles, refusedLegacyFormat)
		}
		id := catalog.IDOf(f.Data)
		if status, err := workflow.StatusOf(id); err == nil && status == workflow.Legacy {
			r.RefusedForNewFiles = append(r.RefusedForNewFiles, refusedLegacyID)
		}
		if kind != catalog.Bundled && workflow.Reserved(id) {
			r.RefusedForNewFiles = append(r.RefusedForNewFiles, refusedReservedID)
		}
		reports = append(reports, r)
	}
	return reports
}

// places names the files and folders given, as a routine call's problem
// says where it was looked for.
func places(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if info, err := os.Stat(a); err == nil && info.IsDir() {
			out[i] += " (and its subfolders)"
		}
	}
	return out
}

// expand replaces each folder by its workflow files, as the daemon lists
// a source folder (sources.Files): its *.json files and its subfolders',
// sorted; unread are the subfolders it leaves out, and why. A file named
// twice (a folder and a folder inside it) is checked once.
func expand(args []string) (paths []string, unread []catalog.LoadProblem) {
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil || !info.IsDir() {
			add(a)
			continue
		}
		files, u, err := sources.Files(a)
		if err != nil {
			unread = append(unread, catalog.LoadProblem{File: a, Problems: workflow.Problems{{Message: err.Error()}}})
			continue
		}
		for _, f := range files {
			add(filepath.Clean(f))
		}
		unread = append(unread, u...)
	}
	return paths, unread
}

func printValidation(w io.Writer, reports []fileReport) {
	for _, r := range reports {
		if r.Valid {
			fmt.Fprintf(w, "%s: ok (%s, %s)\n", r.File, r.WorkflowID, r.WorkflowHash)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "%s:%s\n", r.File, p)
		}
		for _, n := range r.Warnings {
			where := ""
			if n.Rewrite != "" {
				where += " " + string(n.Rewrite)
			}
			if n.Pointer != "" {
				where += " at " + n.Pointer
			}
			fmt.Fprintf(w, "%s: warning %s%s: %s\n", r.File, n.Code, where, n.Message)
		}
		for _, why := range r.RefusedForNewFiles {
			fmt.Fprintf(w, "%s: refused for new files: %s\n", r.File, why)
		}
	}
}
