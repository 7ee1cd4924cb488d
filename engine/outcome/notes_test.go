package outcome_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// canonical compiles a workflow in the canonical language by decoding the
// model directly (the constructs' checker rules are tested with the
// checker).
func canonical(tb testing.TB, src string) compile.Compiled {
	tb.Helper()
	var w workflow.Workflow
	if err := json.Unmarshal([]byte(src), &w); err != nil {
		tb.Fatalf("decode: %v", err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func oneStep(tb testing.TB, workflowKeys, step string) (compile.Compiled, *compile.Step) {
	tb.Helper()
	c := canonical(tb, `{"id":"user.n","name":"N","description":"d","version":"1",`+workflowKeys+`"steps":[`+step+`]}`)
	return c, MustStep(tb, c, "a")
}

// The notes policy: required notes are needed unless the step is exempt
// (notesOptional, or an output contract or assessment is its record);
// criteria make a step's notes needed unless it says notesOptional.
func TestNotesPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, policy, step string
		notes              string
		want               []outcome.ReasonCode
	}{
		{"optional by default", ``, `{"id":"a","title":"A","prompt":"p"}`, "", nil},
		{"required, none sent", `"notes":"required",`, `{"id":"a","title":"A","prompt":"p"}`, "", []outcome.ReasonCode{outcome.MissingNotes}},
		{"required, blank sent", `"notes":"required",`, `{"id":"a","title":"A","prompt":"p"}`, " \n\t", []outcome.ReasonCode{outcome.MissingNotes}},
		{"required, sent", `"notes":"required",`, `{"id":"a","title":"A","prompt":"p"}`, "Did it.", nil},
		{"required, step says optional", `"notes":"required",`, `{"id":"a","title":"A","prompt":"p","notesOptional":true}`, "", nil},
		{"required, step requires a contract", `"notes":"required",`, `{"id":"a","title":"A","prompt":"p","output":{"contractRef":"wr.contracts.gaps"}}`, "", nil},
		{"required, step requires an assessment", `"notes":"required",`, `{"id":"a","title":"A","prompt":"p","assessmentRefs":["q"]}`, "", nil},
		{"criteria need notes under the optional policy", ``, `{"id":"a","title":"A","prompt":"p","validationCriteria":[{"type":"contains","value":"x"}]}`, "", []outcome.ReasonCode{outcome.MissingNotes}},
		{"criteria skipped when the step says notes are optional", ``, `{"id":"a","title":"A","prompt":"p","notesOptional":true,"validationCriteria":[{"type":"contains","value":"x"}]}`, "", nil},
		{"criteria apply to optional notes that were written", ``, `{"id":"a","title":"A","prompt":"p","notesOptional":true,"validationCriteria":[{"type":"contains","value":"x"}]}`, "y", []outcome.ReasonCode{outcome.NotesCriteriaUnmet}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := oneStep(t, tc.policy, tc.step)
			var got []outcome.ReasonCode
			for _, r := range outcome.Notes(c, s, tc.notes, nil) {
				got = append(got, r.Code)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reasons %v; want %v", got, tc.want)
			}
		})
	}
}

// Each criterion kind, the combinations and per-rule conditions; the
// failing rules' messages (or descriptions) are the reason's detail.
func TestNotesCriteria(t *testing.T) {
	scope := map[string]any{"depth": "deep"}
	for _, tc := range []struct {
		name, criteria, notes, want string // want: the detail, "" when the notes pass
	}{
		{"contains is case-sensitive", `[{"type":"contains","value":"Root cause","message":"Name the root cause."}]`, "root cause: x", "Name the root cause."},
		{"contains holds", `[{"type":"contains","value":"Root cause"}]`, "Root cause: x", ""},
		{"regex with flags", `[{"type":"regex","pattern":"^## risks$","flags":"im"}]`, "intro\n## Risks\nnone", ""},
		{"regex without flags", `[{"type":"regex","pattern":"^## risks$"}]`, "intro\n## Risks\nnone", "match the pattern /^## risks$/"},
		{"regex that does not compile fails its rule", `[{"type":"regex","pattern":"(","message":"bad"}]`, "(", "bad"},
		{"length counts characters", `[{"type":"length","min":3,"max":4}]`, "ééé", ""},
		{"length too short", `[{"type":"length","min":10}]`, "short", "be at least 10 characters long"},
		{"length too long", `[{"type":"length","max":2}]`, "long", "be at most 2 characters long"},
		{"every failing rule is named", `[{"type":"contains","value":"A","message":"Say A."},{"type":"contains","value":"B"},{"type":"contains","value":"C","message":"Say C."}]`, "B", "Say A.; Say C."},
		{"a rule whose condition is false is skipped", `[{"type":"contains","value":"A","condition":{"var":"depth","equals":"quick"}}]`, "B", ""},
		{"a rule whose condition holds applies", `[{"type":"contains","value":"A","condition":{"var":"depth","equals":"deep"}}]`, "B", `contain "A"`},
		{"or passes when one does", `[{"or":[{"type":"contains","value":"A"},{"type":"contains","value":"B"}]}]`, "B", ""},
		{"or fails naming the options", `[{"or":[{"type":"contains","value":"A"},{"type":"contains","value":"B"}]}]`, "C", `one of: contain "A" | contain "B"`},
		{"and names each failing part", `[{"and":[{"type":"contains","value":"A"},{"type":"length","min":1}]}]`, "C", `contain "A"`},
		{"and with its own message", `[{"and":[{"type":"contains","value":"A"}],"message":"Both."}]`, "C", "Both."},
		{"not", `[{"not":{"type":"contains","value":"TODO"},"message":"No TODOs left."}]`, "a TODO", "No TODOs left."},
		{"not passes", `[{"not":{"type":"contains","value":"TODO"}}]`, "done", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := oneStep(t, "", `{"id":"a","title":"A","prompt":"p","validationCriteria":`+tc.criteria+`}`)
			rs := outcome.Notes(compile.Compiled{}, s, tc.notes, scope)
			got := ""
			if len(rs) > 0 {
				if rs[0].Code != outcome.NotesCriteriaUnmet {
					t.Fatalf("code %s", rs[0].Code)
				}
				got = rs[0].Detail
			}
			if got != tc.want {
				t.Fatalf("detail %q; want %q", got, tc.want)
			}
		})
	}
}

// The blocker and the never-stop gap say what to do, with the criteria.
func TestNotesBlockersAndGaps(t *testing.T) {
	c, s := oneStep(t, `"notes":"required",`, `{"id":"a","title":"A","prompt":"p","validationCriteria":[{"type":"contains","value":"Risks","message":"List the risks."}]}`)
	missing := outcome.Notes(c, s, "", nil)
	unmet := outcome.Notes(c, s, "nothing", nil)
	b := outcome.Decide(workflow.Guided, append(missing, unmet...)).Blockers
	if len(b) != 2 || b[0].Code != "MISSING_REQUIRED_NOTES" || !strings.Contains(b[0].SuggestedFix, `your notes must: contain "Risks" (List the risks.)`) ||
		b[1].Code != "NOTES_CRITERIA_UNMET" || !strings.Contains(b[1].Message, "List the risks.") {
		t.Fatalf("blockers %+v", b)
	}
	g := outcome.Decide(workflow.FullAutoNeverStop, unmet).Gaps
	if len(g) != 1 || g[0].Reason != "notes_criteria_unmet" || g[0].Severity != "critical" || !strings.Contains(g[0].Summary, "List the risks.") {
		t.Fatalf("gaps %+v", g)
	}
}
