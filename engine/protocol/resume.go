package protocol

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// ResumeInput is resume_session's arguments; every one is optional.
type ResumeInput struct {
	Query         string `json:"query,omitempty"`
	GitBranch     string `json:"gitBranch,omitempty"`
	GitHeadSHA    string `json:"gitHeadSha,omitempty"`
	WorkspacePath string `json:"workspacePath,omitempty"`
}

// ParseResume parses resume_session arguments strictly.
func ParseResume(raw []byte) (ResumeInput, *engine.Error) {
	var in ResumeInput
	if e := parseArgs(raw, &in, ToolResume); e != nil {
		return in, e
	}
	return in, checkWorkspace(in.WorkspacePath)
}

// Candidate is one session resume_session offers: the run to pick up, at
// its preferred tip, with the call that does it.
type Candidate struct {
	Tier     resume.Tier `json:"tier"`
	Session  SessionRef  `json:"session"`
	Workflow WorkflowRef `json:"workflow"`
	// TipNodeID is the run's preferred tip, which StateToken names.
	TipNodeID engine.NodeID     `json:"tipNodeId"`
	Status    project.RunStatus `json:"status"`
	// SameRepository: the session's repository holds the workspacePath
	// asked with.
	SameRepository bool `json:"sameRepository"`
	// Snippet is the latest notes at the tip, at most
	// resume.MaxSnippetBytes.
	Snippet    string   `json:"snippet"`
	StateToken string   `json:"stateToken"`
	NextCall   NextCall `json:"nextCall"`
}

// ResumeResult is resume_session's result: at most resume.MaxCandidates
// candidates, best first.
type ResumeResult struct {
	Kind       Kind        `json:"kind"`
	Text       string      `json:"text"`
	Candidates []Candidate `json:"candidates"`
}

// ResultKind implements Result.
func (ResumeResult) ResultKind() Kind { return KindCandidates }

// RenderedText implements Result.
func (r ResumeResult) RenderedText() string { return r.Text }

// NewResume renders the candidates found for in, best first.
func NewResume(in ResumeInput, cs []Candidate) ResumeResult {
	if cs == nil {
		cs = []Candidate{}
	}
	var b strings.Builder
	b.WriteString("# Sessions to resume\n")
	fmt.Fprintf(&b, "asked: %s\n", asked(in))
	if len(cs) == 0 {
		section(&b, "Instructions")
		b.WriteString("No session can be resumed: none is stored, or none is intact. Start a workflow with start_workflow.\n")
		return ResumeResult{Kind: KindCandidates, Text: b.String(), Candidates: cs}
	}
	section(&b, "Candidates")
	for i, c := range cs {
		candidateText(&b, i+1, c)
	}
	section(&b, "Instructions")
	b.WriteString("Pick the session the user means (ask if more than one fits), then call continue_workflow with exactly its stateToken, " +
		"as its nextCall shows. That re-reads the pending step at the run's latest branch, with the notes so far and a fresh ackToken, " +
		"and changes nothing. Then go on as usual.\n")
	return ResumeResult{Kind: KindCandidates, Text: b.String(), Candidates: cs}
}

// asked says what the query was, in the order ranking reads it.
func asked(in ResumeInput) string {
	var parts []string
	for _, p := range []struct{ name, v string }{
		{"gitHeadSha", in.GitHeadSHA}, {"gitBranch", in.GitBranch}, {"query", in.Query}, {"workspacePath", in.WorkspacePath},
	} {
		if p.v != "" {
			parts = append(parts, fmt.Sprintf("%s %q", p.name, p.v))
		}
	}
	if len(parts) == 0 {
		return "nothing: the most recently active sessions"
	}
	return strings.Join(parts, ", ")
}

func candidateText(b *strings.Builder, n int, c Candidate) {
	fmt.Fprintf(b, "%d. %s, %s: %s (%s), %s\n", n, c.Session.SessionID, c.Session.RunID, c.Workflow.ID, c.Workflow.Name, c.Status)
	fmt.Fprintf(b, "   why: %s", tierText[c.Tier])
	if c.SameRepository {
		b.WriteString("; in the repository of the workspace")
	}
	b.WriteString("\n")
	if c.Snippet != "" {
		fmt.Fprintf(b, "   latest notes at %s:\n", c.TipNodeID)
		for line := range strings.Lines(strings.TrimSpace(c.Snippet)) {
			b.WriteString("   > " + strings.TrimRight(line, "\n") + "\n")
		}
	} else {
		fmt.Fprintf(b, "   no notes yet at %s\n", c.TipNodeID)
	}
	fmt.Fprintf(b, "   resume: %s %s\n", c.NextCall.Tool, compactJSON(c.NextCall.Arguments))
}

// tierText says why a tier's candidate is offered.
var tierText = map[resume.Tier]string{
	resume.TierHeadSHA:  "its latest git HEAD is the commit asked for",
	resume.TierBranch:   "its latest git branch is the branch asked for, or starts with it",
	resume.TierNotes:    "every word of the query is in the notes of this run's latest branch",
	resume.TierWorkflow: "every word of the query is in this run's workflow id or name",
	resume.TierRecency:  "recently active (nothing asked for matched it)",
}
