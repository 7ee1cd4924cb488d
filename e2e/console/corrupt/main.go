// Command corrupt damages one event of one session in a stopped daemon's
// store, as a bad disk would: it flips one bit inside the stored event, so
// its digest no longer matches and the session reads as a corrupt tail
// from that event on. Global setup (e2e/console/global-setup.ts) runs it
// between stopping the seeded daemon and starting it again:
//
//	go run ./e2e/console/corrupt -db HOME/workrail.db -session ses_3 -event 8
//	go run ./e2e/console/corrupt -db HOME/workrail.db -session ses_3 -last node_output_appended
//
// It prints the index of the event it damaged on stdout, and the session's
// events, the damaged one marked, on stderr.
//
// The layout it edits is store/'s: bucket "sessions", in it one bucket per
// session keyed by the big-endian uint64 id, in that a bucket "events"
// keyed by the big-endian uint64 event index.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/bbolt"
)

func main() {
	db := flag.String("db", "", "the store file (HOME/workrail.db) of a daemon that is not running")
	session := flag.String("session", "", "the session to damage, ses_N")
	index := flag.Uint64("event", 0, "the event to damage, from 1")
	last := flag.String("last", "", "damage the session's last event of this kind (node_output_appended, …) instead")
	flag.Parse()
	if err := corrupt(*db, *session, *index, *last); err != nil {
		fmt.Fprintln(os.Stderr, "corrupt:", err)
		os.Exit(1)
	}
}

func corrupt(path, session string, index uint64, last string) error {
	id, err := strconv.ParseUint(strings.TrimPrefix(session, "ses_"), 10, 64)
	if path == "" || err != nil || !strings.HasPrefix(session, "ses_") || (index == 0) == (last == "") {
		return fmt.Errorf("usage: corrupt -db FILE -session ses_N (-event K | -last KIND)")
	}
	// A running daemon holds the file's lock: fail fast rather than wait.
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer b.Close()
	return b.Update(func(tx *bbolt.Tx) error {
		sessions := tx.Bucket([]byte("sessions"))
		if sessions == nil {
			return fmt.Errorf("%s has no sessions bucket", path)
		}
		s := sessions.Bucket(binary.BigEndian.AppendUint64(nil, id))
		if s == nil {
			return fmt.Errorf("no session %s", session)
		}
		events := s.Bucket([]byte("events"))
		if events == nil {
			return fmt.Errorf("session %s has no events bucket", session)
		}
		var kinds []string
		err := events.ForEach(func(k, v []byte) error {
			var head struct {
				Kind string `json:"kind"`
			}
			json.Unmarshal(v, &head)
			kinds = append(kinds, head.Kind)
			if last != "" && head.Kind == last {
				index = binary.BigEndian.Uint64(k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if index == 0 {
			return fmt.Errorf("session %s has no %s event", session, last)
		}
		k := binary.BigEndian.AppendUint64(nil, index)
		v := bytes.Clone(events.Get(k))
		if v == nil {
			return fmt.Errorf("session %s has no event %d (it has %d)", session, index, len(kinds))
		}
		// A letter in the middle of the event changes case: still JSON,
		// but no longer the bytes the chain digest was computed over.
		i := len(v) / 2
		for j := i; j < len(v); j++ {
			if c := v[j] | 0x20; c >= 'a' && c <= 'z' {
				i = j
				break
			}
		}
		v[i] ^= 0x20
		for j, kind := range kinds {
			mark := ""
			if uint64(j+1) == index {
				mark = fmt.Sprintf("  <- damaged: byte %d of %d flipped", i, len(v))
			}
			fmt.Fprintf(os.Stderr, "corrupt: %s event %d %s%s\n", session, j+1, kind, mark)
		}
		fmt.Println(index)
		return events.Put(k, v)
	})
}
