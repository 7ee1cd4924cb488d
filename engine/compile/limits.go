package compile

import (
	"fmt"
	"strconv"

	"github.com/workrail/workrail/engine/workflow"
)

// Limits bound what compiling one workflow may build. A workflow file is
// at most 1 MiB, but a routine call repeats its routine's steps, and a
// contract example or a function definition is repeated in the prompt of
// every step that names it: a small file can ask for gigabytes. Each
// limit is checked where the thing is built, before it is built: routine
// calls are counted before any is expanded, each prompt is measured
// before it is written, and the compiled form is measured once sealed.
type Limits struct {
	// Steps bounds the steps and loops of the compiled workflow, its
	// routine calls expanded.
	Steps int
	// Bytes bounds the compiled workflow as it is pinned (its canonical
	// JSON: prompts, conditions, contracts and the rest), and so the
	// text its routine calls copy and its prompts together.
	Bytes int
	// Prompt bounds one step's title and prompt together: as compiled,
	// and as rendered with a run's context (package run).
	Prompt int
}

// The limits every workflow is compiled under. The largest workflow of
// the libraries WorkRail reads (a 90 KB file of the TypeScript format)
// compiles to 39 steps and 110 KB, its longest prompt 3.3 KB.
const (
	MaxSteps       = 1000
	MaxBytes       = 4 << 20
	MaxPromptBytes = 256 << 10
)

// DefaultLimits are MaxSteps, MaxBytes and MaxPromptBytes.
func DefaultLimits() Limits {
	return Limits{Steps: MaxSteps, Bytes: MaxBytes, Prompt: MaxPromptBytes}
}

// LimitKind is the closed set of limits a workflow can be over.
type LimitKind string

// Limit kinds.
const (
	// LimitSteps: steps and loops once routine calls are expanded.
	LimitSteps LimitKind = "steps"
	// LimitCopies: the bytes routine calls copy, counted before any is
	// expanded (Limits.Bytes).
	LimitCopies LimitKind = "copies"
	// LimitPrompts: the bytes of every step's title and prompt together
	// (Limits.Bytes).
	LimitPrompts LimitKind = "prompts"
	// LimitBytes: the compiled workflow's canonical JSON.
	LimitBytes LimitKind = "bytes"
	// LimitPrompt: one step's title and prompt (Limits.Prompt).
	LimitPrompt LimitKind = "prompt"
)

// LimitError is a workflow over one of its limits: what it expands to,
// the limit, and where the count passed the limit (a JSON pointer into
// the source, "" for the whole file). Nothing over the limit was built.
type LimitError struct {
	Kind  LimitKind
	Size  int // steps, or bytes
	Limit int
	// Pointer is the step of the source at which the count passed the
	// limit: the routine call, or the step whose prompt it is.
	Pointer string
	// Step is the compiled step whose prompt is over (LimitPrompt).
	Step workflow.StepID
}

func (e *LimitError) Error() string {
	switch e.Kind {
	case LimitSteps:
		return fmt.Sprintf("expands to %s steps once its routine calls are expanded, over the limit of %s: call fewer routines, or split the workflow",
			Grouped(e.Size), Grouped(e.Limit))
	case LimitCopies:
		return fmt.Sprintf("expands to %s bytes: its routine calls copy that much of their routines' steps, over the limit of %s for a workflow; call fewer routines, or make them shorter",
			Bytes(e.Size), Bytes(e.Limit))
	case LimitPrompts:
		return fmt.Sprintf("expands to %s bytes of prompts (a contract example, a function or a routine's text is repeated in every step that uses it), over the limit of %s for a workflow",
			Bytes(e.Size), Bytes(e.Limit))
	case LimitPrompt:
		return fmt.Sprintf("step %s: its title and prompt expand to %s bytes, over the limit of %s for one prompt: shorten them, or split the step",
			e.Step, Bytes(e.Size), Bytes(e.Limit))
	}
	return fmt.Sprintf("expands to %s bytes compiled, over the limit of %s for a workflow: shorten it, or split it",
		Bytes(e.Size), Bytes(e.Limit))
}

// Grouped writes n with thousands separators: 1,048,576.
func Grouped(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Bytes writes a byte count for people: the exact count, and in KiB or
// MiB when it is one ("262,144 (256 KiB)").
func Bytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%s (%d MiB)", Grouped(n), n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%s (%d KiB)", Grouped(n), n>>10)
	}
	return Grouped(n)
}
