package home

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/workrail/workrail/engine/token"
)

// keysFileName is the key ring's file in the home folder.
const keysFileName = "keys.json"

// keysVersion is the only keys.json format this code reads and writes.
const keysVersion = 1

// keysFile is the JSON form of keys.json.
type keysFile struct {
	Version int           `json:"version"`
	Active  token.KeyID   `json:"active"`
	Keys    []keysFileKey `json:"keys"`
}

// keysFileKey is one key; CreatedAt is informational only.
type keysFileKey struct {
	ID        token.KeyID `json:"id"`
	Secret    string      `json:"secret"`
	CreatedAt string      `json:"createdAt,omitempty"`
}

// LoadKeyRing reads the token key ring from <home>/keys.json, creating the
// file with one fresh random key when it is missing. It refuses a file that
// other users can read or write, or that is malformed: silently replacing
// the keys would invalidate every token agents hold.
func LoadKeyRing(home string) (*token.Ring, error) {
	path := filepath.Join(home, keysFileName)
	kf, err := readKeys(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err = createKeys(path, time.Now()); err == nil {
			// Re-read even after creating: a concurrent creator may have won.
			kf, err = readKeys(path)
		}
	}
	if err != nil {
		return nil, err
	}
	ring, _, err := kf.ring(path)
	return ring, err
}

// RotateKey adds a fresh key to <home>/keys.json with id one above the
// highest, and makes it active. Old keys stay, so tokens already handed out
// keep verifying; a running daemon signs with the new key after it reloads
// the ring. Callers must serialize rotations of one home folder.
func RotateKey(home string, now time.Time) (token.KeyID, error) {
	path := filepath.Join(home, keysFileName)
	kf, err := readKeys(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("home: rotate key: %s does not exist; start WorkRail once to create it", path)
	}
	if err != nil {
		return 0, err
	}
	if _, _, err := kf.ring(path); err != nil {
		return 0, err
	}
	next, err := kf.nextID(path)
	if err != nil {
		return 0, err
	}
	key, err := newKey(next, now)
	if err != nil {
		return 0, err
	}
	kf.Keys = append(kf.Keys, key)
	kf.Active = next
	if err := writeKeys(path, kf, false); err != nil {
		return 0, fmt.Errorf("home: rotate key: write %s: %w", path, err)
	}
	return next, nil
}

// createKeys writes a new one-key ring to path unless the file exists.
func createKeys(path string, now time.Time) error {
	key, err := newKey(1, now)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("home: create %s: %w", path, err)
	}
	kf := keysFile{Version: keysVersion, Active: key.ID, Keys: []keysFileKey{key}}
	if err := writeKeys(path, kf, true); err != nil {
		return fmt.Errorf("home: create %s: %w", path, err)
	}
	return nil
}

func newKey(id token.KeyID, now time.Time) (keysFileKey, error) {
	secret := make([]byte, token.MinSecretLen)
	if _, err := rand.Read(secret); err != nil {
		return keysFileKey{}, fmt.Errorf("home: new key: %w", err)
	}
	return keysFileKey{
		ID:        id,
		Secret:    base64.RawURLEncoding.EncodeToString(secret),
		CreatedAt: now.UTC().Format(time.RFC3339),
	}, nil
}

// readKeys opens, checks and decodes path. A missing file is reported as
// fs.ErrNotExist; everything else wrong is a refusal naming the file.
func readKeys(path string) (keysFile, error) {
	var kf keysFile
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return kf, err
		}
		return kf, fmt.Errorf("home: read %s: %w", path, err)
	}
	defer f.Close()
	// Stat the open file, not the path, so the checked file is the read one.
	if err := checkPrivate(f, path); err != nil {
		return kf, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return kf, fmt.Errorf("home: read %s: %w", path, err)
	}
	if err := decodeStrict(b, &kf); err != nil {
		return kf, malformed(path, err.Error())
	}
	if kf.Version != keysVersion {
		return kf, malformed(path, fmt.Sprintf("version %d; this WorkRail reads version %d", kf.Version, keysVersion))
	}
	if len(kf.Keys) == 0 {
		return kf, malformed(path, "it holds no keys")
	}
	return kf, nil
}

// checkPrivate refuses a key file other users could read (and so forge
// tokens) or write (and so plant keys).
func checkPrivate(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("home: stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("home: %s is not a regular file; move it aside and restart WorkRail to create a new key ring", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("home: %s is a secret but other users can access it (mode %04o); "+
			"make it private with `chmod 600 %s` and restart WorkRail", path, perm, path)
	}
	return checkOwner(fi, path)
}

// decodeStrict decodes one JSON object, rejecting unknown fields and
// trailing data so hand-edit mistakes are reported, not ignored.
func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the file is empty")
		}
		return err
	}
	if d.More() {
		return errors.New("data after the JSON object")
	}
	return nil
}

// ring decodes the secrets and builds the ring, which checks ids, secret
// lengths and the active key.
func (kf keysFile) ring(path string) (*token.Ring, []token.Key, error) {
	keys := make([]token.Key, 0, len(kf.Keys))
	for _, k := range kf.Keys {
		secret, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.Secret, "="))
		if err != nil {
			return nil, nil, malformed(path, fmt.Sprintf("key %d: secret is not base64url", k.ID))
		}
		keys = append(keys, token.Key{ID: k.ID, Secret: secret})
	}
	r, err := token.NewRing(keys, kf.Active)
	if err != nil {
		return nil, nil, malformed(path, strings.TrimPrefix(err.Error(), "token: "))
	}
	return r, keys, nil
}

func (kf keysFile) nextID(path string) (token.KeyID, error) {
	var top token.KeyID
	for _, k := range kf.Keys {
		top = max(top, k.ID)
	}
	if top == math.MaxUint32 {
		return 0, fmt.Errorf("home: rotate key: %s: key ids are exhausted", path)
	}
	return top + 1, nil
}

func malformed(path, why string) error {
	return fmt.Errorf("home: %s is malformed (%s); restore it from a backup, or move it aside and restart WorkRail "+
		"to create a new key ring (tokens already handed out will then stop verifying)", path, why)
}

// writeKeys writes kf to path atomically: a private temp file in the same
// folder, fsynced, then renamed over path. With exclusive it is hard-linked
// instead, which fails if path exists, so two processes creating the ring at
// once agree on one file; losing that race is not an error.
func writeKeys(path string, kf keysFile, exclusive bool) error {
	b, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if exclusive {
		_, err = CreateFileAtomic(path, b, 0o600)
		return err
	}
	return WriteFileAtomic(path, b, 0o600)
}
