package outcome

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/workflow"
)

// assessmentFields are the keys a wr.assessment artifact may carry.
var assessmentFields = []string{"assessmentId", "dimensions", "kind", "summary"}

// assessments checks the wr.assessment artifacts a step with
// assessmentRefs requires: one per referenced assessment (chosen by
// assessmentId when the step references several), each rating every
// required dimension with one of its levels. When all are valid, the
// step's consequences are applied to the ratings.
func (ev *Evaluation) assessments(c compile.Compiled, s *compile.Step, artifacts []json.RawMessage) {
	if len(s.AssessmentRefs) == 0 {
		return
	}
	multi := len(s.AssessmentRefs) > 1
	ratings := map[workflow.AssessmentID]map[string]string{}
	var missing, issues []string
	var unrated []workflow.AssessmentID
	for _, ref := range s.AssessmentRefs {
		decl := declared(c, ref)
		i, a := pickAssessment(artifacts, ref, multi)
		if a == nil {
			missing = append(missing, string(ref))
			unrated = append(unrated, ref)
			continue
		}
		levels, problems, notes := rate(decl, a, fmt.Sprintf("/output/artifacts/%d", i), multi)
		for _, n := range notes {
			ev.note(event.NoticeAssessmentLevelNormalized, n)
		}
		if len(problems) > 0 {
			issues = append(issues, problems...)
			unrated = append(unrated, ref)
			continue
		}
		ratings[ref] = levels
	}
	contract := workflow.ContractAssessment
	// The ratings not made count at their most cautious levels: said once,
	// on the first reason.
	followups := cautious(c, s, unrated)
	if len(missing) > 0 {
		ev.Reasons = append(ev.Reasons, Reason{Code: MissingRequiredOutput, Step: s.ID, ContractRef: contract,
			Detail: "no wr.assessment artifact rates " + strings.Join(missing, ", "), Cautious: followups})
		followups = nil
	}
	if len(issues) > 0 {
		ev.Reasons = append(ev.Reasons, Reason{Code: InvalidRequiredOutput, Step: s.ID, ContractRef: contract,
			Detail: strings.Join(issues, "; "), Cautious: followups})
	}
	if len(ratings) == len(s.AssessmentRefs) {
		ev.consequences(c, s, ratings)
	}
}

// declared returns the workflow's declaration of assessment id (an empty
// one for an undeclared id, which the checker refuses).
func declared(c compile.Compiled, id workflow.AssessmentID) workflow.Assessment {
	for _, a := range c.Assessments {
		if a.ID == id {
			return a
		}
	}
	return workflow.Assessment{ID: id}
}

// pickAssessment returns the first wr.assessment artifact for ref and its
// index in output.artifacts: by assessmentId when the step references
// several assessments, else the first one (whose assessmentId, if any,
// rate checks).
func pickAssessment(artifacts []json.RawMessage, ref workflow.AssessmentID, multi bool) (int, json.RawMessage) {
	for i, a := range artifacts {
		if kindOf(a) != workflow.AssessmentKind {
			continue
		}
		if !multi {
			return i, a
		}
		var id struct {
			AssessmentID workflow.AssessmentID `json:"assessmentId"`
		}
		if json.Unmarshal(a, &id) == nil && id.AssessmentID == ref {
			return i, a
		}
	}
	return -1, nil
}

// rate validates one wr.assessment artifact against its declaration and
// returns the level of each rated dimension, in the declared spelling.
// Problems carry the JSON pointer of what is wrong; notes name levels
// matched ignoring case.
func rate(decl workflow.Assessment, a json.RawMessage, ptr string, multi bool) (levels map[string]string, problems, notes []string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(a, &obj) != nil {
		return nil, []string{fmt.Sprintf("at %s: a wr.assessment artifact must be a JSON object", ptr)}, nil
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(assessmentFields, k) {
			problems = append(problems, fmt.Sprintf("at %s/%s: unknown field; a wr.assessment carries %s", ptr, k, strings.Join(assessmentFields, ", ")))
		}
	}
	var id string
	if raw, ok := obj["assessmentId"]; ok {
		if id, ok = jsonString(raw); !ok {
			problems = append(problems, fmt.Sprintf("at %s/assessmentId: must be a string", ptr))
		}
	}
	switch {
	case multi && id == "":
		problems = append(problems, fmt.Sprintf("at %s/assessmentId: this step rates several assessments; name this one (%s)", ptr, decl.ID))
	case id != "" && id != string(decl.ID):
		problems = append(problems, fmt.Sprintf("at %s/assessmentId: %q is not an assessment of this step; expected %s", ptr, id, decl.ID))
	}
	if raw, ok := obj["summary"]; ok {
		if sum, ok := jsonString(raw); !ok || len(sum) > 1024 {
			problems = append(problems, fmt.Sprintf("at %s/summary: must be a string of at most 1024 bytes", ptr))
		}
	}
	var dims map[string]json.RawMessage
	if json.Unmarshal(obj["dimensions"], &dims) != nil || len(dims) == 0 {
		return nil, append(problems, fmt.Sprintf("at %s/dimensions: must be an object rating %s", ptr, dimensionList(decl))), nil
	}
	levels = map[string]string{}
	for _, d := range decl.Dimensions {
		raw, ok := dims[d.ID]
		if !ok {
			if !d.Optional {
				problems = append(problems, fmt.Sprintf("at %s/dimensions: missing required dimension %s (one of %s)", ptr, d.ID, strings.Join(d.Levels, ", ")))
			}
			continue
		}
		p := ptr + "/dimensions/" + d.ID
		given, ok := levelOf(raw)
		if !ok {
			problems = append(problems, fmt.Sprintf("at %s: must be a level or {\"level\", \"rationale\"}", p))
			continue
		}
		level, exact := matchLevel(given, d.Levels)
		switch {
		case level == "":
			problems = append(problems, fmt.Sprintf("at %s: level %q is not one of %s", p, given, strings.Join(d.Levels, ", ")))
		case !exact:
			notes = append(notes, fmt.Sprintf("%s: level %q was read as %q", p, given, level))
			fallthrough
		default:
			levels[d.ID] = level
		}
	}
	for _, k := range sortedKeys(dims) {
		if !slices.ContainsFunc(decl.Dimensions, func(d workflow.Dimension) bool { return d.ID == k }) {
			problems = append(problems, fmt.Sprintf("at %s/dimensions/%s: unknown dimension; %s rates %s", ptr, k, decl.ID, dimensionList(decl)))
		}
	}
	return levels, problems, notes
}

// levelOf reads a rating: a level, or an object with one.
func levelOf(raw json.RawMessage) (string, bool) {
	if level, ok := jsonString(raw); ok {
		return level, true
	}
	var obj struct {
		Level     *string `json:"level"`
		Rationale string  `json:"rationale"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Level == nil {
		return "", false
	}
	return *obj.Level, true
}

// jsonString reads a JSON string; plain text needs no decoder.
func jsonString(raw json.RawMessage) (string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && plainText(string(raw[1:n-1])) {
		return string(raw[1 : n-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// matchLevel finds given among levels: exactly, or ignoring case and
// surrounding space when exactly one level matches that way.
func matchLevel(given string, levels []string) (level string, exact bool) {
	if slices.Contains(levels, given) {
		return given, true
	}
	var found []string
	for _, l := range levels {
		if strings.EqualFold(strings.TrimSpace(given), l) {
			found = append(found, l)
		}
	}
	if len(found) == 1 {
		return found[0], false
	}
	return "", false
}

func dimensionList(decl workflow.Assessment) string {
	ids := make([]string, len(decl.Dimensions))
	for i, d := range decl.Dimensions {
		ids[i] = d.ID
	}
	return strings.Join(ids, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// consequences fires each of step s's consequences whose level some
// (scoped) dimension is rated at: once each, naming the first such
// rating in reference and declaration order.
func (ev *Evaluation) consequences(c compile.Compiled, s *compile.Step, ratings map[workflow.AssessmentID]map[string]string) {
	for _, q := range s.Consequences {
		if f, ok := fired(c, s, q, ratings); ok {
			ev.Reasons = append(ev.Reasons, Reason{Code: AssessmentFollowupRequired, Step: s.ID, Followup: &f})
		}
	}
}

func fired(c compile.Compiled, s *compile.Step, q workflow.Consequence, ratings map[workflow.AssessmentID]map[string]string) (Followup, bool) {
	for _, ref := range s.AssessmentRefs {
		if q.When.ForAssessment != "" && q.When.ForAssessment != ref {
			continue
		}
		for _, d := range declared(c, ref).Dimensions {
			if l, ok := ratings[ref][d.ID]; ok && strings.EqualFold(l, q.When.AnyEqualsLevel) {
				return Followup{Assessment: ref, Dimension: d.ID, Level: l, Guidance: q.Effect.Guidance}, true
			}
		}
	}
	return Followup{}, false
}

// AssessmentTemplate is the wr.assessment artifact for assessment ref at
// step s as nextCall carries it: every dimension a marker listing its
// levels (the rating is the agent's to make, never pre-filled), and an
// optional summary. Keys in reading order: kind, assessmentId (when the
// step rates several), dimensions as declared, summary.
func AssessmentTemplate(c compile.Compiled, s *compile.Step, ref workflow.AssessmentID) fill.Artifact {
	var b strings.Builder
	var slots []fill.Slot
	b.WriteString(`{"kind":"` + workflow.AssessmentKind + `"`)
	if len(s.AssessmentRefs) > 1 {
		b.WriteString(`,"assessmentId":` + quote(string(ref)))
	}
	b.WriteString(`,"dimensions":{`)
	for i, d := range declared(c, ref).Dimensions {
		if i > 0 {
			b.WriteByte(',')
		}
		asks := d.ID + ": one of " + strings.Join(d.Levels, " | ")
		if d.Optional {
			asks = fill.Optional(asks)
		}
		slots = append(slots, fill.Slot{Pointer: "/dimensions/" + d.ID, Asks: asks, Required: !d.Optional, Options: d.Levels})
		b.WriteString(quote(d.ID) + ":" + quote(fill.Marker(asks)))
	}
	summary := fill.Optional(summaryAsks)
	slots = append(slots, fill.Slot{Pointer: "/summary", Asks: summary})
	b.WriteString(`},"summary":` + quote(fill.Marker(summary)) + `}`)
	return fill.Artifact{Kind: workflow.AssessmentKind, Value: json.RawMessage(b.String()), Slots: slots}
}

// quote is s as a JSON string, without HTML escaping. Ids and levels are
// plain text: those need no escape and skip the encoder.
func quote(s string) string {
	if plainText(s) {
		return `"` + s + `"`
	}
	return string(plainJSON(s))
}

// plainText reports whether s is printable ASCII without a quote or a
// backslash: the same in a JSON string.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// cautious is what counts for a rating of step s that was not made: each
// consequence of the step that some level of a dimension of an assessment
// not rated would fire, at the first such level in declared order (the
// most cautious reading: the one that asks for more work). None when no
// level of those dimensions fires anything.
func cautious(c compile.Compiled, s *compile.Step, unrated []workflow.AssessmentID) []Followup {
	var out []Followup
	for _, q := range s.Consequences {
	refs:
		for _, ref := range unrated {
			if q.When.ForAssessment != "" && q.When.ForAssessment != ref {
				continue
			}
			for _, d := range declared(c, ref).Dimensions {
				for _, l := range d.Levels {
					if strings.EqualFold(l, q.When.AnyEqualsLevel) {
						out = append(out, Followup{Assessment: ref, Dimension: d.ID, Level: l, Guidance: q.Effect.Guidance})
						break refs
					}
				}
			}
		}
	}
	return out
}

// assessmentTexts are what a step's assessments show the agent; they
// depend on the pinned workflow and the step only, so they are made once
// per pinned workflow and step (stepTexts), like compiled schemas.
type assessmentTexts struct {
	requirements string
}

type stepKey struct {
	hash engine.WorkflowHash
	step workflow.StepID
}

var stepTexts sync.Map // stepKey → assessmentTexts

func textsOf(c compile.Compiled, s *compile.Step) assessmentTexts {
	// A workflow that was never compiled has no hash: nothing to key on.
	pinned := c.Hash != engine.WorkflowHash{}
	k := stepKey{c.Hash, s.ID}
	if v, ok := stepTexts.Load(k); ok && pinned {
		return v.(assessmentTexts)
	}
	t := assessmentTexts{requirements: requirements(c, s)}
	if pinned {
		stepTexts.Store(k, t)
	}
	return t
}

// AssessmentRequirements tells the agent, in the step's prompt, what
// wr.assessment artifacts the step requires: each assessment with its
// dimensions and levels, and an example. Empty for a step without
// assessmentRefs.
func AssessmentRequirements(c compile.Compiled, s *compile.Step) string {
	if len(s.AssessmentRefs) == 0 {
		return ""
	}
	return textsOf(c, s).requirements
}

func requirements(c compile.Compiled, s *compile.Step) string {
	var b strings.Builder
	b.WriteString("Assessment: add to output.artifacts one wr.assessment artifact")
	if len(s.AssessmentRefs) > 1 {
		b.WriteString(" per assessment below, each naming it in \"assessmentId\"")
	}
	b.WriteString(", rating every dimension with exactly one of its levels, as you judge it:\n")
	for _, ref := range s.AssessmentRefs {
		decl := declared(c, ref)
		fmt.Fprintf(&b, "- %s: %s\n", ref, decl.Purpose)
		for _, d := range decl.Dimensions {
			opt := ""
			if d.Optional {
				opt = " (optional)"
			}
			fmt.Fprintf(&b, "  - %s%s: %s. Levels: %s\n", d.ID, opt, strings.TrimSuffix(d.Purpose, "."), strings.Join(d.Levels, " | "))
		}
	}
	for i, ref := range s.AssessmentRefs {
		if i == 0 {
			b.WriteString("Shaped like this, each <<fill: …>> replaced by your rating: ")
		} else {
			b.WriteString(", ")
		}
		b.Write(AssessmentTemplate(c, s, ref).Value)
	}
	if len(s.Consequences) > 0 {
		b.WriteString("\nRate honestly: some ratings keep this step pending for a follow-up.")
	}
	return b.String()
}
