// Package legacy reads workflow files written in the TypeScript WorkRail's
// authoring format (the "workrail-ts" dialect, its schema v0.3) into the
// canonical model. It is one pure function over bytes: every rewrite it
// makes is reported as a Warning with a code from a closed set and a JSON
// pointer into the original file, never silently; what the canonical
// language cannot mean the same way is refused as a workflow.Problem with
// the reason. A file is legacy when normalizing it rewrote anything; a
// canonical file goes through workflow.Parse untouched.
//
// Legacy files also get the format's notes policy, notes: "required"
// (every advance needs output.notesMarkdown unless the step says
// notesOptional or requires an output contract), unless they say otherwise.
package legacy

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/workrail/workrail/engine/workflow"
)

// Warning is one rewrite the normalizer made.
type Warning struct {
	Code    Code   `json:"code"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Result is a file read in either dialect.
type Result struct {
	Workflow workflow.Workflow
	// Warnings are the rewrites, in document order; none for a canonical
	// file.
	Warnings []Warning
	// Canonical is the normalized file that was parsed (nil for a
	// canonical file, which is parsed as it is).
	Canonical []byte
}

// Legacy reports whether the file was in the TypeScript format.
func (r Result) Legacy() bool { return len(r.Warnings) > 0 }

// Rewrites are the distinct codes applied, sorted.
func (r Result) Rewrites() []string {
	seen := map[Code]bool{}
	var out []string
	for _, w := range r.Warnings {
		if !seen[w.Code] {
			seen[w.Code] = true
			out = append(out, string(w.Code))
		}
	}
	sort.Strings(out)
	return out
}

// Normalize reads a workflow file in either dialect. Its errors are
// workflow.Problems, located in src.
func Normalize(src []byte) (Result, error) {
	tree, warnings, problems := rewrite(src)
	if len(problems) > 0 {
		return Result{}, locateAll(src, problems)
	}
	if len(warnings) == 0 {
		w, err := workflow.Parse(src)
		return Result{Workflow: w}, err
	}
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/4)
	if err := encode(&buf, tree); err != nil {
		return Result{}, workflow.Problems{{Message: "could not be normalized: " + err.Error()}}
	}
	b := buf.Bytes()
	var w workflow.Workflow
	var err error
	if read, ok := plain(tree); ok {
		w, err = workflow.ParseDecoded(b, read) // b is not read again to check it
	} else {
		w, err = workflow.Parse(b)
	}
	if err != nil {
		var p workflow.Problems
		if errors.As(err, &p) {
			return Result{}, locateAll(src, p)
		}
		return Result{}, err
	}
	return Result{Workflow: w, Warnings: warnings, Canonical: b}, nil
}

// IsLegacy reports whether src is a workflow file in the TypeScript
// format: one the normalizer would rewrite. Editors refuse to save such a
// file as new.
func IsLegacy(src []byte) bool {
	_, warnings, problems := rewrite(src)
	return len(warnings) > 0 || len(problems) > 0
}

// locateAll gives each problem the line and column of its pointer in the
// original file (the nearest existing ancestor when the pointer names a
// rewritten member).
func locateAll(src []byte, p workflow.Problems) workflow.Problems {
	out := make(workflow.Problems, len(p))
	for i, x := range p {
		x.Line, x.Column = 0, 0
		out[i] = workflow.Locate(src, x)
	}
	return out
}

// rewrite normalizes the decoded file; a file that does not decode, or
// is not an object, is left for workflow.Parse to explain.
func rewrite(src []byte) (any, []Warning, workflow.Problems) {
	if !utf8.Valid(src) {
		return nil, nil, nil
	}
	tree, err := decode(src)
	if err != nil {
		return nil, nil, nil
	}
	root, ok := tree.(*object)
	if !ok {
		return nil, nil, nil
	}
	n := &normalizer{origin: map[*object]string{}}
	n.workflow(root)
	if len(n.warnings) == 0 && len(n.problems) == 0 {
		n.detect(root)
	}
	switch {
	case len(n.warnings) > 0 || len(n.problems) > 0:
		n.featureOrder(root)
		n.synthesize(root)
	case !root.has("context"):
		// WorkRail's own format declares every variable a condition reads;
		// the TypeScript format declares none. A file with no context
		// that reads variables is in the old format, whatever else it uses.
		n.synthesize(root)
		if len(n.warnings) > 0 {
			n.featureOrder(root)
		}
	}
	if len(n.warnings) > 0 && !root.has("notes") {
		root.set("notes", string(workflow.NotesRequired))
	}
	return root, n.warnings, n.problems
}

// normalizer collects what rewriting one file did and refused.
type normalizer struct {
	warnings []Warning
	problems workflow.Problems
	// origin is where each step and loop object is in the file as
	// written: a step moved into a loop's body, or one after a step that
	// gained steps of its own, is not where its list now puts it.
	origin map[*object]string
	// defs are the functionDefinitions of the workflow and of each loop
	// around the node being read.
	defs []any
}

func (n *normalizer) warn(code Code, ptr, format string, args ...any) {
	n.warnings = append(n.warnings, Warning{Code: code, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (n *normalizer) refuse(ptr, format string, args ...any) {
	n.problems = append(n.problems, workflow.Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}
