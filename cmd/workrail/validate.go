package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// fileReport is one file's result in `workrail validate --json`.
type fileReport struct {
	File         string            `json:"file"`
	Valid        bool              `json:"valid"`
	WorkflowID   string            `json:"workflowId,omitempty"`
	WorkflowHash string            `json:"workflowHash,omitempty"`
	Problems     workflow.Problems `json:"problems"`
	Warnings     []catalog.Notice  `json:"warnings,omitempty"`
}

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
		fmt.Fprint(stderr, "workrail validate: name at least one file\n\n")
		commandUsage(fs, stderr)
		return 2
	}
	kind := catalog.User
	if *bundled {
		kind = catalog.Bundled
	}
	reports := make([]fileReport, 0, fs.NArg())
	for _, path := range fs.Args() {
		reports = append(reports, validateFile(path, kind))
	}
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

func validateFile(path string, kind catalog.SourceKind) fileReport {
	r := fileReport{File: path, Problems: workflow.Problems{}}
	b, err := os.ReadFile(path)
	if err != nil {
		r.Problems = append(r.Problems, workflow.Problem{Message: err.Error()})
		return r
	}
	c, warnings, problems := catalog.Validate(b, kind)
	if len(problems) > 0 {
		r.Problems = problems
		return r
	}
	r.Valid, r.WorkflowID, r.WorkflowHash, r.Warnings = true, string(c.ID), c.Hash.String(), warnings
	return r
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
			fmt.Fprintf(w, "%s: warning %s: %s\n", r.File, n.Code, n.Message)
		}
	}
}
