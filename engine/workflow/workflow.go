// Package workflow owns the workflow source model: what an author writes,
// how it is parsed strictly, and the rules for ids and namespaces. It
// performs no I/O; callers hand it bytes.
package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/workrail/workrail/engine"
)

// StepID identifies a step within a workflow.
type StepID string

// Workflow is the source form of a workflow file.
type Workflow struct {
	Schema      string            `json:"$schema,omitempty"`
	ID          engine.WorkflowID `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Version     string            `json:"version"`
	Steps       []Step            `json:"steps"`
}

// Step is one instruction an agent carries out.
type Step struct {
	ID     StepID `json:"id"`
	Title  string `json:"title"`
	Prompt string `json:"prompt"`
}

// Problem is one precise complaint about a workflow file.
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Problems is the full list of complaints about one file.
type Problems []Problem

func (p Problems) Error() string {
	msgs := make([]string, len(p))
	for i, x := range p {
		msgs[i] = x.Pointer + ": " + x.Message
	}
	return strings.Join(msgs, "; ")
}

var segment = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
var stepID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Parse reads a workflow file strictly: unknown keys, missing fields and
// duplicate step ids are errors (Problems); nothing is partially loaded.
func Parse(b []byte) (Workflow, error) {
	var w Workflow
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Workflow{}, Problems{{Pointer: "", Message: "not a valid workflow document: " + err.Error()}}
	}
	if dec.More() {
		return Workflow{}, Problems{{Pointer: "", Message: "trailing data after the workflow object"}}
	}
	if p := w.check(); len(p) > 0 {
		return Workflow{}, p
	}
	return w, nil
}

func (w Workflow) check() Problems {
	var p Problems
	if err := CheckID(w.ID); err != nil {
		p = append(p, Problem{"/id", err.Error()})
	}
	for _, f := range []struct{ ptr, v string }{{"/name", w.Name}, {"/description", w.Description}, {"/version", w.Version}} {
		if strings.TrimSpace(f.v) == "" {
			p = append(p, Problem{f.ptr, "required and must not be empty"})
		}
	}
	if len(w.Steps) == 0 {
		p = append(p, Problem{"/steps", "a workflow needs at least one step"})
	}
	seen := map[StepID]int{}
	for i, s := range w.Steps {
		ptr := fmt.Sprintf("/steps/%d", i)
		if !stepID.MatchString(string(s.ID)) {
			p = append(p, Problem{ptr + "/id", fmt.Sprintf("step id %q must match [a-z0-9][a-z0-9_-]*", s.ID)})
		}
		if j, dup := seen[s.ID]; dup {
			p = append(p, Problem{ptr + "/id", fmt.Sprintf("duplicate step id %q (also /steps/%d)", s.ID, j)})
		}
		seen[s.ID] = i
		if strings.TrimSpace(s.Title) == "" {
			p = append(p, Problem{ptr + "/title", "required and must not be empty"})
		}
		if strings.TrimSpace(s.Prompt) == "" {
			p = append(p, Problem{ptr + "/prompt", "required and must not be empty"})
		}
	}
	return p
}

// CheckID reports whether id is a valid namespaced workflow id
// ("namespace.name", each segment [a-z][a-z0-9_-]*).
func CheckID(id engine.WorkflowID) error {
	ns, name, ok := strings.Cut(string(id), ".")
	if !ok || strings.Contains(name, ".") {
		return errors.New("workflow id must be namespace.name with exactly one dot, e.g. user.my_review")
	}
	if !segment.MatchString(ns) || !segment.MatchString(name) {
		return fmt.Errorf("workflow id %q: each segment must match [a-z][a-z0-9_-]*", id)
	}
	return nil
}
