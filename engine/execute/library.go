package execute

import (
	"errors"
	"maps"
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// What an MCP client browses besides the tools: the workflows as prompts,
// and sessions, runs and workflow sources as resources. Every read goes
// through the paths the tools and `workrail export` use.

// Prompts lists the workflows startable from workspace as MCP prompts.
func (s *Service) Prompts(workspace string) []protocol.Prompt {
	return protocol.Prompts(s.workflows.Catalog(workspace))
}

// Prompt is the message that asks the agent to start workflow id with
// args (protocol.PromptMessage); a routine is not offered as a prompt.
func (s *Service) Prompt(workspace string, id engine.WorkflowID, args map[string]string) (string, error) {
	cat := s.workflows.Catalog(workspace)
	e, ok := cat.Get(id)
	if !ok || e.Compiled.Kind == workflow.KindRoutine {
		return "", unknownWorkflow(cat, id)
	}
	msg, err := protocol.PromptMessage(e, args, workspace)
	if err != nil {
		return "", err
	}
	return msg, nil
}

// WorkflowSource is workflow id's file as it was read and compiled, in
// the catalog workspace sees.
func (s *Service) WorkflowSource(workspace string, id engine.WorkflowID) ([]byte, error) {
	cat := s.workflows.Catalog(workspace)
	e, ok := cat.Get(id)
	if !ok {
		return nil, unknownWorkflow(cat, id)
	}
	return e.Text, nil
}

// SessionMarkdown renders session id as `workrail export --markdown`
// does (bundle.Markdown), from its log as the store verified it rather
// than from an encoded bundle: only a healthy session is shown.
func (s *Service) SessionMarkdown(id engine.SessionID) (string, error) {
	return s.markdown(id, 0, func(v *bundle.Verified) (string, bool) { return bundle.Markdown(v), true })
}

// RunMarkdown renders one run of session id as Markdown
// (bundle.RunMarkdown), read as SessionMarkdown reads the session.
func (s *Service) RunMarkdown(id engine.SessionID, rid engine.RunID) (string, error) {
	return s.markdown(id, rid, func(v *bundle.Verified) (string, bool) { return bundle.RunMarkdown(v, rid) })
}

// markdown renders session id (or one run of it) with render, or answers
// what it rendered at the same head of the log: a log only grows, and a
// session id is never given twice, so the same head is the same text.
// Health is checked every time, as every read checks it.
func (s *Service) markdown(id engine.SessionID, rid engine.RunID, render func(*bundle.Verified) (string, bool)) (string, error) {
	if err := s.healthy(id, "shown"); err != nil {
		return "", err
	}
	l, err := s.readLog(id)
	if err != nil {
		return "", err
	}
	key, head := renderKey{id, rid}, engine.EventIndex(len(l.events))
	if md, ok := s.markdowns.text(key, head); ok {
		return md, nil
	}
	v, err := bundle.Unsealed(l.events, l.snapshots, l.workflows)
	if err != nil {
		return "", corrupt(id, err)
	}
	md, ok := render(v)
	if !ok {
		return "", engine.Errorf(engine.CodeInvalidInput, "session %s has no run %s; the resource %s lists its runs.", id, rid, protocol.SessionURI(id)).
			With("sessionId", id.String()).With("runId", rid.String())
	}
	s.markdowns.keepText(key, head, md)
	return md, nil
}

// readLog reads session id's log for its Markdown: the copy kept from the
// last read, with the events appended since and what they name read from
// the store, so a read after a write decodes only the new events.
func (s *Service) readLog(id engine.SessionID) (*logCopy, error) {
	prev := s.markdowns.log(id)
	var next *logCopy
	err := s.store.View(id, func(tx ReadTx) error {
		head := tx.Head()
		if prev != nil && engine.EventIndex(len(prev.events)) == head {
			next = prev
			return nil
		}
		if prev == nil || engine.EventIndex(len(prev.events)) > head {
			prev = &logCopy{}
		}
		l, err := prev.extended(tx, head, s.pinnedWorkflow)
		next = l
		return err
	})
	if err != nil {
		return nil, corrupt(id, err)
	}
	s.markdowns.keepLog(id, next)
	return next, nil
}

// logCopy is a session's log as read for its Markdown, with the snapshots
// and pinned workflows its events name. Never changed once made.
type logCopy struct {
	events    []event.Event
	snapshots map[engine.SnapshotRef]run.Snapshot
	workflows map[engine.WorkflowHash]compile.Compiled
}

// extended is a copy of l with tx's events after l's through head, and
// what they name.
func (l *logCopy) extended(tx ReadTx, head engine.EventIndex, pinned func(ReadTx, engine.WorkflowHash) (compile.Compiled, error)) (*logCopy, error) {
	n := &logCopy{events: make([]event.Event, len(l.events), head), snapshots: maps.Clone(l.snapshots), workflows: maps.Clone(l.workflows)}
	copy(n.events, l.events)
	if n.snapshots == nil {
		n.snapshots, n.workflows = map[engine.SnapshotRef]run.Snapshot{}, map[engine.WorkflowHash]compile.Compiled{}
	}
	from := len(n.events)
	for i := engine.EventIndex(from + 1); i <= head; i++ {
		e, err := tx.Event(i)
		if err != nil {
			return nil, err
		}
		n.events = append(n.events, e)
	}
	err := bundle.WalkReferences(n.events[from:], func(_ event.Event, ref engine.SnapshotRef) error {
		if _, ok := n.snapshots[ref]; ok {
			return nil
		}
		snap, err := tx.Snapshot(ref)
		n.snapshots[ref] = snap
		return err
	}, func(_ event.Event, h engine.WorkflowHash) error {
		if _, ok := n.workflows[h]; ok {
			return nil
		}
		c, err := pinned(tx, h)
		n.workflows[h] = c
		return err
	})
	return n, err
}

// healthy refuses a session that is not in the store, or not healthy;
// done says what would be done with it.
func (s *Service) healthy(id engine.SessionID, done string) error {
	h, err := s.store.Health(id)
	if rp := asReplaced(err); rp != nil {
		return rp
	}
	if errors.Is(err, engine.ErrNotFound) {
		return engine.Errorf(engine.CodeInvalidInput, "there is no session %s in this WorkRail store; `workrail sessions` lists them.", id).
			With("sessionId", id.String())
	}
	if err != nil {
		return s.internal("read session "+id.String(), err)
	}
	if h.Status != Healthy {
		return engine.Errorf(engine.CodeSessionCorrupt, "session %s is %s (%s), so it is not %s. Run `workrail doctor` to inspect it.",
			id, h.Status, h.Reason, done).With("sessionId", id.String()).With("health", string(h.Status))
	}
	return nil
}

// renderKey names a session's Markdown (run 0) or one run's.
type renderKey struct {
	session engine.SessionID
	run     engine.RunID
}

// rendered keeps what reading Markdown needs again: the texts rendered
// last, each with the head of the log it was rendered from (at most
// maxTexts), and the logs of the sessions read last (at most maxLogs).
// The zero value is ready to use.
type rendered struct {
	mu    sync.Mutex
	texts map[renderKey]renderedText
	logs  map[engine.SessionID]*logCopy
}

type renderedText struct {
	head engine.EventIndex
	md   string
}

// The bounds of rendered: a text is about as big as its notes, a log some
// kilobytes a step.
const (
	maxTexts = 16
	maxLogs  = 2
)

func (r *rendered) text(k renderKey, head engine.EventIndex) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.texts[k]
	return t.md, ok && t.head == head
}

func (r *rendered) keepText(k renderKey, head engine.EventIndex, md string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.texts[k]; !ok && len(r.texts) >= maxTexts || r.texts == nil {
		r.texts = map[renderKey]renderedText{} // start over: texts are cheap to render again
	}
	r.texts[k] = renderedText{head, md}
}

func (r *rendered) log(id engine.SessionID) *logCopy {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs[id]
}

func (r *rendered) keepLog(id engine.SessionID, l *logCopy) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.logs[id]; !ok && len(r.logs) >= maxLogs || r.logs == nil {
		r.logs = map[engine.SessionID]*logCopy{}
	}
	r.logs[id] = l
}
