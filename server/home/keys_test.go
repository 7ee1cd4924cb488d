package home_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/server/home"
)

func loadRing(t *testing.T, dir string) *token.Ring {
	t.Helper()
	r, err := home.LoadKeyRing(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func stateToken(t *testing.T, r *token.Ring) string {
	t.Helper()
	s, err := r.Mint(token.Claims{Kind: token.State, Key: r.Active(), Session: 7, Run: 1, Node: 3})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// keysJSON mirrors the documented keys.json format.
type keysJSON struct {
	Version int         `json:"version"`
	Active  token.KeyID `json:"active"`
	Keys    []struct {
		ID        token.KeyID `json:"id"`
		Secret    string      `json:"secret"`
		CreatedAt string      `json:"createdAt"`
	} `json:"keys"`
}

func readKeysJSON(t *testing.T, path string) keysJSON {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s mode = %04o, want 0600", path, perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kf keysJSON
	if err := json.Unmarshal(b, &kf); err != nil {
		t.Fatal(err)
	}
	return kf
}

func TestLoadKeyRingCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	r := loadRing(t, dir)
	if r.Active() != 1 {
		t.Errorf("Active() = %d, want 1", r.Active())
	}
	kf := readKeysJSON(t, filepath.Join(dir, "keys.json"))
	if kf.Version != 1 || kf.Active != 1 || len(kf.Keys) != 1 || kf.Keys[0].ID != 1 {
		t.Fatalf("keys.json = %+v", kf)
	}
	secret, err := base64.RawURLEncoding.DecodeString(kf.Keys[0].Secret)
	if err != nil || len(secret) != 32 {
		t.Errorf("secret %q: %d bytes, %v", kf.Keys[0].Secret, len(secret), err)
	}
	if _, err := time.Parse(time.RFC3339, kf.Keys[0].CreatedAt); err != nil {
		t.Errorf("createdAt: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".keys.json.*")); len(leftovers) != 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
}

func TestLoadKeyRingFreshSecrets(t *testing.T) {
	a := readKeysJSON(t, filepath.Join(createdHome(t), "keys.json"))
	b := readKeysJSON(t, filepath.Join(createdHome(t), "keys.json"))
	if a.Keys[0].Secret == b.Keys[0].Secret {
		t.Fatal("two new rings share a secret")
	}
}

func createdHome(t *testing.T) string {
	dir := t.TempDir()
	loadRing(t, dir)
	return dir
}

func TestLoadKeyRingReload(t *testing.T) {
	dir := t.TempDir()
	tok := stateToken(t, loadRing(t, dir))
	again := loadRing(t, dir)
	c, err := again.Parse(tok, token.State)
	if err != nil {
		t.Fatalf("token from the first load does not verify after reload: %v", err)
	}
	if s, _ := again.Mint(c); s != tok {
		t.Fatalf("re-mint after reload = %q, want %q", s, tok)
	}
}

// TestLoadKeyRingConcurrentCreate checks that racing first starts agree on
// one ring instead of each keeping a key the file no longer has.
func TestLoadKeyRingConcurrentCreate(t *testing.T) {
	dir := t.TempDir()
	rings := make([]*token.Ring, 8)
	var wg sync.WaitGroup
	for i := range rings {
		wg.Go(func() {
			r, err := home.LoadKeyRing(dir)
			if err != nil {
				t.Error(err)
			}
			rings[i] = r
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	tok := stateToken(t, rings[0])
	for i, r := range rings {
		if _, err := r.Parse(tok, token.State); err != nil {
			t.Errorf("ring %d rejects ring 0's token: %v", i, err)
		}
	}
}

func TestRotateKey(t *testing.T) {
	dir := t.TempDir()
	old := stateToken(t, loadRing(t, dir))
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

	for want := token.KeyID(2); want <= 3; want++ {
		id, err := home.RotateKey(dir, now)
		if err != nil || id != want {
			t.Fatalf("RotateKey = %d, %v; want %d", id, err, want)
		}
	}
	r := loadRing(t, dir)
	if r.Active() != 3 {
		t.Errorf("Active() = %d, want 3", r.Active())
	}
	if c, err := r.Parse(old, token.State); err != nil || c.Key != 1 {
		t.Errorf("token signed before rotation: %+v, %v", c, err)
	}
	if c, err := r.Parse(stateToken(t, r), token.State); err != nil || c.Key != 3 {
		t.Errorf("token signed after rotation: %+v, %v", c, err)
	}
	kf := readKeysJSON(t, filepath.Join(dir, "keys.json"))
	if len(kf.Keys) != 3 || kf.Active != 3 || kf.Keys[2].CreatedAt != "2030-01-02T03:04:05Z" {
		t.Errorf("keys.json = %+v", kf)
	}
}

func TestRotateKeyMissing(t *testing.T) {
	if _, err := home.RotateKey(t.TempDir(), time.Now()); err == nil {
		t.Fatal("RotateKey without keys.json succeeded")
	}
}

func TestLoadKeyRingRefusesSharedFile(t *testing.T) {
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644, 0o620, 0o602, 0o700} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := createdHome(t)
			path := filepath.Join(dir, "keys.json")
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			_, err := home.LoadKeyRing(dir)
			wantOK := mode&0o077 == 0
			if wantOK {
				if err != nil {
					t.Fatalf("mode %04o refused: %v", mode, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "chmod 600") {
				t.Fatalf("mode %04o: err = %v; want a refusal naming %s and the fix", mode, err, path)
			}
			if _, err := home.RotateKey(dir, time.Now()); err == nil {
				t.Fatalf("RotateKey accepted mode %04o", mode)
			}
		})
	}
}

func TestLoadKeyRingRefusesMalformed(t *testing.T) {
	secret := base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	key := func(id int) string { return `{"id":` + strconv.Itoa(id) + `,"secret":"` + secret + `"}` }
	tests := []struct{ name, content, why string }{
		{"empty file", "", "empty"},
		{"not json", "hello", "invalid"},
		{"truncated", `{"version":1,"active":1,"keys":[`, "unexpected EOF"},
		{"trailing data", `{"version":1,"active":1,"keys":[` + key(1) + `]} {}`, "after the JSON"},
		{"unknown field", `{"version":1,"active":1,"keys":[` + key(1) + `],"extra":true}`, "unknown field"},
		{"wrong version", `{"version":2,"active":1,"keys":[` + key(1) + `]}`, "version 2"},
		{"no keys", `{"version":1,"active":1,"keys":[]}`, "no keys"},
		{"null keys", `{"version":1,"active":1}`, "no keys"},
		{"active missing", `{"version":1,"active":2,"keys":[` + key(1) + `]}`, "active key 2"},
		{"duplicate id", `{"version":1,"active":1,"keys":[` + key(1) + `,` + key(1) + `]}`, "duplicate"},
		{"zero id", `{"version":1,"active":0,"keys":[` + key(0) + `]}`, "key id 0"},
		{"bad secret", `{"version":1,"active":1,"keys":[{"id":1,"secret":"!!"}]}`, "base64url"},
		{"short secret", `{"version":1,"active":1,"keys":[{"id":1,"secret":"AAAA"}]}`, "secret is 3 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "keys.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := home.LoadKeyRing(dir)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("err = %v; want a refusal naming %s and %q", err, path, tt.why)
			}
			if _, err := home.RotateKey(dir, time.Now()); err == nil {
				t.Fatal("RotateKey accepted a malformed file")
			}
			if b, _ := os.ReadFile(path); string(b) != tt.content {
				t.Fatalf("malformed keys.json was rewritten to %q", b)
			}
		})
	}
}
