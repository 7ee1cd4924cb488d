package store

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"
)

// BenchmarkCommitFloor measures what an advance cannot go below on this
// disk: one write transaction of five ~300-byte values (an advance appends
// about that much), with fsync, through bbolt alone and through the group
// committer. BenchmarkAdvance is this plus the engine's work.
func BenchmarkCommitFloor(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "floor.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	val := make([]byte, 300)
	var key uint64
	write := func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte("floor"))
		if err != nil {
			return err
		}
		for range 5 {
			key++
			if err := bk.Put(binary.BigEndian.AppendUint64(nil, key), val); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range []struct {
		name   string
		update func(func(*bbolt.Tx) error) error
	}{{"bbolt", s.db.Update}, {"committer", s.commit.update}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.update(write); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
