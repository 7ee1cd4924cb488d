package legacy

// Ref is a shared piece of instruction a TypeScript-format prompt names
// by id ({"kind": "ref", "refId": …}); the normalizer inlines WorkRail's
// own text for it.
type Ref struct {
	ID   string
	Text string
}

// Refs lists the prompt references WorkRail knows, in a fixed order. An
// unknown one is a problem, never dropped.
func Refs() []Ref {
	return []Ref{
		{ID: "wr.refs.notes_first_durability", Text: "Write what you learn into output.notesMarkdown as you go: WorkRail keeps your notes when the chat is reset or compacted, the chat does not. Put decisions, evidence and open questions there first."},
		{ID: "wr.refs.parallelize_cognition_serialize_synthesis", Text: "Run independent investigations side by side (with subagents if you have them), then merge what they found yourself, one result at a time, into a single account before you act on it."},
		{ID: "wr.refs.synthesis_under_disagreement", Text: "When sources or subagents disagree, do not average them: name the disagreement, weigh the evidence on each side, decide, and record why the other view lost."},
		{ID: "wr.refs.adversarial_challenge_rules", Text: "Argue against your leading conclusion as a sceptical reviewer would: find the strongest counter-evidence, say what would prove you wrong, and keep the conclusion only if it survives."},
	}
}

func refText(id string) (string, bool) {
	for _, r := range Refs() {
		if r.ID == id {
			return r.Text, true
		}
	}
	return "", false
}
