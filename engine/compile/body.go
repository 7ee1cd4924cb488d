package compile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// body is a routine as each of its calls expands it: lowered once (its
// metaGuidance on every step), with what one call copies into the
// compiled workflow besides its arguments. Every call shares the body's
// texts; a call writes anew only the texts its arguments change.
type body struct {
	r     workflow.Workflow
	nodes []Node
	steps int // steps and loops
	// ids is the bytes of the body's step and loop ids, each of which a
	// call writes again behind the caller's id.
	ids int
	// shared is the bytes of what a call repeats in the compiled form
	// without writing it: the JSON of every step's conditions,
	// fragments, checks, delegations and injected guidance, and of every
	// loop's spec.
	shared int
	// bare counts the steps and loops without a runCondition: each
	// takes its caller's.
	bare int
	// args maps each text that holds an argument to where ({name} at
	// [start, end), the name at [start+1, end-1)); texts is their bytes,
	// counted as often as they occur, and uses how often each name does.
	args  map[string][][2]int
	texts int
	uses  map[string]int
}

// body returns the routine id names, lowered once per compilation, or
// why step, its first caller, cannot call it.
func (e *expander) body(id engine.WorkflowID, step workflow.StepID) (*body, error) {
	if b, ok := e.bodies[id]; ok {
		return b.b, b.err
	}
	b, err := e.lowerBody(id, step)
	if e.bodies == nil {
		e.bodies = map[engine.WorkflowID]lowered{}
	}
	e.bodies[id] = lowered{b, err}
	return b, err
}

// MissingRoutineError is a call of a routine that the routines the
// compiler was given (Options.Routines) do not hold; the caller knows
// where those were looked for, and says it.
type MissingRoutineError struct {
	Step    workflow.StepID
	Routine engine.WorkflowID
	// Pointer is the calling step in the source.
	Pointer string
}

func (e *MissingRoutineError) Error() string {
	return fmt.Sprintf("compile: step %s calls routine %q, which is neither among the workflows loaded with it nor bundled", e.Step, e.Routine)
}

// lowered is a routine lowered for its calls, or why it cannot be.
type lowered struct {
	b   *body
	err error
}

func (e *expander) lowerBody(id engine.WorkflowID, step workflow.StepID) (*body, error) {
	var r workflow.Workflow
	found := false
	if e.find != nil {
		r, found = e.find(id)
	}
	switch {
	case !found:
		return nil, &MissingRoutineError{Step: step, Routine: id}
	case r.Kind != workflow.KindRoutine:
		return nil, fmt.Errorf("compile: step %s calls %q, which is a workflow, not a routine (kind \"routine\")", step, id)
	case len(r.Assessments) > 0 || len(r.Contracts) > 0:
		return nil, fmt.Errorf("compile: routine %s declares assessments or contracts, which an expanded routine cannot bring along", id)
	}
	prov := Provenance{Origin: FromTemplate, By: string(r.ID)}
	lw := lowering{prov: prov}
	nodes := lw.nodes(r.Steps, r.AgentRole, [][]workflow.FunctionDef{r.FunctionDefinitions}, "")
	var guidance []Injection
	for i, g := range r.MetaGuidance {
		guidance = append(guidance, Injection{ID: fmt.Sprintf("%s%s/%d", guidancePrefix, r.ID, i+1), Text: g, Provenance: prov})
	}
	b := &body{r: r, args: map[string][][2]int{}, uses: map[string]int{}}
	var nested error
	b.nodes = renameNodes(nodes, func(st Step) Step {
		if st.template != nil && nested == nil {
			nested = fmt.Errorf("compile: routine %s calls a template itself (step %s); routines are expanded one level deep", id, st.ID)
		}
		// The step's role goes to the routine's callers: set per call.
		st.Injections = append(slices.Clip(st.Injections), guidance...)
		b.measureStep(st)
		return st
	}, func(l Loop) Loop {
		b.measure(l.ID, l.RunCondition, l.Title)
		b.shared += jsonSize(repeated{Loop: &l.Spec, LoopCondition: l.RunCondition})
		return l
	})
	if nested != nil {
		return nil, nested
	}
	return b, nil
}

// measureStep adds what one call copies of step st.
func (b *body) measureStep(st Step) {
	b.measure(st.ID, st.RunCondition, st.Title, st.raw)
	if st.blocks != nil {
		b.measure("", nil, st.blocks.Goal)
		for _, list := range [][]string{st.blocks.Constraints, st.blocks.Procedure, st.blocks.OutputRequired, st.blocks.Verify} {
			b.measure("", nil, list...)
		}
	}
	b.shared += jsonSize(repeated{st.RunCondition, st.ConfirmWhen, st.Output, st.UserDependency, st.Injections,
		st.Fragments, st.Delegations, st.Consequences, st.Criteria, nil, nil})
}

// repeated is what a routine's step or loop repeats in every copy of it
// besides its id and texts, measured as JSON.
type repeated struct {
	RunCondition   *workflow.Condition           `json:"a,omitempty"`
	ConfirmWhen    *workflow.Condition           `json:"b,omitempty"`
	Output         *workflow.OutputSpec          `json:"c,omitempty"`
	UserDependency *workflow.UserDependency      `json:"d,omitempty"`
	Injections     []Injection                   `json:"e,omitempty"`
	Fragments      []workflow.Fragment           `json:"f,omitempty"`
	Delegations    []workflow.ParallelDelegation `json:"g,omitempty"`
	Consequences   []workflow.Consequence        `json:"h,omitempty"`
	Criteria       []workflow.Criterion          `json:"i,omitempty"`
	Loop           *workflow.LoopSpec            `json:"j,omitempty"`
	LoopCondition  *workflow.Condition           `json:"k,omitempty"`
}

// measure adds a step's or loop's id and texts; an id is "" for texts
// of a step already counted. A node without a runCondition is bare.
func (b *body) measure(id workflow.StepID, cond *workflow.Condition, texts ...string) {
	if id != "" {
		b.steps++
		b.ids += len(id)
		if cond == nil {
			b.bare++
		}
	}
	for _, t := range texts {
		ms, ok := b.args[t]
		if !ok {
			ms = argsIn(t)
			if len(ms) == 0 {
				continue
			}
			b.args[t] = ms
		}
		b.texts += len(t)
		for _, m := range ms {
			b.uses[t[m[0]+1:m[1]-1]]++
		}
	}
}

// copies is the bytes one call of b by caller, with args, copies into
// the compiled workflow: its ids and the texts its arguments change,
// written anew, and the structure every copy repeats. The caller's
// runCondition is repeated on every bare step.
func (b *body) copies(caller workflow.StepID, cond *workflow.Condition, args map[string]string) int {
	n := b.ids + b.steps*(len(caller)+len(RoutineSeparator)) + b.texts + b.shared
	for name, uses := range b.uses {
		if v, ok := args[name]; ok {
			n += uses * (len(v) - len(name) - 2)
		}
	}
	if cond != nil {
		n += b.bare * jsonSize(cond)
	}
	return n
}

// argPattern is a routine argument in text: {name}, but not part of a
// {{context}} reference.
var argPattern = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// argsIn finds the arguments in text: each {name} not next to another
// brace.
func argsIn(text string) [][2]int {
	if !strings.Contains(text, "{") {
		return nil
	}
	var out [][2]int
	for _, m := range argPattern.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		if (start > 0 && text[start-1] == '{') || (end < len(text) && text[end] == '}') {
			continue
		}
		out = append(out, [2]int{start, end})
	}
	return out
}

// substitute replaces the arguments in text, one of b's, with their
// values: a text without any is returned as it is, shared.
func (b *body) substitute(text string, args map[string]string, used map[string]bool, missing *[]string) string {
	ms := b.args[text]
	if len(ms) == 0 {
		return text
	}
	var out strings.Builder
	last := 0
	for _, m := range ms {
		name := text[m[0]+1 : m[1]-1]
		v, ok := args[name]
		if !ok {
			if !slices.Contains(*missing, name) {
				*missing = append(*missing, name)
			}
			continue
		}
		used[name] = true
		out.WriteString(text[last:m[0]])
		out.WriteString(v)
		last = m[1]
	}
	out.WriteString(text[last:])
	return out.String()
}

// tally counts what a workflow's steps expand to, and where each count
// first passed its limit.
type tally struct {
	steps, copies     int
	stepsAt, copiesAt string
}

// check counts what the steps of src expand to, routine calls included,
// before anything is expanded, and refuses a workflow over its limits.
// A call that cannot be expanded counts as one step here; expanding it
// says why.
func (e *expander) check(list []workflow.Node) error {
	var t tally
	e.count(list, "/steps", &t)
	switch {
	case t.steps > e.limits.Steps:
		return &LimitError{Kind: LimitSteps, Size: t.steps, Limit: e.limits.Steps, Pointer: t.stepsAt}
	case t.copies > e.limits.Bytes:
		return &LimitError{Kind: LimitCopies, Size: t.copies, Limit: e.limits.Bytes, Pointer: t.copiesAt}
	}
	return nil
}

func (e *expander) count(list []workflow.Node, ptr string, t *tally) {
	for i, n := range list {
		p := ptr + "/" + strconv.Itoa(i)
		steps, copies := 1, 0
		switch s := n.Step; {
		case n.Loop != nil:
			e.count(n.Loop.Body, p+"/body", t)
		case calls(s.Template):
			b, err := e.body(engine.WorkflowID(s.Template.ID), s.ID)
			args, aerr := argTexts(s.Template.Args)
			if err == nil && aerr == nil {
				steps, copies = b.steps, b.copies(s.ID, s.RunCondition, args)
			}
		}
		t.steps += steps
		t.copies += copies
		if t.steps > e.limits.Steps && t.stepsAt == "" {
			t.stepsAt = p
		}
		if t.copies > e.limits.Bytes && t.copiesAt == "" {
			t.copiesAt = p
		}
	}
}

// jsonSize is the length of v's JSON, as the compiled form's canonical
// encoding about writes it (no HTML escapes).
func jsonSize(v any) int {
	var n counter
	enc := json.NewEncoder(&n)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return 0
	}
	return int(n) - 1 // Encode ends with a newline
}

// counter is an io.Writer that counts what is written to it.
type counter int

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}
