package workflow

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
)

var (
	stepIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	namePattern   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Bounds on what a workflow may declare.
const (
	MaxOptions = 10
)

// checker collects semantic problems; scope is the context inputs that
// conditions may read.
type checker struct {
	problems Problems
	inputs   map[string]ContextInput
	ids      map[StepID]string
	// What steps may name: declared assessments and contracts, and the
	// function definitions in scope (workflow, then enclosing loops).
	assessments map[AssessmentID]Assessment
	contracts   map[ContractRef]bool
	functions   []map[string]bool
}

func (c *checker) add(ptr, format string, args ...any) {
	c.problems = append(c.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) suggest(ptr, msg, didYouMean string) {
	c.problems = append(c.problems, Problem{Pointer: ptr, Message: msg, DidYouMean: didYouMean})
}

func (c *checker) nonEmpty(ptr, v string) {
	if strings.TrimSpace(v) == "" {
		c.add(ptr, "required and must not be empty")
	}
}

func (w Workflow) check() Problems {
	c := &checker{inputs: map[string]ContextInput{}, ids: map[StepID]string{},
		assessments: map[AssessmentID]Assessment{}, contracts: map[ContractRef]bool{}}
	if _, err := StatusOf(w.ID); err != nil {
		c.add("/id", "%v", err)
	}
	if w.Kind != "" && !oneOf(w.Kind, []Kind{KindWorkflow, KindRoutine}) {
		c.add("/kind", "must be \"workflow\" or \"routine\", not %q", w.Kind)
	}
	c.nonEmpty("/name", w.Name)
	c.nonEmpty("/description", w.Description)
	c.nonEmpty("/version", w.Version)
	c.features(w.Features)
	c.capabilities(w.Capabilities)
	c.preferences(w.RecommendedPreferences)
	c.contextInputs(w.Context)
	c.metadata(w)
	if len(w.Steps) == 0 {
		c.add("/steps", "a workflow needs at least one step")
	}
	c.nodes(w.Steps, "/steps")
	return c.problems
}

func (c *checker) features(fs []FeatureID) {
	seen := map[FeatureID]bool{}
	for i, f := range fs {
		ptr := fmt.Sprintf("/features/%d", i)
		switch {
		case !oneOf(f, Features()):
			c.suggest(ptr, fmt.Sprintf("unknown feature %q; features are %s", f, strings.Join(names(Features()), ", ")), engine.Closest(string(f), names(Features())))
		case seen[f]:
			c.add(ptr, "feature %q is listed twice", f)
		}
		seen[f] = true
	}
}

func (c *checker) capabilities(caps map[Capability]Need) {
	for _, k := range sortedKeys(caps) {
		ptr := "/capabilities/" + engine.PointerToken(string(k))
		if !oneOf(k, Capabilities()) {
			c.suggest(ptr, fmt.Sprintf("unknown capability %q; capabilities are %s", k, strings.Join(names(Capabilities()), ", ")), engine.Closest(string(k), names(Capabilities())))
		}
		if v := caps[k]; !oneOf(v, []Need{Required, Preferred}) {
			c.add(ptr, "must be \"required\" or \"preferred\", not %q", v)
		}
	}
}

func (c *checker) preferences(p *Preferences) {
	if p == nil {
		return
	}
	if p.Autonomy != "" && !oneOf(p.Autonomy, []Autonomy{Guided, FullAutoStopOnUserDep, FullAutoNeverStop}) {
		c.add("/recommendedPreferences/autonomy", "must be guided, full_auto_stop_on_user_deps or full_auto_never_stop, not %q", p.Autonomy)
	}
	if p.RiskPolicy != "" && !oneOf(p.RiskPolicy, []RiskPolicy{Conservative, Balanced, Aggressive}) {
		c.add("/recommendedPreferences/riskPolicy", "must be conservative, balanced or aggressive, not %q", p.RiskPolicy)
	}
}

func (c *checker) contextInputs(in []ContextInput) {
	for i, x := range in {
		ptr := fmt.Sprintf("/context/%d", i)
		if !namePattern.MatchString(x.Name) {
			c.add(ptr+"/name", "context input name %q must match [A-Za-z_][A-Za-z0-9_]*", x.Name)
		} else if _, dup := c.inputs[x.Name]; dup {
			c.add(ptr+"/name", "context input %q is declared twice", x.Name)
		}
		if !oneOf(x.Type, []ValueType{TypeString, TypeNumber, TypeInteger, TypeBoolean, TypeArray}) {
			c.add(ptr+"/type", "must be string, number, integer, boolean or array, not %q", x.Type)
		}
		c.nonEmpty(ptr+"/description", x.Description)
		if x.Required && x.SetDuringRun {
			c.add(ptr+"/setDuringRun", "input %q is set during the run, so a start cannot require it: drop required, or setDuringRun if a person gives it at the start", x.Name)
		}
		for j, e := range x.Enum {
			if err := x.Type.accepts(e); err != nil {
				c.add(fmt.Sprintf("%s/enum/%d", ptr, j), "%v", err)
			}
		}
		c.inputs[x.Name] = x
	}
}

func (c *checker) nodes(list []Node, ptr string) {
	for i, n := range list {
		p := fmt.Sprintf("%s/%d", ptr, i)
		c.id(n.ID(), p+"/id")
		if n.Loop != nil {
			c.loop(*n.Loop, p)
		} else {
			c.step(*n.Step, p)
		}
	}
}

func (c *checker) id(id StepID, ptr string) {
	if !stepIDPattern.MatchString(string(id)) {
		c.add(ptr, "step id %q must match [a-z0-9][a-z0-9_-]*", id)
		return
	}
	if strings.HasPrefix(string(id), "wr-") {
		c.add(ptr, "step ids starting with \"wr-\" are reserved for steps WorkRail injects")
		return
	}
	if prev, dup := c.ids[id]; dup {
		c.add(ptr, "duplicate step id %q (also at %s)", id, prev)
		return
	}
	c.ids[id] = ptr
}

func (c *checker) step(s Step, ptr string) {
	c.nonEmpty(ptr+"/title", s.Title)
	set := 0
	for _, b := range []bool{s.Prompt != "", s.PromptBlocks != nil, s.Template != nil} {
		if b {
			set++
		}
	}
	switch {
	case set == 0 && len(s.ParallelDelegations) > 0:
		// The delegation instructions are the prompt.
	case set != 1:
		c.add(ptr, "a step needs exactly one of prompt, promptBlocks or template (it has %d)", set)
	}
	if s.PromptBlocks != nil {
		c.nonEmpty(ptr+"/promptBlocks/goal", s.PromptBlocks.Goal)
	}
	if s.Template != nil {
		c.template(*s.Template, ptr+"/template")
	}
	if s.RunCondition != nil {
		c.condition(*s.RunCondition, ptr+"/runCondition")
	}
	if s.RequireConfirmation.When != nil {
		c.condition(*s.RequireConfirmation.When, ptr+"/requireConfirmation")
	}
	if s.Output != nil && s.Output.ContractRef != "" && !c.contractKnown(s.Output.ContractRef) {
		c.suggest(ptr+"/output/contractRef", fmt.Sprintf("unknown contract pack %q; packs are %s", s.Output.ContractRef,
			strings.Join(c.contractNames(), ", ")), engine.Closest(string(s.Output.ContractRef), c.contractNames()))
	}
	if s.UserDependency != nil {
		c.userDependency(*s.UserDependency, ptr+"/userDependency")
	}
	c.fragments(s.PromptFragments, ptr+"/promptFragments")
	c.functionRefs(s, ptr)
	c.assessmentUse(s, ptr)
	c.criteria(s.ValidationCriteria, ptr+"/validationCriteria")
	c.delegations(s.ParallelDelegations, ptr+"/parallelDelegations")
}

func (c *checker) template(t TemplateCall, ptr string) {
	if _, err := StatusOf(engine.WorkflowID(t.ID)); err == nil {
		// A routine, resolved and expanded when the workflow compiles.
		return
	}
	if !oneOf(t.ID, Templates()) {
		c.suggest(ptr+"/id", fmt.Sprintf("unknown template %q; templates are %s", t.ID, strings.Join(Templates(), ", ")), engine.Closest(t.ID, Templates()))
		return
	}
	// wr.templates.capability_probe takes exactly one argument.
	for k := range t.Args {
		if k != "capability" {
			c.suggest(ptr+"/args/"+engine.PointerToken(k), fmt.Sprintf("unknown argument %q of %s", k, t.ID), engine.Closest(k, []string{"capability"}))
		}
	}
	if capName, _ := t.Args["capability"].(string); !oneOf(Capability(capName), Capabilities()) {
		c.add(ptr+"/args/capability", "must be one of %s", strings.Join(names(Capabilities()), ", "))
	}
}

func (c *checker) userDependency(u UserDependency, ptr string) {
	if !oneOf(u.Reason, UserDependencyReasons()) {
		c.suggest(ptr+"/reason", fmt.Sprintf("unknown reason %q; reasons are %s", u.Reason, strings.Join(names(UserDependencyReasons()), ", ")),
			engine.Closest(string(u.Reason), names(UserDependencyReasons())))
	}
	switch {
	case u.Reason == NeedsUserChoice && u.ChoiceKind == "":
		c.add(ptr+"/choiceKind", "needs_user_choice requires choiceKind (%s): say why the choice cannot be assumed", strings.Join(names(ChoiceKinds()), ", "))
	case u.Reason != NeedsUserChoice && u.ChoiceKind != "":
		c.add(ptr+"/choiceKind", "choiceKind applies only to reason needs_user_choice")
	case u.ChoiceKind != "" && !oneOf(u.ChoiceKind, ChoiceKinds()):
		c.suggest(ptr+"/choiceKind", fmt.Sprintf("unknown choiceKind %q", u.ChoiceKind), engine.Closest(string(u.ChoiceKind), names(ChoiceKinds())))
	}
	c.nonEmpty(ptr+"/summary", u.Summary)
	c.nonEmpty(ptr+"/requestedFromUser", u.RequestedFromUser)
	if len(u.Options) > MaxOptions {
		c.add(ptr+"/options", "at most %d options", MaxOptions)
	}
}

func (c *checker) loop(l Loop, ptr string) {
	c.nonEmpty(ptr+"/title", l.Title)
	if l.RunCondition != nil {
		c.condition(*l.RunCondition, ptr+"/runCondition")
	}
	c.functions = append(c.functions, c.functionDefs(l.FunctionDefinitions, ptr+"/functionDefinitions"))
	defer func() { c.functions = c.functions[:len(c.functions)-1] }()
	s, sp := l.Loop, ptr+"/loop"
	if s.Kind == "" && s.MaxIterations == 0 && s.Condition == nil && s.Count == 0 && s.CountVar == "" && s.Over == "" {
		c.add(sp, "a node with a body is a loop and needs \"loop\": {\"kind\": while|until|for|forEach, \"maxIterations\": 1-%d, …}", MaxLoopIterations)
		c.nodes(l.Body, ptr+"/body")
		return
	}
	switch {
	case s.MaxIterations == 0:
		c.add(sp+"/maxIterations", "every loop needs maxIterations (1-%d)", MaxLoopIterations)
	case s.MaxIterations < 0 || s.MaxIterations > MaxLoopIterations:
		c.add(sp+"/maxIterations", "must be between 1 and %d", MaxLoopIterations)
	}
	want := map[LoopKind][]string{While: {"condition"}, Until: {"condition"}, For: {"count"}, ForEach: {"over", "as"}}
	fields, ok := want[s.Kind]
	if !ok {
		c.add(sp+"/kind", "must be while, until, for or forEach, not %q", s.Kind)
		fields = nil
	}
	has := map[string]bool{"condition": s.Condition != nil, "count": s.Count != 0 || s.CountVar != "", "over": s.Over != "", "as": s.As != ""}
	for _, f := range []string{"condition", "count", "over", "as"} {
		needed := contains(fields, f)
		switch {
		case needed && !has[f] && s.Kind == While && f == "condition":
			if !loopControlled(l.Body) {
				c.add(sp+"/condition", "a while loop needs condition, or a body step whose output.contractRef is %s to decide when it stops", ContractLoopControl)
			}
		case needed && !has[f] && f == "count":
			c.add(sp+"/count", "a for loop needs count, or countVar naming the context input that holds it")
		case needed && !has[f]:
			c.add(sp+"/"+f, "a %s loop needs %s", s.Kind, f)
		}
		if !needed && has[f] && ok {
			if f == "count" && s.Count == 0 {
				f = "countVar"
			}
			c.add(sp+"/"+f, "%s does not apply to a %s loop", f, s.Kind)
		}
	}
	if s.Condition != nil {
		c.condition(*s.Condition, sp+"/condition")
	}
	switch {
	case s.Kind == For && s.Count != 0 && s.CountVar != "":
		c.add(sp+"/countVar", "a for loop takes count or countVar, not both")
	case s.Kind == For && s.Count < 0:
		c.add(sp+"/count", "count must be at least 1, not %d", s.Count)
	case s.Kind == For && s.Count > s.MaxIterations && s.MaxIterations > 0:
		c.add(sp+"/count", "count %d exceeds maxIterations %d", s.Count, s.MaxIterations)
	case s.Kind == For && s.CountVar != "":
		c.countInput(s.CountVar, sp+"/countVar")
	}
	if s.Kind == ForEach && s.Over != "" {
		c.arrayInput(s.Over, sp+"/over")
	}
	if s.As != "" && !namePattern.MatchString(s.As) {
		c.add(sp+"/as", "must match [A-Za-z_][A-Za-z0-9_]*")
	}
	if s.Kind != ForEach && ok {
		for _, f := range []struct {
			name string
			set  bool
		}{{"indexVar", s.IndexVar != ""}, {"itemsRequired", s.ItemsRequired}} {
			if f.set {
				c.add(sp+"/"+f.name, "%s applies only to a forEach loop", f.name)
			}
		}
	}
	if len(l.Body) == 0 {
		c.add(ptr+"/body", "a loop needs at least one step in its body")
	}
	restore := c.loopVars(s, sp)
	c.nodes(l.Body, ptr+"/body")
	restore()
}

// loopControlled reports whether a step of body (not of a nested loop)
// requires wr.contracts.loop_control, so the agent's decision can end the
// loop.
func loopControlled(body []Node) bool {
	for _, n := range body {
		if n.Step != nil && n.Step.Output != nil && n.Step.Output.ContractRef == ContractLoopControl {
			return true
		}
	}
	return false
}

// loopVars makes a loop's variables readable by conditions in its body
// (a forEach loop's item of any type and its index, any loop's iteration,
// as integers) and returns what puts the scope back.
func (c *checker) loopVars(s LoopSpec, ptr string) func() {
	var declared []string
	declare := func(name, field string, t ValueType) {
		if name == "" || !namePattern.MatchString(name) {
			if name != "" {
				c.add(ptr+"/"+field, "must match [A-Za-z_][A-Za-z0-9_]*")
			}
			return
		}
		if _, taken := c.inputs[name]; taken {
			c.add(ptr+"/"+field, "%q is already a context input or loop variable here: pick another name", name)
			return
		}
		declared = append(declared, name)
		c.inputs[name] = ContextInput{Name: name, Type: t}
	}
	if s.Kind == ForEach {
		declare(s.As, "as", "")
		declare(s.IndexVar, "indexVar", TypeInteger)
	}
	declare(s.IterationVar, "iterationVar", TypeInteger)
	return func() {
		for _, name := range declared {
			delete(c.inputs, name)
		}
	}
}

func (c *checker) arrayInput(name, ptr string) {
	in, ok := c.inputs[name]
	switch {
	case !ok:
		c.suggest(ptr, fmt.Sprintf("forEach reads %q, which is not declared in context", name), engine.Closest(name, c.inputNames()))
	case in.Type != TypeArray:
		c.add(ptr, "forEach needs an array input; %q is %s", name, in.Type)
	}
}

// countInput checks the input a for loop's countVar names: a declared
// integer or number input (its value is read when the loop is reached).
func (c *checker) countInput(name, ptr string) {
	in, ok := c.inputs[name]
	switch {
	case !ok:
		c.suggest(ptr, fmt.Sprintf("countVar reads %q, which is not declared in context", name), engine.Closest(name, c.inputNames()))
	case in.Type != TypeInteger && in.Type != TypeNumber:
		c.add(ptr, "countVar needs an integer or number input; %q is %s", name, in.Type)
	}
}

func (c *checker) inputNames() []string { return sortedKeys(c.inputs) }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// condition type-checks one condition against the declared context inputs.
func (c *checker) condition(cond Condition, ptr string) {
	ops := cond.operators()
	if len(ops) != 1 {
		c.add(ptr, "a condition needs exactly one operator (%s); it has %d", strings.Join(names(Operators()), ", "), len(ops))
		return
	}
	switch op := ops[0]; op {
	case OpAnd, OpOr:
		parts := cond.And
		if op == OpOr {
			parts = cond.Or
		}
		if cond.Var != "" {
			c.add(ptr+"/var", "%s combines conditions and takes no var", op)
		}
		if len(parts) == 0 {
			c.add(ptr+"/"+string(op), "%s needs at least one condition", op)
		}
		for i, p := range parts {
			c.condition(p, fmt.Sprintf("%s/%s/%d", ptr, op, i))
		}
	case OpNot:
		if cond.Var != "" {
			c.add(ptr+"/var", "not takes a condition, not a var")
		}
		c.condition(*cond.Not, ptr+"/not")
	default:
		c.comparison(cond, op, ptr)
	}
}

func (c *checker) comparison(cond Condition, op Operator, ptr string) {
	in, ok := c.inputs[cond.Var]
	if cond.Var == "" {
		c.add(ptr+"/var", "%s needs var: the context input it reads", op)
		return
	}
	if !ok {
		c.suggest(ptr+"/var", fmt.Sprintf("condition reads %q, which is not declared in context: declare it so agents are told to send it", cond.Var),
			engine.Closest(cond.Var, c.inputNames()))
		return
	}
	if in.Type == "" && op != OpContains {
		// A forEach item: its type is the array's items', unknown here.
		return
	}
	switch op {
	case OpEquals, OpNotEquals:
		v := cond.Equals
		if op == OpNotEquals {
			v = cond.NotEquals
		}
		c.operand(in, v, ptr+"/"+string(op))
	case OpIn:
		for i, v := range cond.In {
			c.operand(in, v, fmt.Sprintf("%s/in/%d", ptr, i))
		}
	case OpContains:
		var s string
		if json.Unmarshal(cond.Contains, &s) != nil || s == "" {
			c.add(ptr+"/contains", "contains takes a non-empty string")
		}
	case OpGt, OpGte, OpLt, OpLte:
		if in.Type != TypeNumber && in.Type != TypeInteger {
			c.add(ptr+"/"+string(op), "%s compares numbers; %q is %s", op, cond.Var, in.Type)
		}
		if _, err := strconv.ParseFloat(cond.operandText(), 64); err != nil {
			c.add(ptr+"/"+string(op), "%s is not a number WorkRail can compare (it must fit a 64-bit float)", cond.operandText())
		}
	}
}

func (c *checker) operand(in ContextInput, v json.RawMessage, ptr string) {
	if in.Type == TypeArray {
		c.add(ptr, "%q is an array: test it with exists, or loop over it with forEach", in.Name)
		return
	}
	if err := in.Type.accepts(v); err != nil {
		c.add(ptr, "%q is declared %s: %v", in.Name, in.Type, err)
		return
	}
	if len(in.Enum) > 0 && !inEnum(in.Enum, v) {
		c.add(ptr, "%s is not one of %q's allowed values", compact(v), in.Name)
	}
}

func inEnum(enum []json.RawMessage, v json.RawMessage) bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false
	}
	for _, e := range enum {
		if sameJSON(x, e) {
			return true
		}
	}
	return false
}

// accepts reports whether the JSON value raw has type t.
func (t ValueType) accepts(raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return t.Accepts(v)
}

// Accepts reports whether the decoded JSON value v has type t.
func (t ValueType) Accepts(v any) error {
	ok := false
	switch x := v.(type) {
	case string:
		ok = t == TypeString
	case bool:
		ok = t == TypeBoolean
	case float64:
		ok = t == TypeNumber || (t == TypeInteger && x == float64(int64(x)))
	case json.Number:
		_, err := x.Int64()
		ok = t == TypeNumber || (t == TypeInteger && err == nil)
	case []any:
		ok = t == TypeArray
	}
	if !ok {
		return fmt.Errorf("want %s, got %s", t, jsonKind(v))
	}
	return nil
}
