package e2e

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/store"
)

// TestManyClients: eight IDE windows each run their own workflows while two
// more drive one session, one always from the newest tokens and one from
// older ones, as a rewound chat does, replaying what was sent and forking.
// All ten run at once through one daemon. Afterwards every note an agent
// sent is in the log exactly once, on a node of its own hanging from the
// node its advance left, each fork is exactly one branch, and every chain
// verifies.
func TestManyClients(t *testing.T) {
	const runners, runsEach = 8, 3
	home := newHome(t)
	shims := spawnShims(t, home, runners+2)
	led := &ledger{notes: map[string]written{}}

	var wg sync.WaitGroup
	errs := make(chan error, runners+2)
	begin := make(chan struct{})
	drive := func(name string, fn func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-begin
			if err := fn(); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	for i := range runners {
		a := &agent{c: shims[i].c, led: led}
		drive(fmt.Sprintf("runner %d", i), func() error {
			for j := range runsEach {
				if err := a.runHello(fmt.Sprintf("runner %d run %d", i, j)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	// Unbuffered: the newest-token agent's next advance runs while the other
	// agent replays and forks behind it, in the same session.
	hops := make(chan hop)
	newest := &agent{c: shims[runners].c, led: led}
	older := &agent{c: shims[runners+1].c, led: led}
	drive("newest tokens", func() error { return newest.lead(hops) })
	drive("older tokens", func() error { return older.follow(hops) })
	close(begin)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}

	// The daemon's own account: every session healthy, with its count.
	rep := healthyDoctor(t, home)
	if want := runners*runsEach + 1; rep.Total != want {
		t.Fatalf("doctor reports %d sessions, want %d", rep.Total, want)
	}
	for _, s := range shims {
		s.c.Close()
	}
	stopGracefully(t, home)

	logs := readLogs(t, home)
	if len(logs) != rep.Total {
		t.Errorf("doctor reported %d sessions, the file holds %d", rep.Total, len(logs))
	}
	for sid, n := range rep.events() {
		if len(logs[sid]) != n {
			t.Errorf("session %s: doctor counted %d events, the file holds %d", sid, n, len(logs[sid]))
		}
	}
	for _, p := range logProblems(led.notes, logs) {
		t.Error(p)
	}

	// The comparison itself can fail: a log with one event written twice,
	// or one event lost, does not pass it.
	shared := led.notes["newest: greet"].session
	for _, c := range []struct {
		name   string
		mutate func([]event.Event) []event.Event
	}{
		{"an output twice", func(evs []event.Event) []event.Event { return append(evs, firstOf(evs, event.NodeOutputAppended)) }},
		{"an advance twice", func(evs []event.Event) []event.Event { return append(evs, firstOf(evs, event.AdvanceRecorded)) }},
		{"a node lost", func(evs []event.Event) []event.Event { return without(evs, event.NodeCreated) }},
		{"a fork's edge lost", func(evs []event.Event) []event.Event { return withoutEdge(evs, event.EdgeForkedFromNonTip) }},
	} {
		bad := maps.Clone(logs)
		bad[shared] = c.mutate(slices.Clone(logs[shared]))
		if len(logProblems(led.notes, bad)) == 0 {
			t.Errorf("a log with %s passes the comparison", c.name)
		}
	}
}

// spawnShims starts n `workrail mcp` on home at once, closed at cleanup.
func spawnShims(t *testing.T, home string, n int) []*shim {
	t.Helper()
	shims := make([]*shim, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			shims[i], errs[i] = spawnShim(home)
		}()
	}
	wg.Wait()
	for i, s := range shims {
		if s != nil {
			t.Cleanup(func() { s.c.Close() })
		}
		if errs[i] != nil {
			t.Errorf("shim %d: %v", i, errs[i])
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return shims
}

// written is what one advance with notes must have left in the log: a node
// carrying the note, in session, reached from the node carrying parent ("":
// the run's root) by an acked_step edge, or by forked_from_non_tip for a
// fork.
type written struct {
	session string
	parent  string
	fork    bool
}

// ledger collects every note the agents' advances recorded. Each note is
// unique, so it names the node its advance created.
type ledger struct {
	mu    sync.Mutex
	notes map[string]written
}

func (l *ledger) add(note string, w written) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.notes[note]; dup {
		return fmt.Errorf("note %q sent twice", note)
	}
	l.notes[note] = w
	return nil
}

// view is a step result and the note on the node it shows ("": the root).
type view struct {
	r  result
	on string
}

// hop is one advance of the newest-token agent, handed to the other.
type hop struct {
	from   view
	args   map[string]any
	answer result
}

// agent is one chat: an MCP client and the ledger of what it recorded.
type agent struct {
	c   *client.Client
	led *ledger
}

func (a *agent) call(tool string, args map[string]any) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tryCall(ctx, a.c, tool, args)
}

func (a *agent) start() (view, error) {
	r, err := a.call("start_workflow", map[string]any{"workflowId": "wr.hello"})
	if err == nil && r.kind() != "step" {
		err = fmt.Errorf("start_workflow: kind %q: %s", r.kind(), r.Text)
	}
	return view{r: r}, err
}

// advance follows from's nextCall with note and records it.
func (a *agent) advance(from view, note string, fork bool) (view, map[string]any, error) {
	args, ok := dig(from.r.S, "nextCall", "arguments").(map[string]any)
	if !ok {
		return view{}, nil, fmt.Errorf("no nextCall in %s", from.r.Raw)
	}
	args = map[string]any{"stateToken": args["stateToken"], "ackToken": args["ackToken"], "output": map[string]any{"notesMarkdown": note}}
	r, err := a.call("continue_workflow", args)
	if err != nil {
		return view{}, nil, err
	}
	if k := r.kind(); k != "step" && k != "complete" {
		return view{}, nil, fmt.Errorf("advance %q: kind %q: %s", note, k, r.Text)
	}
	session := str(from.r.S, "session", "sessionId")
	if got := str(r.S, "session", "sessionId"); got != session {
		return view{}, nil, fmt.Errorf("advance %q moved from session %s to %s", note, session, got)
	}
	return view{r: r, on: note}, args, a.led.add(note, written{session: session, parent: from.on, fork: fork})
}

// finish advances v to the run's end, naming each note prefix and the step.
func (a *agent) finish(v view, prefix string) error {
	for i := 0; v.r.kind() == "step"; i++ {
		if i == len(helloSteps) {
			return fmt.Errorf("%s: not complete after %d advances", prefix, i)
		}
		var err error
		if v, _, err = a.advance(v, prefix+": "+str(v.r.S, "pending", "stepId"), false); err != nil {
			return err
		}
	}
	return nil
}

// runHello runs wr.hello in a session of its own, start to end.
func (a *agent) runHello(name string) error {
	v, err := a.start()
	if err != nil {
		return err
	}
	return a.finish(v, name)
}

// lead runs wr.hello from the newest tokens, handing each advance to the
// agent that plays the same session from older ones.
func (a *agent) lead(hops chan<- hop) error {
	defer close(hops)
	v, err := a.start()
	if err != nil {
		return err
	}
	for v.r.kind() == "step" {
		next, args, err := a.advance(v, "newest: "+str(v.r.S, "pending", "stepId"), false)
		if err != nil {
			return err
		}
		hops <- hop{from: v, args: args, answer: next.r}
		v = next
	}
	return nil
}

// follow plays a chat rewound to each step the other agent has left: it
// resends exactly what was sent there (a replay: the same answer, nothing
// written), then rehydrates that step and forks a branch it runs to the
// end. The start is rewound to twice, so one node gets two forks.
func (a *agent) follow(hops <-chan hop) error {
	forks := 0
	for h := range hops {
		again, err := a.call("continue_workflow", h.args)
		if err != nil {
			return err
		}
		if !bytes.Equal(again.Raw, h.answer.Raw) {
			return fmt.Errorf("replay differs from the first answer:\n%s\n%s", again.Raw, h.answer.Raw)
		}
		times := 1
		if h.from.on == "" {
			times = 2
		}
		for range times {
			forks++
			re, err := a.call("continue_workflow", map[string]any{"stateToken": str(h.from.r.S, "stateToken")})
			if err != nil {
				return err
			}
			step := str(h.from.r.S, "pending", "stepId")
			if re.kind() != "step" || str(re.S, "pending", "stepId") != step {
				return fmt.Errorf("rehydrate of %s: kind %q, pending %q", step, re.kind(), str(re.S, "pending", "stepId"))
			}
			if str(re.S, "ackToken") == h.args["ackToken"] {
				return fmt.Errorf("rehydrate of %s handed out the spent ackToken again", step)
			}
			prefix := fmt.Sprintf("fork %d", forks)
			v, _, err := a.advance(view{r: re, on: h.from.on}, prefix+" from "+step, true)
			if err != nil {
				return err
			}
			if err := a.finish(v, prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// stopGracefully stops home's daemon with SIGTERM and waits until it is
// gone, so that its file can be opened.
func stopGracefully(t *testing.T, home string) {
	t.Helper()
	i := mustInfo(t, home)
	if !alive(i.PID) || !isOurDaemon(i.PID) {
		t.Fatalf("daemon.json names pid %d, which is not a live workrail daemon", i.PID)
	}
	if err := syscall.Kill(i.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, i.PID, 15*time.Second)
}

// readLogs opens home's database read-only, requires the store's own
// full check of every session to pass, and returns every session's events.
func readLogs(t *testing.T, home string) map[string][]event.Event {
	t.Helper()
	st, err := store.Open(filepath.Join(home, "workrail.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reports, err := st.Doctor()
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string][]event.Event{}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("session %s: %+v", r.Session, r)
		}
		evs, h, err := st.Events(r.Session)
		if err != nil || len(evs) != int(h.LastGood) {
			t.Fatalf("session %s: %d events, health %+v, %v", r.Session, len(evs), h, err)
		}
		logs[r.Session.String()] = evs
	}
	return logs
}

// logProblems compares the notes the agents recorded with the sessions'
// logs: every note is in the file once, in its session, and no session is
// missing or extra.
func logProblems(want map[string]written, logs map[string][]event.Event) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	advances := map[string]int{}
	for _, w := range want {
		advances[w.session]++
	}
	for sid := range advances {
		if _, ok := logs[sid]; !ok {
			bad("session %s, which the agents wrote to, is not in the file", sid)
		}
	}
	recorded := map[string]int{}
	for sid, evs := range logs {
		if advances[sid] == 0 {
			bad("session %s: no agent wrote to it", sid)
		}
		tr := foldTree(evs)
		for note, n := range tr.times {
			recorded[note] += n
		}
		checkTree(bad, sid, tr, want, advances[sid])
	}
	for note := range want {
		if recorded[note] != 1 {
			bad("%q is in the file %d times, want once", note, recorded[note])
		}
	}
	return problems
}

// tree is one session's log folded into its nodes, their edges and notes.
type tree struct {
	kinds    map[event.Kind]int
	nodes    []engine.NodeID
	incoming map[engine.NodeID][]*event.EdgeCreatedData
	notesOn  map[engine.NodeID][]string
	nodeOf   map[string]engine.NodeID // note → the node carrying it
	times    map[string]int           // note → how many outputs carry it
}

func foldTree(evs []event.Event) tree {
	tr := tree{kinds: map[event.Kind]int{}, incoming: map[engine.NodeID][]*event.EdgeCreatedData{},
		notesOn: map[engine.NodeID][]string{}, nodeOf: map[string]engine.NodeID{}, times: map[string]int{}}
	for _, e := range evs {
		tr.kinds[e.Kind]++
		switch d := e.Data.(type) {
		case *event.NodeCreatedData:
			tr.nodes = append(tr.nodes, e.Node)
		case *event.EdgeCreatedData:
			tr.incoming[d.To] = append(tr.incoming[d.To], d)
		case *event.NodeOutputAppendedData:
			tr.notesOn[e.Node] = append(tr.notesOn[e.Node], d.NotesMarkdown)
			tr.nodeOf[d.NotesMarkdown] = e.Node
			tr.times[d.NotesMarkdown]++
		}
	}
	return tr
}

// checkTree requires session sid to hold one run whose nodes form a tree:
// one root without a note, every other node carrying exactly one note and
// reached by exactly one edge, from the node its advance left, of the kind
// the advance was; and each of the advances recorded once.
func checkTree(bad func(string, ...any), sid string, tr tree, want map[string]written, advances int) {
	if tr.kinds[event.SessionCreated] != 1 || tr.kinds[event.RunStarted] != 1 {
		bad("session %s: %d session_created, %d run_started, want one each", sid, tr.kinds[event.SessionCreated], tr.kinds[event.RunStarted])
	}
	if n := tr.kinds[event.AdvanceRecorded]; n != advances {
		bad("session %s: %d advances recorded, the agents made %d", sid, n, advances)
	}
	if got := len(tr.nodes) - 1; got != advances {
		bad("session %s: %d nodes besides the root, the agents advanced %d times", sid, got, advances)
	}
	var roots []engine.NodeID
	for _, n := range tr.nodes {
		switch len(tr.incoming[n]) {
		case 0:
			roots = append(roots, n)
		case 1:
		default:
			bad("session %s: node %d is reached by %d edges", sid, n, len(tr.incoming[n]))
		}
	}
	if len(roots) != 1 {
		bad("session %s: %d nodes without a parent (%v), want the run's root alone", sid, len(roots), roots)
		return
	}
	tr.nodeOf[""] = roots[0]
	for _, n := range tr.nodes {
		if want := 1 - b2i(n == roots[0]); len(tr.notesOn[n]) != want {
			bad("session %s: node %d carries notes %q, want %d", sid, n, tr.notesOn[n], want)
		}
	}
	for n, notes := range tr.notesOn {
		for _, note := range notes {
			w, ok := want[note]
			switch {
			case !ok:
				bad("session %s: node %d carries %q, which no agent sent", sid, n, note)
			case w.session != sid:
				bad("session %s: %q belongs in session %s", sid, note, w.session)
			default:
				checkEdge(bad, sid, note, w, tr.incoming[n], tr.nodeOf)
			}
		}
	}
}

// checkEdge requires the one edge into note's node to come from the node
// its advance left, with the advance's kind.
func checkEdge(bad func(string, ...any), sid, note string, w written, in []*event.EdgeCreatedData, nodeOf map[string]engine.NodeID) {
	if len(in) != 1 {
		return // reported with the node
	}
	kind := event.EdgeAckedStep
	if w.fork {
		kind = event.EdgeForkedFromNonTip
	}
	from, ok := nodeOf[w.parent]
	if !ok {
		bad("session %s: %q hangs from %q, which is on no node", sid, note, w.parent)
		return
	}
	if in[0].From != from || in[0].EdgeKind != kind {
		bad("session %s: %q is reached by %s from node %d, want %s from node %d", sid, note, in[0].EdgeKind, in[0].From, kind, from)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func firstOf(evs []event.Event, k event.Kind) event.Event {
	for _, e := range evs {
		if e.Kind == k {
			return e
		}
	}
	panic("no " + string(k))
}

// without drops the last event of kind k.
func without(evs []event.Event, k event.Kind) []event.Event {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == k {
			return slices.Delete(evs, i, i+1)
		}
	}
	panic("no " + string(k))
}

// withoutEdge drops the first edge of kind k.
func withoutEdge(evs []event.Event, k event.EdgeKind) []event.Event {
	for i, e := range evs {
		if d, ok := e.Data.(*event.EdgeCreatedData); ok && d.EdgeKind == k {
			return slices.Delete(evs, i, i+1)
		}
	}
	panic("no " + string(k) + " edge")
}
