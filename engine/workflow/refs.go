package workflow

import "strings"

// PromptRef is a shared block of rules a TypeScript-format prompt names
// by id ({"kind": "ref", "refId": …}); the legacy reader inlines
// WorkRail's own text for it, and a feature may carry one. Each block
// carries every rule the TypeScript WorkRail's block of that id carries,
// in WorkRail's words (refs_test.go lists them by their substance).
type PromptRef struct {
	ID    string
	Title string
	Rules []string
}

// Text is the block as it is inlined: its title, then one indented line
// per rule.
func (r PromptRef) Text() string {
	var b strings.Builder
	b.WriteString(r.Title)
	for _, rule := range r.Rules {
		b.WriteString("\n  - " + rule)
	}
	return b.String()
}

// PromptRefs lists the prompt references WorkRail knows, in a fixed
// order. An unknown one is a problem, never dropped.
func PromptRefs() []PromptRef {
	return []PromptRef{
		{ID: "wr.refs.notes_first_durability", Title: "Notes first (what survives the chat):", Rules: []string{
			"Your notes (output.notesMarkdown) are the lasting record of every step: write what you did, found and decided there.",
			"Keep what the run depends on in the notes and in the context variables you send, not in side files.",
			"Documents written for people (plans, review write-ups) are for reading; the workflow does not remember them.",
			"When the chat is rewound or compacted, the notes and context variables survive; side files may not.",
			"Before every advance, put the key decisions, findings and the reasons for them in the notes.",
		}},
		{ID: "wr.refs.parallelize_cognition_serialize_synthesis", Title: "Think in parallel, merge in sequence:", Rules: []string{
			"Run independent thinking side by side: gathering context, generating hypotheses, audits and reviewer families can go at the same time.",
			"Merge one at a time, yourself: combining the parallel results, settling contradictions, taking the decisions that count and writing the final artifacts belong to the main agent, in sequence.",
			"No parallel subagent settles or commits to the final answer: the main agent owns the synthesis and the final decisions.",
			"Prefer one compact, targeted batch of delegations over many small ones spread across the step.",
			"Give each parallel executor a clear focus of its own that does not overlap another's.",
		}},
		{ID: "wr.refs.synthesis_under_disagreement", Title: "When parallel results disagree:", Rules: []string{
			"Treat the disagreement as work to do, never as noise to smooth over.",
			"When two or more results raise the same issue at the same severity, count it as confirmed.",
			"When they raise the same issue at different severities, take the higher one, unless the lower one comes with specific evidence against it.",
			"When only one result raises an issue and the others say nothing, look into it, but do not block on it unless it is plainly critical.",
			"When one result calls an issue a false positive and another calls it real, decide it yourself, explicitly, in your notes, before you finish.",
			"While results disagree materially, what they found outweighs any early recommendation, until the disagreement is settled.",
			"Record every contradiction you settled and why you settled it that way.",
		}},
		{ID: "wr.refs.adversarial_challenge_rules", Title: "Challenge the leading answer:", Rules: []string{
			"Try to break the position that is ahead, rather than looking for evidence that agrees with it.",
			"Build the strongest case for another answer: what would things look like if the current position were wrong and another right?",
			"For each finding or conclusion, ask what evidence would disprove it, and whether that evidence is missing or there.",
			"A challenge that cannot weaken the position materially makes it stronger.",
			"A challenge that finds a real weakness is recorded as a finding, and the position changes with it.",
			"Do not tone a finding down to avoid friction: its severity follows the real risk, not comfort.",
			"Push back on severities that are too high as well as too low: a false alarm costs attention as a miss does.",
			"When two or more independent challengers raise the same serious concern, it blocks by default.",
		}},
		{ID: "wr.refs.memory_usage", Title: "Memory, when a memory tool is there (such as memory_briefing, memory_store, memory_query):", Rules: []string{
			"Before you start, ask it what is already known about this workspace.",
			"After significant work, store what you discovered and decided.",
			"Give what you store descriptive topics and titles, so later sessions find it.",
			"Never wait on it or stop for it when it fails: it helps, it does not carry the work.",
		}},
		{ID: "wr.refs.memory_store", Title: "Memory, when a tool to store into it is there (such as memory_store):", Rules: []string{
			"Store this phase's key findings under a descriptive topic and title.",
			"Include the file paths, the decisions taken and the reasons for them.",
			"Never wait on it or stop for it when it fails: go on regardless.",
		}},
		{ID: "wr.refs.memory_query", Title: "Memory, when a tool to read from it is there (such as memory_briefing, memory_query):", Rules: []string{
			"Look in it for earlier context that bears on this task.",
			"Ask within this workspace, to find related past work.",
			"Never wait on it or stop for it when it fails: go on without earlier context.",
		}},
	}
}

// PromptRefText is the text of the prompt reference id.
func PromptRefText(id string) (string, bool) {
	for _, r := range PromptRefs() {
		if r.ID == id {
			return r.Text(), true
		}
	}
	return "", false
}
