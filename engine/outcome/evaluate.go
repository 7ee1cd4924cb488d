package outcome

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// UserResponseKind is the artifact through which an agent passes on what
// the user answered to a step's user-only dependency.
const UserResponseKind = "wr.user_response"

var userResponseSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["kind","response"],"properties":{
	"kind":{"const":"wr.user_response"},"response":{"type":"string","minLength":1,"maxLength":4096},"choice":{"type":"string"}}}`)

// Evaluation is everything an ack attempt's output means at its step.
type Evaluation struct {
	Reasons      []Reason
	Observations []event.CapabilityObservedData
	Divergences  []event.DivergenceRecordedData
	Disclosed    []event.GapRecordedData // gaps the agent reported itself
	Notices      []event.Notice
	// Stop: the enclosing loop stops after this step, because a
	// loop_control artifact said so, or because the loop decision the
	// step requires was not made (a loop's safe default).
	Stop bool
	// Notes and Artifacts are the output to record: what the agent sent,
	// less everything that still held WorkRail's template.
	Notes     string
	Artifacts []json.RawMessage
}

// Attempt is what an ack attempt at a step is judged by.
type Attempt struct {
	Notes     string
	Artifacts []json.RawMessage
	// Ask is what the step's next call asked (AskOf): its template texts
	// are never taken as the agent's own.
	Ask Ask
	// Need is what the step needs of the user at this point.
	Need UserNeed
	// Observed is what the branch already knows of capabilities (strong
	// observations only).
	Observed map[workflow.Capability]event.CapabilityStatus
	// Scope is the context with the loop variables at the step: its notes
	// criteria read it.
	Scope map[string]any
}

// Judge reads an ack attempt of step s: first it takes out of the output
// everything that still holds WorkRail's template (a marker, a
// placeholder, a template's own words), so nothing of it is judged or
// recorded as written; then it checks what is left against what the step
// requires (its notes, required output, assessments, the user's answer or
// confirmation, capabilities) and reads the artifacts WorkRail
// understands anywhere. Each reason names the places left unfilled that
// it stands for; the rest are told in a notice.
func Judge(c compile.Compiled, s *compile.Step, a Attempt) Evaluation {
	var ev Evaluation
	held := ev.clean(a)
	byKind := map[string][]json.RawMessage{}
	for _, art := range ev.Artifacts {
		if art == nil {
			continue // taken out whole: a hole keeps the others' pointers
		}
		k := kindOf(art)
		if k == LoopControlKind {
			art, k = ev.loopControlAlias(art)
		}
		byKind[k] = append(byKind[k], art)
	}
	used := ev.requiredOutput(c, s, byKind)
	ev.assessments(c, s, ev.Artifacts)
	ev.userDependency(a.Need, s.ID, byKind)
	ev.capabilities(c, s, byKind, a.Observed, used != nil)
	ev.optional(c, s, byKind, used)
	ev.Reasons = append(ev.Reasons, Notes(c, s, ev.Notes, a.Scope)...)
	ev.unexpected(c, s, a.Need, ev.Artifacts)
	ev.explain(c, held)
	ev.Artifacts = slices.DeleteFunc(ev.Artifacts, func(r json.RawMessage) bool { return r == nil })
	return ev
}

// kindOf returns an artifact's kind; one that is not an object with a
// string kind has none ("") and is judged as such. An artifact that opens
// with a plain kind (as agents write them) is read without a decoder.
func kindOf(a json.RawMessage) string {
	if rest, ok := bytes.CutPrefix(a, []byte(`{"kind":"`)); ok {
		if end := bytes.IndexByte(rest, '"'); end >= 0 && plainText(string(rest[:end])) && len(rest) > end+1 && (rest[end+1] == ',' || rest[end+1] == '}') {
			return string(rest[:end])
		}
	}
	var k struct {
		Kind string `json:"kind"`
	}
	json.Unmarshal(a, &k)
	return k.Kind
}

// requiredOutput checks step s's required output contract and returns the
// artifact that satisfies it: the first valid one of its kind, nil when
// none is. Without one, the reason carries the first invalid artifact's
// validation error. Each invalid artifact is also disclosed as a notice by
// the code that reads artifacts of its kind (optional, capabilities).
func (ev *Evaluation) requiredOutput(c compile.Compiled, s *compile.Step, byKind map[string][]json.RawMessage) json.RawMessage {
	if s.Output == nil || s.Output.ContractRef == "" {
		return nil
	}
	ref := s.Output.ContractRef
	pack := packOf(c, ref)
	sent := byKind[string(ref)]
	for _, k := range pack.Kinds {
		for _, a := range byKind[k] {
			sent = append(sent, withKind(a, string(ref)))
		}
	}
	if len(sent) == 0 {
		ev.unmet(Reason{Code: MissingRequiredOutput, Step: s.ID, ContractRef: ref})
		return nil
	}
	var first error
	for _, a := range sent {
		err := validate(pack.Schema, a)
		if err == nil {
			return a
		}
		if first == nil {
			first = err
		}
	}
	ev.unmet(Reason{Code: InvalidRequiredOutput, Step: s.ID, ContractRef: ref, Detail: first.Error()})
	return nil
}

// unmet records that a step's required output was not given. A loop
// whose decision was not made stops: the safe default, taken when the
// mode goes on without it.
func (ev *Evaluation) unmet(r Reason) {
	ev.Reasons = append(ev.Reasons, r)
	if r.ContractRef == workflow.ContractLoopControl {
		ev.Stop = true
	}
}

// userDependency checks the user's answer a step needs: a valid
// wr.user_response (a non-empty response, and a choice among the
// dependency's options when one is sent).
func (ev *Evaluation) userDependency(need UserNeed, step workflow.StepID, byKind map[string][]json.RawMessage) {
	d := need.Dependency()
	if d == nil {
		return
	}
	for _, a := range byKind[UserResponseKind] {
		if validate(userResponseSchema, a) != nil {
			ev.note(event.NoticeUserResponseInvalid, "a wr.user_response artifact needs a non-empty \"response\" string; it was not accepted")
			continue
		}
		if choice, ok := chosen(a, d.Options); !ok {
			ev.note(event.NoticeUserResponseInvalid, fmt.Sprintf("the wr.user_response's choice %q is not one of the options (%s); it was not accepted: send the option the user picked, or leave \"choice\" out and give their words in \"response\"",
				choice, strings.Join(d.Options, " | ")))
			continue
		}
		return
	}
	code := UserOnlyDependency
	if need.Declared != nil && d.Reason == workflow.NeedsUserChoice {
		code = NonAssumableChoice
	}
	ev.Reasons = append(ev.Reasons, Reason{Code: code, Step: step, Dependency: d, Confirm: need.Confirm})
}

// chosen reads a user response's choice: fine when absent, or when the
// dependency lists no options, or when it is one of them (case and
// surrounding space aside).
func chosen(a json.RawMessage, options []string) (string, bool) {
	var r struct {
		Choice *string `json:"choice"`
	}
	json.Unmarshal(a, &r)
	if r.Choice == nil || len(options) == 0 {
		return "", true
	}
	for _, o := range options {
		if strings.EqualFold(strings.TrimSpace(*r.Choice), o) {
			return *r.Choice, true
		}
	}
	return *r.Choice, false
}

// plainJSON marshals v without HTML escaping: agents read these examples,
// and "\u003c" for "<" only confuses them.
func plainJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("outcome: example does not marshal: " + err.Error())
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// capabilities records observations and checks a probe of a required
// capability. At a probe an invalid observation is reported by the
// required output's reason, unless a valid one satisfied it (satisfied).
func (ev *Evaluation) capabilities(c compile.Compiled, s *compile.Step, byKind map[string][]json.RawMessage, observed map[workflow.Capability]event.CapabilityStatus, satisfied bool) {
	probe := s.Probe != ""
	seen := map[workflow.Capability]event.CapabilityObservedData{}
	pack := packOf(c, workflow.ContractCapabilityObservation)
	for _, a := range byKind[string(workflow.ContractCapabilityObservation)] {
		if validate(pack.Schema, a) != nil {
			if !probe || satisfied {
				ev.note(event.NoticeArtifactInvalid, "a capability observation did not match its contract and was not recorded")
			}
			continue
		}
		var o struct {
			Capability workflow.Capability    `json:"capability"`
			Status     event.CapabilityStatus `json:"status"`
			Detail     string                 `json:"detail"`
			Basis      string                 `json:"basis"`
		}
		json.Unmarshal(a, &o) // cannot fail: a matched the pack's schema
		prov := event.AttemptedUse
		switch {
		case o.Basis == "claimed":
			prov = event.ManualClaim
		case probe:
			prov = event.ProbeStep
		}
		obs := event.CapabilityObservedData{Capability: o.Capability, Status: o.Status, Provenance: prov, Detail: o.Detail}
		ev.Observations = append(ev.Observations, obs)
		seen[o.Capability] = obs
		if c.Capabilities[o.Capability] == workflow.Preferred && o.Status == event.CapabilityUnavailable && prov.Strong() {
			ev.note(event.NoticeCapabilityDegraded, fmt.Sprintf("%s is unavailable: the workflow continues on its fallback path", o.Capability))
		}
	}
	if !probe {
		return
	}
	for _, cap := range workflow.Capabilities() {
		if c.Capabilities[cap] != workflow.Required || s.Probe != cap {
			continue
		}
		obs, ok := seen[cap]
		switch {
		case ok && obs.Status == event.CapabilityUnavailable:
			ev.Reasons = append(ev.Reasons, Reason{Code: RequiredCapabilityUnavailable, Step: s.ID, Capability: cap})
		case (!ok || !obs.Provenance.Strong()) && observed[cap] != event.CapabilityAvailable:
			ev.Reasons = append(ev.Reasons, Reason{Code: RequiredCapabilityUnknown, Step: s.ID, Capability: cap})
		}
	}
}

// optional handles artifacts no step requires but WorkRail understands.
// used is the artifact that satisfied s's required output, if any: when
// the step requires loop control, only that artifact decides the stop.
func (ev *Evaluation) optional(c compile.Compiled, s *compile.Step, byKind map[string][]json.RawMessage, used json.RawMessage) {
	for _, a := range byKind[string(workflow.ContractWorkflowDivergence)] {
		var d event.DivergenceRecordedData
		if ev.accept(c, workflow.ContractWorkflowDivergence, a, &d) {
			if d.RelatedStepID == "" {
				d.RelatedStepID = s.ID
			}
			ev.Divergences = append(ev.Divergences, d)
		}
	}
	for _, a := range byKind[string(workflow.ContractGaps)] {
		var g struct {
			Gaps []event.GapRecordedData `json:"gaps"`
		}
		if ev.accept(c, workflow.ContractGaps, a, &g) {
			for _, x := range g.Gaps {
				x.Reason, x.RelatedStepID = event.GapAssumptionMade, s.ID
				ev.Disclosed = append(ev.Disclosed, x)
			}
		}
	}
	required := s.Output != nil && s.Output.ContractRef == workflow.ContractLoopControl
	for _, a := range byKind[string(workflow.ContractLoopControl)] {
		var lc struct {
			Decision string `json:"decision"`
		}
		// The artifact that met the required output was validated there.
		ok := used != nil && bytes.Equal(a, used) && json.Unmarshal(a, &lc) == nil
		if !ok {
			ok = ev.accept(c, workflow.ContractLoopControl, a, &lc)
		}
		if ok && lc.Decision == "stop" && (!required || bytes.Equal(a, used)) {
			ev.Stop = true
		}
	}
}

// accept validates an optional artifact and decodes it into v; an invalid
// one is disclosed, not silently dropped.
func (ev *Evaluation) accept(c compile.Compiled, ref workflow.ContractRef, a json.RawMessage, v any) bool {
	if err := validate(packOf(c, ref).Schema, a); err != nil {
		ev.note(event.NoticeArtifactInvalid, fmt.Sprintf("a %s artifact did not match its contract (%v); it is stored with the notes but not recorded as such", ref, err))
		return false
	}
	return json.Unmarshal(a, v) == nil
}

func (ev *Evaluation) note(code event.NoticeCode, msg string) {
	ev.Notices = append(ev.Notices, event.Notice{Code: code, Message: msg})
}

// packOf returns the pack a workflow was compiled with, or WorkRail's
// current one for a pack the workflow does not pin.
func packOf(c compile.Compiled, ref workflow.ContractRef) compile.ContractPack {
	if p, ok := c.Contracts[ref]; ok {
		return p
	}
	p, _ := compile.Pack(ref)
	return p
}

var schemas sync.Map // schema JSON → *jsonschema.Schema

// validate checks instance against a JSON Schema document.
func validate(schema, instance json.RawMessage) error {
	sch, err := compiled(schema)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s", flatten(err))
	}
	return nil
}

func compiled(schema json.RawMessage) (*jsonschema.Schema, error) {
	if s, ok := schemas.Load(string(schema)); ok {
		return s.(*jsonschema.Schema), nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("contract.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("contract.json")
	if err != nil {
		return nil, err
	}
	schemas.Store(string(schema), s)
	return s, nil
}

var printer = message.NewPrinter(language.English)

// flatten turns a validation error tree into one deterministic line.
func flatten(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var lines []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", loc, sorted(e.ErrorKind).LocalizedString(printer)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}

// sorted returns k with the property names the validator collected from a
// map sorted, so its message does not depend on map order.
func sorted(k jsonschema.ErrorKind) jsonschema.ErrorKind {
	if a, ok := k.(*kind.AdditionalProperties); ok {
		return &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(a.Properties))}
	}
	return k
}

// LoopControlKind is the TypeScript WorkRail's kind for a loop decision,
// accepted as wr.contracts.loop_control.
const LoopControlKind = "wr.loop_control"

// loopControlAlias reads a wr.loop_control artifact ({decision, loopId?,
// metadata {reason, …}?}) as wr.contracts.loop_control: the decision as is,
// metadata.reason as its reason; loopId (the innermost loop is the one
// decided) and the rest of metadata are not kept. A notice says so.
func (ev *Evaluation) loopControlAlias(a json.RawMessage) (json.RawMessage, string) {
	var in struct {
		Decision json.RawMessage `json:"decision"`
		Metadata struct {
			Reason string `json:"reason"`
		} `json:"metadata"`
	}
	if json.Unmarshal(a, &in) != nil {
		return a, LoopControlKind
	}
	out := map[string]any{"kind": workflow.ContractLoopControl, "decision": in.Decision}
	if in.Decision == nil {
		delete(out, "decision")
	}
	if in.Metadata.Reason != "" {
		out["reason"] = clip(in.Metadata.Reason, 512)
	}
	ev.note(event.NoticeArtifactKindAliased, fmt.Sprintf("a %s artifact was read as %s (decision and metadata.reason kept; loopId and other metadata dropped)",
		LoopControlKind, workflow.ContractLoopControl))
	return plainJSON(out), string(workflow.ContractLoopControl)
}

// withKind returns artifact a with its kind set to k: an artifact sent
// under one of a contract's accepted kinds is validated as the contract's
// own.
func withKind(a json.RawMessage, k string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(a, &obj) != nil {
		return a
	}
	obj["kind"], _ = json.Marshal(k)
	return plainJSON(obj)
}
