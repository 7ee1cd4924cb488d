// Package compile turns a source workflow into the compiled form that runs
// are pinned to, and computes its workflowHash. It is pure.
package compile

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/workflow"
)

// Workflow is a compiled workflow: everything a run needs, fully expanded.
// Its canonical JSON is what workflowHash covers and what the store pins.
type Workflow struct {
	ID          engine.WorkflowID `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Version     string            `json:"version"`
	Steps       []Step            `json:"steps"`
}

// Step is a compiled step with its final rendered prompt.
type Step struct {
	ID     workflow.StepID `json:"id"`
	Title  string          `json:"title"`
	Prompt string          `json:"prompt"`
}

// Compiled pairs a compiled workflow with its canonical bytes and hash.
type Compiled struct {
	Workflow
	Canonical []byte
	Hash      engine.WorkflowHash
	steps     map[workflow.StepID]int
}

// Compile expands w into its compiled form and hashes it.
func Compile(w workflow.Workflow) (Compiled, error) {
	c := Workflow{ID: w.ID, Name: w.Name, Description: w.Description, Version: w.Version}
	for _, s := range w.Steps {
		c.Steps = append(c.Steps, Step{ID: s.ID, Title: s.Title, Prompt: s.Prompt})
	}
	return Seal(c)
}

// Seal computes the canonical bytes and hash of an already compiled
// workflow (e.g. one loaded back from the store).
func Seal(c Workflow) (Compiled, error) {
	b, d, err := canon.Digest(c)
	if err != nil {
		return Compiled{}, err
	}
	return Restore(c, b, engine.WorkflowHash(d)), nil
}

// Restore rebuilds a Compiled from a pinned copy whose bytes and hash the
// caller has already verified.
func Restore(c Workflow, canonical []byte, h engine.WorkflowHash) Compiled {
	steps := make(map[workflow.StepID]int, len(c.Steps))
	for i, s := range c.Steps {
		steps[s.ID] = i
	}
	return Compiled{Workflow: c, Canonical: canonical, Hash: h, steps: steps}
}

// StepIndex returns the position of step id, or -1.
func (c Compiled) StepIndex(id workflow.StepID) int {
	if i, ok := c.steps[id]; ok {
		return i
	}
	return -1
}
