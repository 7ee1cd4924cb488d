package e2e

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/store/storetest"
)

// A damaged page in the database file: before, the daemon panicked on
// open, every initialize failed with a Go stack trace and doctor itself
// crashed. Now the daemon refuses the file saying what to run, the shim
// relays that, doctor says which sessions are intact, and a salvage
// brings them back under the tokens agents already hold.
func TestDamagedFileIsRefusedAndSalvaged(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	var runs []result
	for _, notes := range []string{"one", "two", "three"} {
		r := startHello(t, c)
		runs = append(runs, advance(t, c, r, notes))
	}
	stopDaemon(t, home)
	// Give session 2's events their own page, then scramble that page's
	// type: a structural flaw, not a changed value.
	var page uint64
	damage(t, home, func(tx storetest.Tx) error {
		page = uint64(tx.Events(2).Root())
		return nil
	})
	if page == 0 {
		t.Fatal("session 2's events are inline; the test needs a session with a page of its own")
	}
	db := filepath.Join(home, "workrail.db")
	flipByte(t, db, int64(page)*4096+8, 0x40)

	r := rawToolCall(t, home, "list_workflows")
	if str(r.S, "error", "code") != "DAEMON_UNAVAILABLE" || !strings.Contains(r.Text, "doctor --salvage") || strings.Contains(r.Text, "goroutine") {
		t.Fatalf("the shim's answer on a damaged file:\n%s", r.Text)
	}
	rep, code, stderr := runDoctor(t, home)
	status := map[string]string{}
	for _, s := range rep.Sessions {
		status[s.SessionID] = s.Health.Status
	}
	if code != 1 || len(rep.Structure) == 0 || status["ses_1"] != "healthy" || status["ses_2"] != "unreadable" || status["ses_3"] != "healthy" {
		t.Fatalf("doctor on a damaged file: exit %d, %+v, stderr %s", code, rep, stderr)
	}

	// A copy that lacks a session is not offered to replace the file;
	// giving that session up is the user's choice, made with a flag.
	code, msg, stderr := command(t, home, "doctor", "--salvage", filepath.Join(home, "partial.db"))
	if code != 1 || !strings.Contains(msg, "Salvaged 2 of 3 sessions") || strings.Contains(msg, "mv ") || !strings.Contains(msg, "--accept-loss") {
		t.Fatalf("salvage of a file that lost a session: exit %d; want 1, no mv, and what to do instead\n%s%s", code, msg, stderr)
	}
	out := filepath.Join(home, "salvaged.db")
	code, msg, stderr = command(t, home, "doctor", "--salvage", out, "--accept-loss")
	if code != 0 || !strings.Contains(msg, "Salvaged 2 of 3 sessions") || !strings.Contains(msg, "mv ") {
		t.Fatalf("salvage --accept-loss: exit %d\n%s%s", code, msg, stderr)
	}
	if err := os.Rename(db, db+".damaged"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(out, db); err != nil {
		t.Fatal(err)
	}
	// The intact runs go on with the tokens the agent already has; the
	// lost one is refused, and its id is never handed out again.
	c = startShim(t, home)
	for _, i := range []int{0, 2} {
		if next := advance(t, c, runs[i], "after salvage"); next.kind() != "step" && next.kind() != "complete" {
			t.Fatalf("run %d after salvage: %s", i+1, next.Text)
		}
	}
	expectCode(t, advance(t, c, runs[1], "lost"), "TOKEN_UNKNOWN_NODE")
	if fresh := startHello(t, c); str(fresh.S, "session", "sessionId") != "ses_4" {
		t.Fatalf("a new session after salvage is %s; want ses_4", str(fresh.S, "session", "sessionId"))
	}
	healthyDoctor(t, home)
}

// A damaged root page used to leave salvage nothing to walk ("Salvaged 0
// of 0"). The page scan finds every session under it; the runs go on
// with the tokens the agent holds, and new sessions get new ids.
func TestSalvageUnderADamagedRootKeepsEverySession(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	var runs []result
	for _, notes := range []string{"one", "two", "three"} {
		runs = append(runs, advance(t, c, startHello(t, c), notes))
	}
	stopDaemon(t, home)
	db := filepath.Join(home, "workrail.db")
	root := rootPage(t, db)
	for i := range 16 {
		flipByte(t, db, root*4096+int64(i), 0xa5)
	}

	out := filepath.Join(home, "salvaged.db")
	code, msg, stderr := command(t, home, "doctor", "--salvage", out)
	if code != 0 || !strings.Contains(msg, "Salvaged 3 of at least 3 sessions") || strings.Contains(msg, "0 of 0") {
		t.Fatalf("salvage: exit %d\n%s%s", code, msg, stderr)
	}
	if err := os.Rename(db, db+".damaged"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(out, db); err != nil {
		t.Fatal(err)
	}
	c = startShim(t, home)
	for i, r := range runs {
		if next := advance(t, c, r, "after salvage"); next.kind() != "step" && next.kind() != "complete" {
			t.Fatalf("run %d after salvage: %s", i+1, next.Text)
		}
	}
	if fresh := startHello(t, c); str(fresh.S, "session", "sessionId") != "ses_4" {
		t.Fatalf("a new session after salvage is %s; want ses_4", str(fresh.S, "session", "sessionId"))
	}
	healthyDoctor(t, home)
}

// rootPage is the root bucket's page, as the newer of the two meta pages
// (page size 4096) names it: magic, version, page size, flags, then the
// root bucket's page id; the transaction id at byte 48 of each.
func rootPage(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := b[16:]
	if m1 := b[4096+16:]; binary.LittleEndian.Uint64(m1[48:]) > binary.LittleEndian.Uint64(m[48:]) {
		m = m1
	}
	return int64(binary.LittleEndian.Uint64(m[16:]))
}

func flipByte(t *testing.T, path string, at int64, mask byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= mask
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

// On a home with no database yet, doctor reports nothing to check (empty
// lists, not nulls) and a salvage says there is nothing to copy, as data.
func TestDoctorOnAHomeWithNoDatabase(t *testing.T) {
	home := newHome(t)
	code, out, _ := command(t, home, "doctor", "--json")
	if code != 0 || !strings.Contains(out, `"sessions": []`) || !strings.Contains(out, `"structure": []`) {
		t.Errorf("doctor --json = %d:\n%s\nwant exit 0 and empty lists", code, out)
	}
	code, out, _ = command(t, home, "doctor", "--json", "--salvage", filepath.Join(home, "new.db"))
	var r struct {
		Error struct {
			Code  string `json:"code"`
			Retry struct {
				Kind string `json:"kind"`
			} `json:"retry"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Error.Code != "INVALID_INPUT" || r.Error.Retry.Kind != "not_retryable" {
		t.Errorf("doctor --json --salvage = %d:\n%s\nwant exit 1 and INVALID_INPUT, not retryable", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, "new.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("salvage with nothing to copy wrote %s (%v)", filepath.Join(home, "new.db"), err)
	}
}

// bigWorkflow's 2 KB description gives the pinned workflows a page of
// their own in the database file.
var bigWorkflow = `{"id":"user.big","name":"Big","description":"` + strings.Repeat("A long description. ", 100) + `","version":"1",
 "steps":[{"id":"one","title":"One","prompt":"Do one."},{"id":"two","title":"Two","prompt":"Do two."}]}`

// One damaged page of the pinned workflows used to cost every session
// ("Salvaged 0 of 4,162" with every log intact) and still print the mv
// that installed the empty copy. The pin is rebuilt from the workflow
// file on disk when it compiles to the same hash; while that file is
// away, the sessions are reported with the id and hash they need and
// the copy is not offered.
func TestSalvageRebuildsALostPinFromTheWorkflowFiles(t *testing.T) {
	home := newHome(t)
	writeUserWorkflow(t, home, "big.json", bigWorkflow)
	c := startShim(t, home)
	var runs []result
	for _, notes := range []string{"one", "two", "three"} {
		r := call(t, c, "start_workflow", map[string]any{"workflowId": "user.big"})
		mustKind(t, r, "step")
		runs = append(runs, advance(t, c, r, notes))
	}
	hash := str(runs[0].S, "workflow", "workflowHash")
	stopDaemon(t, home)
	var page uint64
	damage(t, home, func(tx storetest.Tx) error {
		page = uint64(tx.Workflows().Root())
		return nil
	})
	if page == 0 || hash == "" {
		t.Fatalf("the pinned workflows are inline (page %d) or the hash is unknown (%q); the test needs a page of their own", page, hash)
	}
	db := filepath.Join(home, "workrail.db")
	flipByte(t, db, int64(page)*4096+8, 0x40)

	file := filepath.Join(home, "workflows", "big.json")
	if err := os.Rename(file, file+".away"); err != nil {
		t.Fatal(err)
	}
	code, msg, stderr := command(t, home, "doctor", "--salvage", filepath.Join(home, "without.db"))
	if code != 1 || !strings.Contains(msg, "Salvaged 0 of 3 sessions") || strings.Contains(msg, "mv ") ||
		!strings.Contains(msg, "user.big "+hash+" (3 sessions)") || !strings.Contains(msg, "is not offered to replace the database") {
		t.Fatalf("salvage with the workflow file away: exit %d; want 1, the id and hash needed, and no mv\n%s%s", code, msg, stderr)
	}
	code, js, stderr := command(t, home, "doctor", "--json", "--salvage", filepath.Join(home, "without.json.db"))
	var rep struct {
		Complete bool `json:"complete"`
		Lost     []struct {
			Needs []struct {
				WorkflowID   string `json:"workflowId"`
				WorkflowHash string `json:"workflowHash"`
			} `json:"needs"`
		} `json:"lost"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil || code != 1 || rep.Complete || len(rep.Lost) != 3 ||
		len(rep.Lost[0].Needs) != 1 || rep.Lost[0].Needs[0].WorkflowID != "user.big" || rep.Lost[0].Needs[0].WorkflowHash != hash {
		t.Fatalf("salvage --json with the workflow file away: exit %d, %v\n%s%s", code, err, js, stderr)
	}

	if err := os.Rename(file+".away", file); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "salvaged.db")
	code, msg, stderr = command(t, home, "doctor", "--salvage", out)
	if code != 0 || !strings.Contains(msg, "Salvaged 3 of 3 sessions") || !strings.Contains(msg, "user.big ("+hash+"); 3 sessions took it from the workflow files on disk") ||
		!strings.Contains(msg, "mv ") {
		t.Fatalf("salvage with the workflow file back: exit %d\n%s%s", code, msg, stderr)
	}
	if err := os.Rename(db, db+".damaged"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(out, db); err != nil {
		t.Fatal(err)
	}
	c = startShim(t, home)
	for i, r := range runs {
		if next := advance(t, c, r, "after salvage"); next.kind() != "complete" {
			t.Fatalf("run %d after salvage: %s", i+1, next.Text)
		}
	}
	healthyDoctor(t, home)
}
