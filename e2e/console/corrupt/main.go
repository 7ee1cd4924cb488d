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
// It finds the session's log through store/storetest, which knows the
// store's layout.
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

	"github.com/workrail/workrail/store/storetest"
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
	// A running daemon holds the file's lock: Update fails fast rather
	// than wait.
	return storetest.Update(path, func(tx storetest.Tx) error {
		if tx.Sessions() == nil {
			return fmt.Errorf("%s has no sessions bucket", path)
		}
		if tx.Session(id) == nil {
			return fmt.Errorf("no session %s", session)
		}
		events := tx.Events(id)
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
		k := storetest.EventKey(index)
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
