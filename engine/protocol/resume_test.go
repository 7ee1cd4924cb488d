package protocol_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
)

func resumeNone() protocol.ResumeResult {
	return protocol.NewResume(protocol.ResumeInput{}, nil)
}

// resumeSome offers two candidates: one whose notes matched, with a
// snippet of two lines, in the workspace's repository; one by recency,
// complete, without notes.
func resumeSome() protocol.ResumeResult {
	in := protocol.ResumeInput{Query: "auth bug", WorkspacePath: "/src/app"}
	return protocol.NewResume(in, []protocol.Candidate{
		{Tier: resume.TierNotes, Session: protocol.SessionRef{SessionID: 12, RunID: 1},
			Workflow:  protocol.WorkflowRef{ID: "wr.bugfix", Name: "Bug fix", Hash: engine.WorkflowHash{1}},
			TipNodeID: 7, Status: project.InProgress, SameRepository: true,
			Snippet: "Fixing the auth bug.\nNext: the token refresh race.", StateToken: "st.v1.A", NextCall: protocol.Rehydrate("st.v1.A")},
		{Tier: resume.TierRecency, Session: protocol.SessionRef{SessionID: 3, RunID: 2},
			Workflow:  protocol.WorkflowRef{ID: "wr.hello", Name: "Hello", Hash: engine.WorkflowHash{2}},
			TipNodeID: 4, Status: project.Complete, StateToken: "st.v1.B", NextCall: protocol.Rehydrate("st.v1.B")},
	})
}

func TestResumeGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		r    protocol.ResumeResult
	}{{"resume_none", resumeNone()}, {"resume_some", resumeSome()}} {
		t.Run(c.name, func(t *testing.T) {
			if c.r.ResultKind() != protocol.KindCandidates || c.r.Kind != protocol.KindCandidates || c.r.RenderedText() != c.r.Text {
				t.Fatalf("kind %s/%s, text field differs from RenderedText", c.r.ResultKind(), c.r.Kind)
			}
			golden.Check(t, filepath.Join("testdata", "golden", c.name+".txt"), []byte(c.r.Text))
			golden.Check(t, filepath.Join("testdata", "golden", c.name+".json"), mustJSON(t, c.r))
		})
	}
}

// An agent that reads only the text can resume: each candidate's call
// is in it, tokens filled in.
func TestResumeTextCarriesEveryCall(t *testing.T) {
	r := resumeSome()
	for _, c := range r.Candidates {
		if want := `continue_workflow {"stateToken":"` + c.StateToken + `"}`; !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %s", want)
		}
	}
}

func TestParseResume(t *testing.T) {
	in, e := protocol.ParseResume([]byte(`{"query":"auth bug","gitBranch":"fix/auth","gitHeadSha":"0123","workspacePath":"/src/app"}`))
	if e != nil || in != (protocol.ResumeInput{Query: "auth bug", GitBranch: "fix/auth", GitHeadSHA: "0123", WorkspacePath: "/src/app"}) {
		t.Fatalf("ParseResume = %+v, %v", in, e)
	}
	if in, e := protocol.ParseResume(nil); e != nil || in != (protocol.ResumeInput{}) {
		t.Fatalf("no arguments: %+v, %v", in, e)
	}
	tests := []struct {
		name string
		raw  string
		want wantErr
	}{
		{"misspelt key", `{"qeury":"auth bug"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "qeury", DidYouMean: "query"}}}},
		{"key of another tool", `{"query":"x","stateToken":"st.v1.x"}`, wantErr{Code: engine.CodeUnknownKey}},
		{"relative workspace", `{"workspacePath":"src/app"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath"}},
		{"query not a string", `{"query":["auth"]}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/query"}},
		{"not an object", `"auth bug"`, wantErr{Code: engine.CodeInvalidInput}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := protocol.ParseResume([]byte(tt.raw))
			checkErr(t, e, tt.want)
		})
	}
}
