package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// WorkflowSummary is one row of list_workflows.
type WorkflowSummary struct {
	ID          engine.WorkflowID `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Version     string            `json:"version"`
	Kind        workflow.Kind     `json:"kind"`
	IDStatus    workflow.IDStatus `json:"idStatus"`
	// Source is where the definition is read from; absent only when a
	// run's pinned version is shown and no source defines it any more.
	Source   catalog.Source   `json:"source,omitzero"`
	Warnings []catalog.Notice `json:"warnings,omitempty"`
	// Dialect is the authoring format the file was read from, when it is
	// not the canonical one.
	Dialect compile.Dialect `json:"dialect,omitempty"`
	// Rewrites counts the LEGACY_FORMAT warnings a list leaves out:
	// a large file of the old format has dozens, which inspect_workflow
	// shows and a list of every workflow should not repeat.
	Rewrites int `json:"rewrites,omitempty"`
}

// ListResult is list_workflows' result.
type ListResult struct {
	Kind      Kind              `json:"kind"`
	Text      string            `json:"text"`
	Workflows []WorkflowSummary `json:"workflows"`
	Shadowed  []catalog.Shadow  `json:"shadowed,omitempty"`
	// Problems are the first MaxListedProblems files that could not be
	// loaded, each with its first maxFileProblems problems;
	// ProblemCount counts them all.
	Problems     []ListedProblem `json:"problems,omitempty"`
	ProblemCount int             `json:"problemCount,omitempty"`
	// SourceWarnings name the sources serving less than they hold: a
	// repository that could not be fetched, and since when.
	SourceWarnings []catalog.SourceWarning `json:"sourceWarnings,omitempty"`
}

// ListedProblem is a file a list could not load, with its first problems.
type ListedProblem struct {
	catalog.LoadProblem
	// MoreProblems counts the file's problems left out.
	MoreProblems int `json:"moreProblems,omitempty"`
}

// A list's bounds on the files it could not load: a cloned repository's
// folder of thousands of broken files would otherwise make one answer of
// megabytes (20,000 made 9.55 MB). The rest are counted, and `workrail
// validate` lists every problem.
const (
	MaxListedProblems = 20
	maxFileProblems   = 5
)

// ResultKind implements Result.
func (ListResult) ResultKind() Kind { return KindWorkflows }

// RenderedText implements Result.
func (l ListResult) RenderedText() string { return l.Text }

// NewList renders the workflows of a catalog.
func NewList(cat *catalog.Catalog) ListResult {
	out := ListResult{Kind: KindWorkflows, Workflows: []WorkflowSummary{}, Shadowed: cat.Shadowed, ProblemCount: len(cat.Problems),
		SourceWarnings: cat.Warnings}
	var b strings.Builder
	b.WriteString("# Workflows\n\n")
	for _, w := range cat.Warnings {
		fmt.Fprintf(&b, "Warning %s: %s\n\n", w.Code, w.Message)
	}
	for _, e := range cat.All() {
		s := listed(e)
		out.Workflows = append(out.Workflows, s)
		fmt.Fprintf(&b, "- %s (%s): %s. %s\n", s.ID, s.Kind, s.Name, s.Description)
		if s.Source.Kind == catalog.Repo {
			fmt.Fprintf(&b, "  from %s\n", repoText(s.Source.Repo))
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "  warning %s\n", noticeText(w))
		}
		if s.Rewrites > 0 {
			fmt.Fprintf(&b, "  read from the %s format with %d rewrites (inspect_workflow lists them)\n", s.Dialect, s.Rewrites)
		}
	}
	for _, sh := range cat.Shadowed {
		fmt.Fprintf(&b, "\nNote: %s from %s (%s) is shadowed by the %s one.%s\n", sh.ID, sourceText(sh.Shadowed), sh.File, sourceText(sh.Winner), shadowRule(sh))
	}
	out.Problems = listedProblems(cat.Problems)
	for _, p := range out.Problems {
		fmt.Fprintf(&b, "\nNot loaded: %s: %s\n", p.File, p.Problems[0])
	}
	if len(cat.Problems) > 0 {
		b.WriteString("\n")
		if more := len(cat.Problems) - len(out.Problems); more > 0 {
			fmt.Fprintf(&b, "%d more files not loaded (%d in all). ", more, len(cat.Problems))
		}
		fmt.Fprintf(&b, "Run `workrail validate %s` to see every problem of every file, with its line.\n", strings.Join(problemFolders(cat.Problems), " "))
	}
	b.WriteString("\nTo begin, call start_workflow with {\"workflowId\": \"<id>\"}.\n")
	out.Text = b.String()
	return out
}

// repoText names a repository and the commit read: "repository
// https://host/flows.git (main) at commit 0123456789ab".
func repoText(r catalog.RepoRef) string {
	ref := ""
	if r.Ref != "" {
		ref = " (" + r.Ref + ")"
	}
	return fmt.Sprintf("repository %s%s at commit %s", r.URL, ref, r.Short())
}

// sourceText names a source: a repository by its address, any other by
// its kind.
func sourceText(s catalog.Source) string {
	if s.Kind == catalog.Repo {
		return "repository " + s.Repo.URL
	}
	return string(s.Kind)
}

// shadowRule says why the winner of two repositories wins: of two folders
// the higher kind wins, as everyone expects, but of repositories the
// later one.
func shadowRule(sh catalog.Shadow) string {
	if sh.Winner.Kind == catalog.Repo && sh.Shadowed.Kind == catalog.Repo && sh.Winner != sh.Shadowed {
		return " Of two repositories the later in workflowRepos wins."
	}
	return ""
}

// listedProblems is the first MaxListedProblems of problems, each with
// its first maxFileProblems.
func listedProblems(problems []catalog.LoadProblem) []ListedProblem {
	var out []ListedProblem
	for _, p := range problems[:min(len(problems), MaxListedProblems)] {
		l := ListedProblem{LoadProblem: p}
		if n := len(p.Problems); n > maxFileProblems {
			l.Problems, l.MoreProblems = p.Problems[:maxFileProblems], n-maxFileProblems
		}
		out = append(out, l)
	}
	return out
}

// problemFolders are the folders holding files that could not be loaded,
// in the order first met, at most three.
func problemFolders(problems []catalog.LoadProblem) []string {
	var dirs []string
	for _, p := range problems {
		if d := p.Source.Path; d != "" && !slices.Contains(dirs, d) {
			if dirs = append(dirs, d); len(dirs) == 3 {
				break
			}
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"FOLDER"}
	}
	return dirs
}

// listed is e's row in a list: its warnings without the rewrites of a
// legacy file, which it only counts.
func listed(e catalog.Entry) WorkflowSummary {
	s := summary(e)
	s.Warnings = nil
	for _, w := range e.Warnings {
		if w.Code == event.NoticeLegacyFormat {
			s.Rewrites++
			continue
		}
		s.Warnings = append(s.Warnings, w)
	}
	return s
}

func summary(e catalog.Entry) WorkflowSummary {
	c := e.Compiled
	return WorkflowSummary{ID: c.ID, Name: c.Name, Description: c.Description, Version: c.Version,
		Kind: c.Kind, IDStatus: e.IDStatus, Source: e.Source, Warnings: e.Warnings, Dialect: c.Dialect}
}

// noticeText is a load warning on one line: its code (and the rewrite's,
// for a legacy file), where in the file it points when it does, and what
// it says.
func noticeText(n catalog.Notice) string {
	code := string(n.Code)
	if n.Rewrite != "" {
		code += " " + string(n.Rewrite)
	}
	if n.Pointer != "" {
		return fmt.Sprintf("%s at %s: %s", code, n.Pointer, n.Message)
	}
	return fmt.Sprintf("%s: %s", code, n.Message)
}

// InspectResult is inspect_workflow's result: what a workflow is and, in
// preview mode, the prompts its steps render to.
type InspectResult struct {
	Kind                   Kind                                  `json:"kind"`
	Text                   string                                `json:"text"`
	Mode                   InspectMode                           `json:"mode"`
	Workflow               WorkflowSummary                       `json:"workflow"`
	WorkflowHash           engine.WorkflowHash                   `json:"workflowHash"`
	AppliedFeatures        []workflow.FeatureID                  `json:"appliedFeatures"`
	Capabilities           map[workflow.Capability]workflow.Need `json:"capabilities,omitempty"`
	RecommendedPreferences *workflow.Preferences                 `json:"recommendedPreferences,omitempty"`
	Context                []workflow.ContextInput               `json:"context"`
	Steps                  []StepOutline                         `json:"steps"`
	Warnings               []Warning                             `json:"warnings"`
	pinned                 bool                                  // the version a run is pinned to
	// ReadFrom is where the run's version was read from, when inspected
	// with a run's stateToken and a repository defined it: the commit
	// the run recorded, whatever the repository serves now.
	ReadFrom event.RepoPin `json:"readFrom,omitzero"`

	// Rewrites are the codes of what reading a file in another dialect
	// changed (Workflow.Dialect says which); empty for a canonical file.
	Rewrites []string `json:"rewrites,omitempty"`
	// What the workflow says about itself, for the agent or person
	// choosing it. None of it changes which step runs.
	About                string                  `json:"about,omitempty"`
	Examples             []string                `json:"examples,omitempty"`
	Preconditions        []string                `json:"preconditions,omitempty"`
	ClarificationPrompts []string                `json:"clarificationPrompts,omitempty"`
	MetaGuidance         []string                `json:"metaGuidance,omitempty"`
	References           []workflow.Reference    `json:"references,omitempty"`
	MetricsProfile       workflow.MetricsProfile `json:"metricsProfile,omitempty"`
	FunctionDefinitions  []workflow.FunctionDef  `json:"functionDefinitions,omitempty"`
	Assessments          []workflow.Assessment   `json:"assessments,omitempty"`
	Contracts            []ContractOutline       `json:"contracts,omitempty"`
	Notes                workflow.NotesPolicy    `json:"notes,omitempty"`
}

// ContractOutline is one output contract a workflow's steps require:
// WorkRail's own pack or one the workflow declares, pinned with it.
type ContractOutline struct {
	Ref         workflow.ContractRef `json:"ref"`
	Declared    bool                 `json:"declared"` // by the workflow, not WorkRail
	Description string               `json:"description"`
	Kinds       []string             `json:"kinds,omitempty"`
	Schema      json.RawMessage      `json:"schema"`
	Example     json.RawMessage      `json:"example"`
}

// contractOutlines lists a compiled workflow's contracts by ref.
func contractOutlines(c compile.Workflow) []ContractOutline {
	var out []ContractOutline
	for _, ref := range slices.Sorted(maps.Keys(c.Contracts)) {
		p := c.Contracts[ref]
		_, builtin := compile.Pack(ref)
		out = append(out, ContractOutline{Ref: ref, Declared: !builtin, Description: p.Description, Kinds: p.Kinds,
			Schema: p.Schema, Example: p.Example})
	}
	return out
}

// StepOutline is one step or loop in the outline.
type StepOutline struct {
	ID             workflow.StepID         `json:"id"`
	Title          string                  `json:"title"`
	Depth          int                     `json:"depth"`
	Loop           *workflow.LoopSpec      `json:"loop,omitempty"`
	Condition      string                  `json:"runCondition,omitempty"`
	Output         workflow.ContractRef    `json:"requiredOutput,omitempty"`
	UserDependency string                  `json:"userDependency,omitempty"`
	Origin         compile.Origin          `json:"origin"`
	Assessments    []workflow.AssessmentID `json:"assessmentRefs,omitempty"`
	ConfirmWhen    string                  `json:"confirmWhen,omitempty"`
	Delegates      []engine.WorkflowID     `json:"delegatesTo,omitempty"`
	Prompt         string                  `json:"prompt,omitempty"` // preview mode only
}

// ResultKind implements Result.
func (InspectResult) ResultKind() Kind { return KindWorkflow }

// RenderedText implements Result.
func (r InspectResult) RenderedText() string { return r.Text }

// NewInspect renders one workflow's outline; preview adds every prompt.
func NewInspect(e catalog.Entry, mode InspectMode) InspectResult {
	return newInspect(e, mode, false, nil, event.RepoPin{})
}

// NewInspectPinned renders the version a run is pinned to, with the
// drift warning when its id now means something else, and the repository
// and commit the run read it from, if a repository defined it.
func NewInspectPinned(e catalog.Entry, mode InspectMode, warnings []Warning, from event.RepoPin) InspectResult {
	return newInspect(e, mode, true, warnings, from)
}

func newInspect(e catalog.Entry, mode InspectMode, pinned bool, warnings []Warning, from event.RepoPin) InspectResult {
	c := e.Compiled
	r := InspectResult{Kind: KindWorkflow, Mode: mode, Workflow: summary(e), WorkflowHash: c.Hash,
		AppliedFeatures: c.AppliedFeatures, Capabilities: c.Capabilities, RecommendedPreferences: c.RecommendedPreferences,
		Context: c.Context, Steps: outline(c.Steps, 0, mode == InspectPreview), Warnings: nonNil(warnings), pinned: pinned,
		Rewrites: c.Rewrites, About: c.About, Examples: c.Examples, Preconditions: c.Preconditions,
		ClarificationPrompts: c.ClarificationPrompts, MetaGuidance: c.MetaGuidance, References: c.References,
		MetricsProfile: c.MetricsProfile, FunctionDefinitions: c.FunctionDefinitions, Assessments: c.Assessments,
		Contracts: contractOutlines(c.Workflow), Notes: c.Notes, ReadFrom: from}
	if r.Context == nil {
		r.Context = []workflow.ContextInput{}
	}
	r.Text = inspectText(r)
	return r
}

func outline(list []compile.Node, depth int, preview bool) []StepOutline {
	var out []StepOutline
	for _, n := range list {
		if l := n.Loop; l != nil {
			spec := l.Spec
			out = append(out, StepOutline{ID: l.ID, Title: l.Title, Depth: depth, Loop: &spec, Origin: l.Provenance.Origin})
			out = append(out, outline(l.Body, depth+1, preview)...)
			continue
		}
		s := n.Step
		o := StepOutline{ID: s.ID, Title: s.Title, Depth: depth, Origin: s.Provenance.Origin}
		if s.RunCondition != nil {
			o.Condition = s.RunCondition.String()
		}
		if s.Output != nil {
			o.Output = s.Output.ContractRef
		}
		if s.UserDependency != nil {
			o.UserDependency = string(s.UserDependency.Reason)
		}
		o.Assessments = s.AssessmentRefs
		if s.ConfirmWhen != nil {
			o.ConfirmWhen = s.ConfirmWhen.String()
		}
		for _, d := range s.Delegations {
			o.Delegates = append(o.Delegates, d.WorkflowID)
		}
		if preview {
			o.Prompt = s.Prompt
		}
		out = append(out, o)
	}
	return out
}

func inspectText(r InspectResult) string {
	var b strings.Builder
	w := r.Workflow
	from := "from " + string(w.Source.Kind)
	switch {
	case w.Source == (catalog.Source{}):
		from = "no longer defined by any source"
	case w.Source.Kind == catalog.Repo:
		from = "from " + repoText(w.Source.Repo)
	}
	fmt.Fprintf(&b, "# %s (%s)\n%s\nversion %s, %s %s, hash %s\n", w.Name, w.ID, w.Description, w.Version, w.Kind, from, r.WorkflowHash)
	if w.Dialect != "" {
		fmt.Fprintf(&b, "written in the %s dialect and read through its normalizer (rewrites: %s)\n", w.Dialect, strings.Join(r.Rewrites, ", "))
	}
	policyLine(&b, r)
	aboutSections(&b, r)
	if len(r.Context) > 0 {
		b.WriteString("\n## Context inputs\n")
		for _, in := range r.Context {
			req := "optional"
			if in.Required {
				req = "required"
			}
			if in.SetDuringRun {
				req += ", set during the run"
			}
			fmt.Fprintf(&b, "- %s (%s, %s): %s\n", in.Name, in.Type, req, in.Description)
		}
	}
	b.WriteString("\n## Steps\n")
	for _, s := range r.Steps {
		b.WriteString(outlineLine(s) + "\n")
		if s.Prompt != "" {
			b.WriteString(indent(s.Prompt, s.Depth+1) + "\n")
		}
	}
	stepsSections(&b, r)
	if r.pinned {
		if r.ReadFrom != (event.RepoPin{}) {
			fmt.Fprintf(&b, "\nYour run read this version from repository %s at commit %s.", r.ReadFrom.URL, r.ReadFrom.Commit)
		}
		b.WriteString("\nYour run is pinned to this version: keep calling continue_workflow with its tokens.\n")
	} else {
		fmt.Fprintf(&b, "\nTo run it, call start_workflow with {\"workflowId\": %q}.\n", w.ID)
	}
	if len(w.Warnings) > 0 {
		b.WriteString("\n## Load warnings\n")
		for _, n := range w.Warnings {
			b.WriteString("- " + noticeText(n) + "\n")
		}
	}
	warningsSection(&b, r.Warnings)
	return b.String()
}

// aboutSections writes what the workflow says about itself, each part
// only when the workflow has it.
func aboutSections(b *strings.Builder, r InspectResult) {
	if r.About != "" {
		b.WriteString("\n## About\n" + r.About + "\n")
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString("\n## " + title + "\n")
		for _, it := range items {
			b.WriteString("- " + it + "\n")
		}
	}
	list("Before you start", r.Preconditions)
	list("Examples", r.Examples)
	list("Questions it may ask", r.ClarificationPrompts)
	list("Rules", r.MetaGuidance)
	if len(r.References) > 0 {
		b.WriteString("\n## References\n")
		for _, ref := range r.References {
			line := fmt.Sprintf("- %s: %s (%s", ref.ID, ref.Title, ref.Source)
			if ref.ResolveFrom != "" {
				line += ", from the " + string(ref.ResolveFrom)
			}
			if ref.Authoritative {
				line += ", authoritative"
			}
			b.WriteString(line + "): " + ref.Purpose + "\n")
		}
	}
	if len(r.FunctionDefinitions) > 0 {
		b.WriteString("\n## Functions\n")
		for _, f := range r.FunctionDefinitions {
			var params []string
			for _, p := range f.Parameters {
				params = append(params, p.Name+" "+p.Type)
			}
			fmt.Fprintf(b, "- %s(%s): %s\n", f.Name, strings.Join(params, ", "), f.Definition)
		}
	}
}

// stepsSections writes what the steps rate and produce.
func stepsSections(b *strings.Builder, r InspectResult) {
	if len(r.Assessments) > 0 {
		b.WriteString("\n## Assessments\n")
		for _, a := range r.Assessments {
			fmt.Fprintf(b, "- %s: %s\n", a.ID, a.Purpose)
			for _, d := range a.Dimensions {
				opt := ""
				if d.Optional {
					opt = ", optional"
				}
				fmt.Fprintf(b, "  - %s (%s%s): %s\n", d.ID, strings.Join(d.Levels, " | "), opt, d.Purpose)
			}
		}
	}
	if len(r.Contracts) > 0 {
		b.WriteString("\n## Output contracts\n")
		for _, c := range r.Contracts {
			by := "WorkRail"
			if c.Declared {
				by = "this workflow"
			}
			line := fmt.Sprintf("- %s (declared by %s", c.Ref, by)
			if len(c.Kinds) > 0 {
				line += "; also accepted as kind " + strings.Join(c.Kinds, ", ")
			}
			b.WriteString(line + "): " + c.Description + "\n")
		}
	}
}

// policyLine says how the workflow is measured and what its steps need
// besides their prompts, when that differs from the defaults.
func policyLine(b *strings.Builder, r InspectResult) {
	var meta []string
	if r.MetricsProfile != "" {
		meta = append(meta, "metrics profile "+string(r.MetricsProfile))
	}
	if r.Notes == workflow.NotesRequired {
		meta = append(meta, "every step needs notes unless it says otherwise or requires an output contract")
	}
	if len(meta) > 0 {
		b.WriteString(strings.Join(meta, "; ") + "\n")
	}
}

func outlineLine(s StepOutline) string {
	line := fmt.Sprintf("%s- %s: %s", strings.Repeat("  ", s.Depth), s.ID, s.Title)
	if s.Loop != nil {
		line += fmt.Sprintf(" [%s loop, at most %d]", s.Loop.Kind, s.Loop.MaxIterations)
	}
	if s.Condition != "" {
		line += " [when " + s.Condition + "]"
	}
	if s.Output != "" {
		line += " [requires " + string(s.Output) + "]"
	}
	if s.UserDependency != "" {
		line += " [needs the user: " + s.UserDependency + "]"
	}
	if len(s.Assessments) > 0 {
		line += " [rates " + joinIDs(s.Assessments) + "]"
	}
	if s.ConfirmWhen != "" {
		line += " [asks to confirm when " + s.ConfirmWhen + "]"
	}
	if len(s.Delegates) > 0 {
		line += " [delegates to " + joinIDs(s.Delegates) + "]"
	}
	return line
}

func indent(s string, depth int) string {
	pad := strings.Repeat("  ", depth)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// DaemonUnavailable is the error a tool call gets when the stdio shim
// cannot reach or start the daemon; cause says why and where to look.
func DaemonUnavailable(cause string) ErrorResult {
	return NewError(engine.Errorf(engine.CodeDaemonUnavailable, "%s. Retry the same call in a second; nothing was recorded.", cause))
}

// DaemonLost is the error a tool call gets when it reached the daemon
// but no answer came back, even after the shim sent it again: it may
// have been recorded. Sending it again is safe but for a start, which
// would start a second run.
func DaemonLost(cause string) ErrorResult {
	return NewError(engine.Errorf(engine.CodeDaemonUnavailable, "%s. The call reached the daemon, which went away before answering, so it may have been recorded. "+
		"Sending the same call again in a second is safe (a recorded continue_workflow or checkpoint_workflow is answered as it was recorded), "+
		"except start_workflow and start_session: call resume_session first, to continue a run the start may have made.", cause))
}

func joinIDs[T ~string](ids []T) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}
