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
	Stop         bool // a loop_control artifact asked the loop to stop
}

// Evaluate reads the artifacts sent with an ack of step s. observed is what
// the branch already knows of capabilities (strong observations only).
func Evaluate(c compile.Compiled, s *compile.Step, artifacts []json.RawMessage, observed map[workflow.Capability]event.CapabilityStatus) Evaluation {
	var ev Evaluation
	byKind := map[string][]json.RawMessage{}
	for _, a := range artifacts {
		k := kindOf(a)
		if k == LoopControlKind {
			a, k = ev.loopControlAlias(a)
		}
		byKind[k] = append(byKind[k], a)
	}
	used := ev.requiredOutput(c, s, byKind)
	ev.assessments(c, s, artifacts)
	ev.userDependency(s, byKind)
	ev.capabilities(c, s, byKind, observed, used != nil)
	ev.optional(c, s, byKind, used)
	return ev
}

// kindOf returns an artifact's kind; one that is not an object with a
// string kind has none ("") and is judged as such.
func kindOf(a json.RawMessage) string {
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
		ev.Reasons = append(ev.Reasons, Reason{Code: MissingRequiredOutput, Step: s.ID, ContractRef: ref, Example: string(OutputExample(c, s))})
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
	ev.Reasons = append(ev.Reasons, Reason{Code: InvalidRequiredOutput, Step: s.ID, ContractRef: ref, Detail: first.Error(), Example: string(OutputExample(c, s))})
	return nil
}

func (ev *Evaluation) userDependency(s *compile.Step, byKind map[string][]json.RawMessage) {
	d := s.UserDependency
	if d == nil {
		return
	}
	for _, a := range byKind[UserResponseKind] {
		if validate(userResponseSchema, a) == nil {
			return
		}
		ev.note(event.NoticeUserResponseInvalid, "a wr.user_response artifact needs a non-empty \"response\" string; it was not accepted")
	}
	code := UserOnlyDependency
	if d.Reason == workflow.NeedsUserChoice {
		code = NonAssumableChoice
	}
	ev.Reasons = append(ev.Reasons, Reason{Code: code, Step: s.ID, Dependency: d, Example: UserResponseExample(d)})
}

// OutputExample is an artifact that satisfies step s's required output: the
// contract pack's example, about the probed capability on a probe step.
func OutputExample(c compile.Compiled, s *compile.Step) json.RawMessage {
	if s.Output == nil || s.Output.ContractRef == "" {
		return nil
	}
	ex := packOf(c, s.Output.ContractRef).Example
	if s.Probe == "" {
		return ex
	}
	var m map[string]any
	if json.Unmarshal(ex, &m) != nil {
		return ex
	}
	m["capability"] = s.Probe
	m["detail"] = "<what you tried and what happened>"
	return plainJSON(m)
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

// UserResponseExample is the artifact an agent sends once the user has
// answered.
func UserResponseExample(d *workflow.UserDependency) string {
	ex := map[string]string{"kind": UserResponseKind, "response": "<what the user answered, in their words>"}
	if d.Reason == workflow.NeedsUserSecretOrToken {
		ex["response"] = "<that the user provided it; never the secret itself>"
	}
	if len(d.Options) > 0 {
		ex["choice"] = d.Options[0]
	}
	return string(plainJSON(ex))
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
			ev.Reasons = append(ev.Reasons, Reason{Code: RequiredCapabilityUnknown, Step: s.ID, Capability: cap, Example: string(OutputExample(c, s))})
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
		if ev.accept(c, workflow.ContractLoopControl, a, &lc) && lc.Decision == "stop" && (!required || bytes.Equal(a, used)) {
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
