package storetest

import (
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/store/internal/layout"
)

// Tx is a transaction on a closed store file opened with bbolt alone,
// for tests (and the Console's seeding tool) that change or read the
// file behind the store's back, as a failing disk or an older build
// would. Its methods find the store's buckets by the names the store
// gives them, so nothing outside store spells them.
type Tx struct{ *bbolt.Tx }

// Update runs f in one write transaction on the store file at path. A
// running daemon holds the file's lock: Update fails after two seconds
// rather than wait for it.
func Update(path string, f func(Tx) error) error {
	return with(path, false, func(db *bbolt.DB) error { return db.Update(func(tx *bbolt.Tx) error { return f(Tx{tx}) }) })
}

// View runs f in one read-only transaction on the store file at path.
func View(path string, f func(Tx) error) error {
	return with(path, true, func(db *bbolt.DB) error { return db.View(func(tx *bbolt.Tx) error { return f(Tx{tx}) }) })
}

func with(path string, readOnly bool, f func(*bbolt.DB) error) error {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: readOnly, Timeout: 2 * time.Second})
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	return f(db)
}

// Sessions is the bucket holding one bucket per session.
func (tx Tx) Sessions() *bbolt.Bucket { return tx.Bucket(layout.Sessions) }

// Workflows is the bucket of pinned workflows.
func (tx Tx) Workflows() *bbolt.Bucket { return tx.Bucket(layout.Workflows) }

// Session is session id's bucket, or nil.
func (tx Tx) Session(id uint64) *bbolt.Bucket {
	if s := tx.Sessions(); s != nil {
		return s.Bucket(binary.BigEndian.AppendUint64(nil, id))
	}
	return nil
}

// Events is session id's log (keys: EventKey), or nil.
func (tx Tx) Events(id uint64) *bbolt.Bucket { return tx.sub(id, layout.Events) }

// Nodes is session id's derived node index (keys: IDKey), or nil.
func (tx Tx) Nodes(id uint64) *bbolt.Bucket { return tx.sub(id, layout.Nodes) }

// Runs is session id's derived run index (keys: IDKey), or nil.
func (tx Tx) Runs(id uint64) *bbolt.Bucket { return tx.sub(id, layout.Runs) }

func (tx Tx) sub(id uint64, name []byte) *bbolt.Bucket {
	if s := tx.Session(id); s != nil {
		return s.Bucket(name)
	}
	return nil
}

// SetSchema records schema version v in the file, as a build of that
// schema would.
func (tx Tx) SetSchema(v uint64) error {
	return tx.Bucket(layout.Meta).Put(layout.Schema, binary.BigEndian.AppendUint64(nil, v))
}

// EventKey is the key of event i in a session's log.
func EventKey(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i) }

// IDKey is the key of node or run n in a session's indexes.
func IDKey(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
