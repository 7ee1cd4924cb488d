package compile_test

import (
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/workflow"
)

// substance is one rule of a TypeScript WorkRail rule block, named by the
// phrases WorkRail's wording of it must hold (case aside).
type substance []string

// tsRefRules lists, per prompt reference, the rules the TypeScript
// WorkRail's block of that id carries, by their substance, in its order.
var tsRefRules = map[string][]substance{
	"wr.refs.notes_first_durability": {
		{"notes", "lasting record", "every step"},
		{"context variables", "not in side files"},
		{"for people", "does not remember"},
		{"rewound", "survive", "side files may not"},
		{"before every advance", "decisions", "reasons"},
	},
	"wr.refs.parallelize_cognition_serialize_synthesis": {
		{"side by side", "context", "hypotheses", "audits", "reviewer families"},
		{"one at a time", "contradictions", "final artifacts", "main agent"},
		{"no parallel subagent", "final answer", "main agent owns"},
		{"one compact", "batch", "many small"},
		{"clear focus", "not overlap"},
	},
	"wr.refs.synthesis_under_disagreement": {
		{"disagreement", "work to do", "never"},
		{"two or more", "same issue at the same severity", "confirmed"},
		{"different severities", "higher", "evidence against"},
		{"only one", "say nothing", "look into it", "plainly critical"},
		{"false positive", "decide it yourself", "notes", "before you finish"},
		{"disagree materially", "outweighs", "early recommendation", "settled"},
		{"record every contradiction", "why"},
	},
	"wr.refs.adversarial_challenge_rules": {
		{"break the position", "rather than", "agrees"},
		{"strongest case", "another answer"},
		{"disprove", "missing or there"},
		{"cannot weaken", "stronger"},
		{"real weakness", "recorded as a finding", "position changes"},
		{"tone a finding down", "real risk"},
		{"too high as well as too low", "false alarm"},
		{"two or more independent challengers", "same serious concern", "blocks by default"},
	},
	"wr.refs.memory_usage": {
		{"before you start", "already known", "workspace"},
		{"after significant work", "store", "decided"},
		{"descriptive topics and titles", "later sessions"},
		{"never wait", "fails", "helps"},
	},
	"wr.refs.memory_store": {
		{"this phase's key findings", "descriptive topic and title"},
		{"file paths", "decisions", "reasons"},
		{"never wait", "go on regardless"},
	},
	"wr.refs.memory_query": {
		{"earlier context", "bears on this task"},
		{"within this workspace", "related past work"},
		{"never wait", "go on without"},
	},
}

// tsFeatureRules lists, per feature of the TypeScript format and per part
// of the step it puts them in, the rules that feature carries there.
var tsFeatureRules = map[workflow.FeatureID]map[string][]substance{
	workflow.FeatureMemoryContext: {
		"constraint": {{"memory, when a memory tool is there"}},
	},
	workflow.FeatureCapabilities: {
		"constraint": {
			{"optional capability", "for granted", "can use it"},
			{"subagents, web access", "real probe", "real attempt", "before you rely"},
			{"not there", "say so", "never act as if"},
		},
		"procedure": {
			{"would change the quality", "worth using here"},
			{"path that depends on a capability", "record the observation or attempt"},
			{"skip subagents", "do the work yourself", "why that path is enough"},
		},
		"verify": {
			{"no path that depends on a capability", "observation, a probe or an attempt"},
			{"missing or skipped", "path taken instead", "cannot do"},
			{"synthesis", "final judgment", "main agent"},
		},
	},
	workflow.FeatureSubagentGuidance: {
		"constraint": {
			{"workrail executor", "only kind of subagent", "builder", "researcher"},
			{"strategy", "decisions", "synthesis", "final outputs", "nothing more"},
			{"think in parallel, merge in sequence"},
		},
		"procedure": {
			{"clear focus", "not overlap", "shared packet of facts", "truth they start from"},
			{"merge them yourself", "no single subagent", "review"},
		},
		"verify": {
			{"merged by you", "word for word"},
			{"no subagent", "final say"},
		},
	},
}

// matches names the rules of ours that hold every phrase of s.
func matches(ours []string, s substance) []int {
	var out []int
	for i, r := range ours {
		hit := true
		for _, phrase := range s {
			hit = hit && strings.Contains(strings.ToLower(r), phrase)
		}
		if hit {
			out = append(out, i)
		}
	}
	return out
}

// checkBlock: each rule the TypeScript block carries is said by exactly
// one rule of ours, and ours say nothing else.
func checkBlock(t *testing.T, block string, ours []string, want []substance) {
	t.Helper()
	if len(ours) != len(want) {
		t.Errorf("%s: %d rules, the TypeScript block carries %d:\n%s", block, len(ours), len(want), strings.Join(ours, "\n"))
	}
	for _, s := range want {
		if m := matches(ours, s); len(m) != 1 {
			t.Errorf("%s: the rule %q is said by %d rules of ours, want 1:\n%s", block, s, len(m), strings.Join(ours, "\n"))
		}
	}
}

// TestRuleBlocksCarryEveryRule: every shared rule block of the
// TypeScript format (the wr.refs.* references and the features that add
// rules to a step) carries each rule the TypeScript WorkRail's block
// carries, in WorkRail's own words, and puts each where that block put
// it.
func TestRuleBlocksCarryEveryRule(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range workflow.PromptRefs() {
		want, ok := tsRefRules[r.ID]
		if !ok {
			t.Errorf("%s: no list of the TypeScript block's rules to check it against", r.ID)
			continue
		}
		seen[r.ID] = true
		checkBlock(t, r.ID, r.Rules, want)
	}
	for id := range tsRefRules {
		if !seen[id] {
			t.Errorf("%s: the TypeScript WorkRail has this block; WorkRail does not", id)
		}
	}
	for id, parts := range tsFeatureRules {
		c := mustCompile(t, `{"id":"user.f","name":"F","description":"d","version":"1","features":["`+string(id)+`"],
			"steps":[{"id":"a","title":"A","promptBlocks":{"goal":"Do a."}}]}`)
		a, _ := c.Step("a")
		got := map[string][]string{}
		for _, inj := range a.Injections {
			part := strings.Split(strings.TrimPrefix(inj.ID, string(id)+"/"), "/")[0]
			got[part] = append(got[part], inj.Text)
		}
		for part, want := range parts {
			checkBlock(t, string(id)+" "+part, got[part], want)
		}
		for part := range got {
			if parts[part] == nil {
				t.Errorf("%s adds %s rules the TypeScript feature does not", id, part)
			}
		}
	}
}
