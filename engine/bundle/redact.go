package bundle

import "github.com/workrail/workrail/engine/event"

// redact returns evs with every note body replaced by RedactedMarker:
// outputs' notes, and the copies of notes that advances recorded for a
// fork's picture (branch summaries and the recap). Empty notes stay
// empty, so what was said is hidden but not whether something was. The
// events given are not changed.
func redact(evs []event.Event) []event.Event {
	out := make([]event.Event, len(evs))
	for i, e := range evs {
		switch d := e.Data.(type) {
		case *event.NodeOutputAppendedData:
			c := *d
			c.NotesMarkdown = marked(c.NotesMarkdown)
			e.Data = &c
		case *event.AdvanceRecordedData:
			if d.Fork != nil {
				c := *d
				c.Fork = redactFork(*d.Fork)
				e.Data = &c
			}
		}
		out[i] = e
	}
	return out
}

func redactFork(f event.Fork) *event.Fork {
	f.Siblings = append([]event.Branch(nil), f.Siblings...)
	for i := range f.Siblings {
		f.Siblings[i].Summary = marked(f.Siblings[i].Summary)
	}
	f.Downstream.Entries = append([]event.RecapEntry(nil), f.Downstream.Entries...)
	for i := range f.Downstream.Entries {
		f.Downstream.Entries[i].NotesMarkdown = marked(f.Downstream.Entries[i].NotesMarkdown)
	}
	return &f
}

func marked(s string) string {
	if s == "" {
		return ""
	}
	return RedactedMarker
}
