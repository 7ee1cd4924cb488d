package resume

import (
	"fmt"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// RecordVersion is the definition version of Record. The stores label
// what they keep with it and rebuild from the log what was written under
// another: bump it whenever a change to Record or to the rules that fill
// it (Add, Refresh, the note snippet…) would make a refold differ from
// what an earlier build stored (store/testdata/derived pins each
// version's bytes).
const RecordVersion = 3

// Record is what the resume index keeps of one session: everything
// ranking reads, so a query never opens a log. It is derived data: Add
// folds each event after project.Index and Overview.Add folded it, and
// Refresh, at the end of every write, reads again at their tips the runs
// those events touched. A refold of the log rebuilds it byte for byte.
// The stores keep it as JSON, so its fields and tags are part of the
// database format.
//
// Three things ranking reads are not in the stored record, because they
// are not derived from the log: health, found by verifying the log (the
// query asks the store for each candidate's); workflow names, read from
// the pinned workflows (Name adds them to a record in memory); and the
// session's place in the store's write sequence (Written).
type Record struct {
	Session engine.SessionID `json:"session"`
	// Last is the index of the last event folded.
	Last engine.EventIndex `json:"last"`
	// Written is the session's place in its store's write sequence, set
	// in memory by the store that keeps the record: sessions within a
	// tier are ranked by it, the one written last first. A log's indexes
	// count only its own events, so they cannot order two sessions.
	Written engine.Write `json:"-"`
	// The latest observation of each key; empty when none was made.
	GitHeadSHA string `json:"gitHeadSha,omitempty"`
	GitBranch  string `json:"gitBranch,omitempty"`
	RepoRoot   string `json:"repoRoot,omitempty"`
	Runs       []Run  `json:"runs,omitempty"` // in start order
}

// Run is one run of a Record.
type Run struct {
	ID           engine.RunID        `json:"id"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash,omitzero"`
	// WorkflowName is the pinned workflow's name, and WorkflowTokens the
	// Tokens of the workflow's id and name: set by Name, never stored.
	WorkflowName   string   `json:"-"`
	WorkflowTokens []string `json:"-"`
	// Root is the run's first node; Tip its preferred tip (0 before the
	// root is created), and Status the run's status read there.
	Root   engine.NodeID     `json:"root,omitzero"`
	Tip    engine.NodeID     `json:"tip,omitzero"`
	Status project.RunStatus `json:"status"`
	// Activity is the tip's last activity: the highest event index that
	// touched a node on the path from the root to the tip. Every event
	// that touches a reachable node of the run is the latest in the log,
	// so the tip moves below that node (see Overview.Add) and this is
	// that event's index: no walk of the run is needed to keep it.
	Activity engine.EventIndex `json:"activity,omitzero"`
	// NoteTokens are the Tokens of the latest notes at the tip (see
	// RecentNodes): the newest entries of the recap continue_workflow
	// shows there.
	NoteTokens []string `json:"noteTokens,omitempty"`
	// Snippet is the newest of those notes, cut to MaxSnippetBytes, and
	// SnippetStep the step those notes report on.
	Snippet     string          `json:"snippet,omitempty"`
	SnippetStep workflow.StepID `json:"snippetStep,omitempty"`

	// stale: an event touched the run since Refresh last read it.
	stale bool
}

// Clone returns a copy of r whose runs can be changed without changing
// r's (token lists are replaced, never changed in place, so they are
// shared).
func (r Record) Clone() Record {
	r.Runs = slices.Clone(r.Runs)
	return r
}

// Add folds the next event of the session into the record. rd reads the
// node records as they stand after project.Index folded e.
func (r *Record) Add(rd project.Reader, e event.Event) error {
	r.Session, r.Last = e.Session, e.Index
	switch d := e.Data.(type) {
	case *event.ObservationRecordedData:
		r.observe(d)
	case *event.RunStartedData:
		r.Runs = append(r.Runs, Run{ID: e.Run, WorkflowID: d.WorkflowID, WorkflowHash: d.WorkflowHash,
			Status: project.InProgress, stale: true})
	case *event.NodeCreatedData:
		// A new node is its run's (e.Run, as project.Index records it) and
		// has no parent yet: only the run's first, its root, is reachable.
		ru, err := r.runOf(e.Run, e)
		if err != nil || ru.Root != 0 {
			return err
		}
		ru.Root, ru.Activity, ru.stale = e.Node, e.Index, true
		return nil
	}
	if e.Node == 0 {
		return nil
	}
	n, err := rd.Node(e.Node)
	if err != nil {
		return err
	}
	ru, err := r.runOf(n.Run, e)
	if err != nil || n.ID != ru.Root && n.Parent == 0 {
		return err // not linked yet: no path reaches it
	}
	ru.Activity, ru.stale = e.Index, true
	return nil
}

// runOf is run id of the record, which event e touches.
func (r *Record) runOf(id engine.RunID, e event.Event) (*Run, error) {
	for i := range r.Runs {
		if r.Runs[i].ID == id {
			return &r.Runs[i], nil
		}
	}
	return nil, fmt.Errorf("resume: event %d touches %s, which never started: %w", e.Index, id, engine.ErrNotFound)
}

// observe keeps the latest non-empty value of each key ranking reads.
func (r *Record) observe(d *event.ObservationRecordedData) {
	if d.Value == "" {
		return
	}
	switch d.Key {
	case event.ObsGitHeadSHA:
		r.GitHeadSHA = d.Value
	case event.ObsGitBranch:
		r.GitBranch = d.Value
	case event.ObsRepoRoot:
		r.RepoRoot = d.Value
	}
}

// Refresh reads again, at its preferred tip, every run an event touched
// since the last Refresh: its tip and status from o (the session's
// overview after the same events), and its latest notes' tokens and
// snippet. Runs nothing touched are left as they are: what they show can
// only change through an event on a node of theirs.
func (r *Record) Refresh(rd project.Reader, o project.Overview) error {
	for i := range r.Runs {
		ru := &r.Runs[i]
		if !ru.stale {
			continue
		}
		if err := ru.readTip(rd, o); err != nil {
			return err
		}
		ru.stale = false
	}
	return nil
}

// Name gives every run not named yet its workflow's name, from name (the
// pinned workflow's name by hash, "" when it cannot be read), and the
// tokens of its id and name, which the workflow tier matches.
func (r *Record) Name(name func(engine.WorkflowHash) string) {
	for i := range r.Runs {
		if ru := &r.Runs[i]; ru.WorkflowTokens == nil {
			ru.WorkflowName = name(ru.WorkflowHash)
			ru.WorkflowTokens = Tokens(string(ru.WorkflowID) + " " + ru.WorkflowName)
		}
	}
}

// readTip reads the run's tip and status from o and its latest notes
// from rd.
func (ru *Run) readTip(rd project.Reader, o project.Overview) error {
	ro := o.Run(ru.ID)
	if ro == nil {
		return fmt.Errorf("resume: the overview has no %s: %w", ru.ID, engine.ErrNotFound)
	}
	ru.Tip, ru.Status = ro.Tip, ro.Status
	ru.NoteTokens, ru.Snippet, ru.SnippetStep = nil, "", ""
	if ru.Tip == 0 {
		return nil
	}
	notes, step, err := latestNotes(rd, ru.Tip)
	if err != nil || len(notes) == 0 {
		return err
	}
	ru.Snippet, ru.SnippetStep = Snippet(notes[0]), step
	for i := range notes {
		notes[i] = normalize(notes[i])
	}
	notes[0] = wholeWords(notes[0], RecentNotesBytes)
	ru.NoteTokens = tokenize(strings.Join(notes, "\n"))
	return nil
}

// latestNotes are the notes recorded on the tip and the RecentNodes-1
// nodes above it, newest first, that fit RecentNotesBytes; the newest
// always, whole (the caller cuts it), and the step it reports on.
// Bounded on purpose: the index is refreshed in every write's
// transaction, so what it reads must not grow with the run.
func latestNotes(rd project.Reader, tip engine.NodeID) ([]string, workflow.StepID, error) {
	var out []string
	var step workflow.StepID
	used := 0
	n, err := rd.Node(tip)
	for walked := 1; err == nil; walked++ {
		for i := len(n.Outputs) - 1; i >= 0; i-- {
			ev, err := rd.Event(n.Outputs[i])
			if err != nil {
				return nil, "", err
			}
			d, ok := ev.Data.(*event.NodeOutputAppendedData)
			if !ok || strings.TrimSpace(d.NotesMarkdown) == "" || fill.IsTemplate(d.NotesMarkdown) {
				continue // nothing, or an earlier release's placeholder: never the agent's words
			}
			if len(out) > 0 && used+len(d.NotesMarkdown) > RecentNotesBytes {
				return out, step, nil
			}
			if len(out) == 0 {
				step = d.StepID
			}
			out, used = append(out, d.NotesMarkdown), used+len(d.NotesMarkdown)
		}
		// The path's outputs are all here once n holds as many as counted
		// from the root down to it.
		if used >= RecentNotesBytes || walked == RecentNodes || n.Parent == 0 || n.PathOutputs == len(n.Outputs) {
			return out, step, nil
		}
		n, err = rd.Node(n.Parent)
	}
	return nil, "", err
}

// wholeWords is normalized text s cut to at most n bytes before the
// word the cut falls in, so a cut never makes a token the notes do not
// hold. It cuts the normalized text, where words are what tokenize
// finds: in the notes as written, an uppercase or fullwidth letter would
// look like a separator.
func wholeWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && tokenByte(s[n]) {
		n--
	}
	return s[:n]
}
