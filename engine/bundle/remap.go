package bundle

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// Remap returns the payload event e takes in a new session to: the
// session's opening names the bundle it came from, and every event-id
// reference (an output's supersedesOutputId, a gap's resolvesGapId)
// names the same event of the new session. Event indexes, run ids and
// node ids stay as they are: an import appends the events in order into
// a session of its own. e's payload is not changed.
func (v *Verified) Remap(e event.Event, to engine.SessionID) event.Payload {
	switch d := e.Data.(type) {
	case *event.SessionCreatedData:
		c := *d
		src := v.Origin()
		c.ImportedFrom = &src
		return &c
	case *event.NodeOutputAppendedData:
		if d.Supersedes != "" {
			c := *d
			c.Supersedes = v.mapID(d.Supersedes, to)
			return &c
		}
	case *event.GapRecordedData:
		if d.ResolvesGapID != "" {
			c := *d
			c.ResolvesGapID = v.mapID(d.ResolvesGapID, to)
			return &c
		}
	}
	return e.Data
}

// mapID maps an event id of the bundle's session to session to. Read has
// checked every reference names an event of the bundle's session.
func (v *Verified) mapID(id engine.EventID, to engine.SessionID) engine.EventID {
	rest, ok := strings.CutPrefix(string(id), fmt.Sprintf("evt_%d_", uint64(v.Bundle.Session.ID)))
	i, err := strconv.ParseUint(rest, 10, 64)
	if !ok || err != nil {
		panic(fmt.Sprintf("bundle: %s is not an event of the verified bundle", id))
	}
	return engine.NewEventID(to, engine.EventIndex(i))
}
