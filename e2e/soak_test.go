package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/workrail/workrail/engine/event"
)

var soakFor = flag.Duration("soak", 10*time.Second, "how long TestSoak drives its agents while the daemon is killed under them")

// soakAgents is how many simulated agents drive the daemon at once, each
// through its own shim.
const soakAgents = 16

// TestSoak drives 16 agents through their own shims for -soak (default
// 10 s): each starts wr.hello runs and, at random, advances, re-reads,
// replays its last advance, checkpoints, forks from an older token and
// resumes by a word of its notes, while a chaos loop kill -9s the daemon
// at random intervals (the shims start it again). A call cut off by a
// kill is sent again, as an agent would. At the end: every acknowledged
// advance and checkpoint is in the logs exactly once, every advance
// replays byte for byte as first answered, every session verifies, and
// the last daemon's goroutines, open files and memory come back to where
// they were after a warm-up. WORKRAIL_SOAK_SEED replays a seed.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak: skipped with -short")
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("WORKRAIL_SOAK_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (rerun with WORKRAIL_SOAK_SEED=%d), %v", seed, seed, *soakFor)
	home := newHome(t)
	agents := make([]*soakAgent, soakAgents)
	for i := range agents {
		s, err := spawnShim(home)
		if err != nil {
			t.Fatal(err)
		}
		defer s.c.Close()
		agents[i] = &soakAgent{id: i, tag: fmt.Sprintf("soakagent%02d", i), c: s.c, rng: rand.New(rand.NewSource(seed + int64(i))), notes: map[string]string{}, home: home}
	}

	stop := make(chan struct{})
	var kills atomic.Int32
	chaosDone := make(chan struct{})
	go func() {
		defer close(chaosDone)
		chaos(home, rand.New(rand.NewSource(seed)), stop, &kills)
	}()
	deadline := time.Now().Add(*soakFor)
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && a.err == nil {
				a.err = a.run(deadline)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-chaosDone

	v := &soakVerdict{}
	for _, a := range agents {
		v.check(a.err == nil, "agent %d: %v", a.id, a.err)
	}
	// With the chaos over, every agent's shim reaches the last daemon once
	// (its connections are open from then on) before the baseline.
	for _, a := range agents {
		a.verifyResume(v)
	}
	time.Sleep(time.Second) // let each shim's notification stream open, as below
	before := daemonLoad(t, home)
	for _, a := range agents {
		a.verifyReplays(v)
		a.verifyResume(v)
	}
	time.Sleep(time.Second) // let the last connections and goroutines settle
	after := daemonLoad(t, home)
	v.check(after.Goroutines <= before.Goroutines+soakAgents, "goroutines grew from %d to %d with the agents idle", before.Goroutines, after.Goroutines)
	v.check(after.OpenFiles <= before.OpenFiles+soakAgents, "open files grew from %d to %d with the agents idle", before.OpenFiles, after.OpenFiles)
	v.check(after.rssKiB <= before.rssKiB*3/2+4096, "resident memory grew from %d KiB to %d KiB with the agents idle", before.rssKiB, after.rssKiB)

	stopGracefully(t, home)
	// Imported sessions hold copies of their origin's notes: the notes are
	// counted in the sessions the agents wrote.
	counts, imported, started := map[string]int{}, 0, 0
	for _, evs := range readLogs(t, home) {
		if c, ok := evs[0].Data.(*event.SessionCreatedData); ok && c.ImportedFrom != nil {
			imported++
			continue
		}
		started++
		for _, e := range evs {
			if d, ok := e.Data.(*event.NodeOutputAppendedData); ok {
				counts[d.NotesMarkdown]++
			}
		}
	}
	// An import the kill cut off may have been committed before its answer
	// was lost: sent again, it adds a second copy (an import never merges).
	done, unsure := sumOver(agents, func(a *soakAgent) int { return a.imports }), sumOver(agents, func(a *soakAgent) int { return a.importsCutOff })
	v.check(imported >= done && imported <= done+unsure, "%d imported sessions in the logs; the agents imported %d, and %d more imports were cut off", imported, done, unsure)
	// A start the kill cut off after its commit is sent again by the shim
	// under its retry key and answered with the run it made: every session
	// started is one an agent holds, but for starts left unanswered twice.
	held, lost := sumOver(agents, func(a *soakAgent) int { return len(a.sessions) }), sumOver(agents, func(a *soakAgent) int { return a.startsUnanswered })
	v.check(started >= held && started <= held+lost, "%d sessions started in the logs; the agents hold %d, and %d more starts went unanswered twice", started, held, lost)
	total := soakTotals{kills: int(kills.Load())}
	for _, a := range agents {
		for note, what := range a.notes {
			v.check(counts[note] == 1, "agent %d: the %s %q is in the logs %d times, want once", a.id, what, note, counts[note])
		}
		total.add(a)
	}
	v.check(len(healthyDoctor(t, home).Sessions) > 0, "doctor found no sessions")
	fmt.Printf("soak: %d passed, %d failed (%v, %d agents, %d daemon kills, %s)\n", v.passed, len(v.failed), *soakFor, soakAgents, total.kills, total)
	fmt.Printf("soak: the last daemon idle before and after the final replays: %d → %d goroutines, %d → %d open files, %d → %d KiB resident\n",
		before.Goroutines, after.Goroutines, before.OpenFiles, after.OpenFiles, before.rssKiB, after.rssKiB)
	for _, f := range v.failed {
		t.Error(f)
	}
	if total.acks == 0 || total.kills == 0 {
		t.Errorf("the soak did not exercise the daemon: %s, %d kills", total, total.kills)
	}
}

// chaos kill -9s the home's daemon every 0.5–2.5 s until stop closes.
func chaos(home string, rng *rand.Rand, stop <-chan struct{}, kills *atomic.Int32) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(500+rng.Intn(2000)) * time.Millisecond):
		}
		for _, pid := range daemonPIDs(home) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				kills.Add(1)
			}
		}
	}
}

// soakAgent is one simulated agent and what it was told.
type soakAgent struct {
	id       int
	tag      string // a word in all its notes, for resume_session
	c        *client.Client
	rng      *rand.Rand
	n        int               // notes written, to make each unique
	notes    map[string]string // every note acknowledged → what recorded it
	acks     []soakAck
	sessions []string
	retries  int
	imports  int
	// importsCutOff counts import runs that failed and were run again:
	// each may have been committed before the kill.
	importsCutOff int
	// startsUnanswered counts starts that reached a daemon and got no
	// answer even when the shim sent them again: each may have made a
	// run before the agent, not following the advice to resume first,
	// started again.
	startsUnanswered int
	home             string
	ops              map[string]int
	err              error
}

// soakAck is an acknowledged advance: what was sent and the answer.
type soakAck struct {
	args map[string]any
	raw  []byte
}

// call sends a tool call until it is answered: a call the kill cut off
// (transport error, or the shim's DAEMON_UNAVAILABLE) is sent again, as
// an agent would. Any other error result is the soak's failure.
func (a *soakAgent) call(name string, args map[string]any) (result, error) {
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := tryCall(ctx, a.c, name, args)
		cancel()
		switch {
		case err == nil && r.kind() != "error":
			return r, nil
		case try == 200:
			return r, fmt.Errorf("%s: no answer after %d tries: %v %s", name, try, err, r.Text)
		case err == nil && str(r.S, "error", "code") != "DAEMON_UNAVAILABLE":
			return r, fmt.Errorf("%s: %s", name, r.Text)
		}
		if name == "start_workflow" && (err != nil || strings.Contains(r.Text, "may have been recorded")) {
			a.startsUnanswered++
		}
		a.retries++
		time.Sleep(time.Duration(20+a.rng.Intn(80)) * time.Millisecond)
	}
}

func (a *soakAgent) note(what string) string {
	a.n++
	return fmt.Sprintf("%s %s %d", a.tag, what, a.n)
}

// run drives one wr.hello run to its end, or until the deadline.
func (a *soakAgent) run(deadline time.Time) error {
	if a.ops == nil {
		a.ops = map[string]int{}
	}
	r, err := a.call("start_workflow", map[string]any{"workflowId": "wr.hello"})
	if err != nil {
		return err
	}
	a.sessions = append(a.sessions, str(r.S, "session", "sessionId"))
	older := []result{r}
	for r.kind() == "step" && time.Now().Before(deadline) {
		var op string
		switch p := a.rng.Intn(100); {
		case p < 50:
			op, err = "advance", a.advance(&r)
		case p < 60:
			op, err = "rehydrate", a.rehydrate(r)
		case p < 70:
			op, err = "replay", a.replayLast()
		case p < 82:
			op, err = "checkpoint", a.checkpoint(&r)
		case p < 96:
			op = "fork"
			from := older[a.rng.Intn(len(older))]
			if err = a.rehydrateInto(&from); err == nil {
				err = a.advance(&from)
				r = from
			}
		case p < 99:
			op, err = "resume", a.resume()
		default:
			op, err = "export-import", a.exportImport(str(r.S, "session", "sessionId"))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		a.ops[op]++
		older = append(older, r)
	}
	return nil
}

// advance acknowledges r's step with a new note and moves r to the answer.
func (a *soakAgent) advance(r *result) error {
	note := a.note("advance")
	args := map[string]any{"stateToken": str(r.S, "stateToken"), "ackToken": str(r.S, "ackToken"), "output": map[string]any{"notesMarkdown": note}}
	next, err := a.call("continue_workflow", args)
	if err != nil {
		return err
	}
	a.notes[note] = "advance"
	a.acks = append(a.acks, soakAck{args: args, raw: next.Raw})
	*r = next
	return nil
}

// rehydrate re-reads r's step: the same step, nothing written.
func (a *soakAgent) rehydrate(r result) error {
	re := r
	if err := a.rehydrateInto(&re); err != nil {
		return err
	}
	if str(re.S, "pending", "stepId") != str(r.S, "pending", "stepId") {
		return fmt.Errorf("re-read %s, was %s", str(re.S, "pending", "stepId"), str(r.S, "pending", "stepId"))
	}
	return nil
}

func (a *soakAgent) rehydrateInto(r *result) error {
	re, err := a.call("continue_workflow", map[string]any{"stateToken": str(r.S, "stateToken")})
	if err == nil {
		*r = re
	}
	return err
}

// replayLast sends the last advance again: the same answer, byte for byte.
func (a *soakAgent) replayLast() error {
	if len(a.acks) == 0 {
		return nil
	}
	last := a.acks[len(a.acks)-1]
	r, err := a.call("continue_workflow", last.args)
	if err != nil {
		return err
	}
	if !sameAnswer(r.Raw, last.raw) {
		return fmt.Errorf("the replay differs:\nthen %s\nnow  %s", last.raw, r.Raw)
	}
	return nil
}

// checkpoint records a note at r without advancing and carries on from it.
func (a *soakAgent) checkpoint(r *result) error {
	note := a.note("checkpoint")
	cp, err := a.call("checkpoint_workflow", map[string]any{"stateToken": str(r.S, "stateToken"), "checkpointToken": str(r.S, "checkpointToken"),
		"output": map[string]any{"notesMarkdown": note}})
	if err != nil {
		return err
	}
	if str(cp.S, "pending", "stepId") != str(r.S, "pending", "stepId") {
		return fmt.Errorf("the checkpoint moved the run from %s to %s", str(r.S, "pending", "stepId"), str(cp.S, "pending", "stepId"))
	}
	a.notes[note] = "checkpoint"
	*r = cp
	return nil
}

// resume finds one of this agent's sessions by its tag.
func (a *soakAgent) resume() error {
	r, err := a.call("resume_session", map[string]any{"query": a.tag})
	if err != nil {
		return err
	}
	cands, _ := r.S["candidates"].([]any)
	if len(a.notes) == 0 {
		return nil // nothing written yet that the query could match
	}
	// The first candidate is this agent's work: its own session or an
	// imported copy of one (the tag is in no other agent's notes).
	if len(cands) == 0 || str(cands[0].(map[string]any), "tier") != "notes" ||
		!strings.Contains(str(cands[0].(map[string]any), "snippet"), a.tag) {
		return fmt.Errorf("resume_session %q did not offer the agent's work first:\n%s", a.tag, r.Text)
	}
	return nil
}

// exportImport exports session sid with the CLI, as a person moving it
// would, and imports the bundle as a new session. A command the chaos cut
// off (the daemon killed under it, or its file held by a restarting one)
// is run again.
func (a *soakAgent) exportImport(sid string) error {
	file := fmt.Sprintf("%s/soak-%s-%d.json.gz", a.home, a.tag, a.n)
	if _, _, err := a.cli("export", sid, "-o", file); err != nil {
		return err
	}
	tries, out, err := a.cli("import", file, "--json")
	a.importsCutOff += tries - 1
	if err != nil {
		return err
	}
	var rep struct {
		Session string `json:"sessionId"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Session == "" {
		return fmt.Errorf("import --json printed %s (%v)", out, err)
	}
	a.imports++
	return os.Remove(file)
}

// cli runs `workrail ARGS` on the agent's home until it exits 0, and
// says how many times it ran it and what it printed on stdout.
func (a *soakAgent) cli(args ...string) (int, []byte, error) {
	var out []byte
	var err error
	for try := 1; try <= 50; try++ {
		cmd := exec.Command(bin, args...)
		cmd.Env = procEnv(a.home)
		if out, err = cmd.Output(); err == nil {
			return try, out, nil
		}
		a.retries++
		time.Sleep(time.Duration(50+a.rng.Intn(150)) * time.Millisecond)
	}
	return 50, out, fmt.Errorf("workrail %v: %v\n%s", args, err, out)
}

// sumOver sums f over the agents.
func sumOver(agents []*soakAgent, f func(*soakAgent) int) int {
	n := 0
	for _, a := range agents {
		n += f(a)
	}
	return n
}

// verifyReplays replays every acknowledged advance once more, after all
// the kills and restarts: each answers as it first did.
func (a *soakAgent) verifyReplays(v *soakVerdict) {
	for i, ack := range a.acks {
		r, err := a.call("continue_workflow", ack.args)
		v.check(err == nil && sameAnswer(r.Raw, ack.raw), "agent %d: advance %d replays differently after the restarts (%v):\nthen %s\nnow  %s", a.id, i, err, ack.raw, r.Raw)
	}
}

func (a *soakAgent) verifyResume(v *soakVerdict) {
	err := a.resume()
	v.check(err == nil, "agent %d: %v", a.id, err)
}

// soakVerdict counts the soak's checks.
type soakVerdict struct {
	passed int
	failed []string
}

func (v *soakVerdict) check(ok bool, format string, args ...any) {
	if ok {
		v.passed++
		return
	}
	v.failed = append(v.failed, fmt.Sprintf(format, args...))
}

// soakTotals sums what the agents did.
type soakTotals struct {
	kills, acks, retries, sessions, imports int
	ops                                     map[string]int
}

func (s *soakTotals) add(a *soakAgent) {
	s.acks += len(a.acks)
	s.retries += a.retries
	s.sessions += len(a.sessions)
	s.imports += a.imports
	if s.ops == nil {
		s.ops = map[string]int{}
	}
	for op, n := range a.ops {
		s.ops[op] += n
	}
}

func (s soakTotals) String() string {
	var ops []string
	for _, op := range slices.Sorted(maps.Keys(s.ops)) {
		ops = append(ops, fmt.Sprintf("%s %d", op, s.ops[op]))
	}
	return fmt.Sprintf("%d sessions (%d exported and imported), %d acknowledged advances, %d calls sent again after a kill; %s", s.sessions, s.imports, s.acks, s.retries, strings.Join(ops, ", "))
}

// load is what the running daemon reports of itself, and its memory.
type load struct {
	Goroutines int `json:"goroutines"`
	OpenFiles  int `json:"openFiles"`
	PID        int `json:"pid"`
	rssKiB     int
}

// daemonLoad reads `workrail status --json` and the daemon's VmRSS.
func daemonLoad(t *testing.T, home string) load {
	t.Helper()
	code, out, stderr := command(t, home, "status", "--json")
	var l load
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 || l.PID == 0 {
		t.Fatalf("status --json = %d (%v):\n%s\n%s", code, err, out, stderr)
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", l.PID))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			l.rssKiB, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	if l.rssKiB == 0 {
		t.Fatalf("no VmRSS in /proc/%d/status", l.PID)
	}
	return l
}
