package logfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"
)

// Record is one logged error as the Console lists it.
type Record struct {
	Time    time.Time
	Message string
	// Attrs are the line's other attributes as text.
	Attrs map[string]string
}

// Errors is a slog.Handler that remembers the last records logged at
// level Error or above. Load fills it from the log on disk first, so a
// restart does not forget what went wrong before it.
type Errors struct {
	r      *ring
	fixed  []kv   // attributes added with WithAttrs, flattened
	prefix string // the open groups, each followed by "."
}

type kv struct{ k, v string }

type ring struct {
	mu   sync.Mutex
	n    int
	last []Record // oldest first, at most n
}

// NewErrors returns a handler remembering the last n errors.
func NewErrors(n int) *Errors { return &Errors{r: &ring{n: n}} }

// Last returns the errors remembered, newest first.
func (e *Errors) Last() []Record {
	e.r.mu.Lock()
	defer e.r.mu.Unlock()
	out := slices.Clone(e.r.last)
	slices.Reverse(out)
	return out
}

func (r *ring) add(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.last) == r.n {
		r.last = slices.Delete(r.last, 0, 1)
	}
	r.last = append(r.last, rec)
}

// Enabled implements slog.Handler.
func (e *Errors) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }

// Handle implements slog.Handler.
func (e *Errors) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return nil
	}
	attrs := make(map[string]string, len(e.fixed)+r.NumAttrs())
	for _, a := range e.fixed {
		attrs[a.k] = a.v
	}
	r.Attrs(func(a slog.Attr) bool {
		flatten(e.prefix, a, func(k, v string) { attrs[k] = v })
		return true
	})
	e.r.add(Record{Time: r.Time, Message: r.Message, Attrs: attrs})
	return nil
}

// WithAttrs implements slog.Handler.
func (e *Errors) WithAttrs(as []slog.Attr) slog.Handler {
	c := *e
	c.fixed = slices.Clone(e.fixed)
	for _, a := range as {
		flatten(e.prefix, a, func(k, v string) { c.fixed = append(c.fixed, kv{k, v}) })
	}
	return &c
}

// WithGroup implements slog.Handler.
func (e *Errors) WithGroup(name string) slog.Handler {
	if name == "" {
		return e
	}
	c := *e
	c.prefix += name + "."
	return &c
}

func flatten(prefix string, a slog.Attr, put func(k, v string)) {
	v := a.Value.Resolve()
	switch {
	case v.Kind() == slog.KindGroup:
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range v.Group() {
			flatten(prefix, g, put)
		}
	case a.Key != "":
		put(prefix+a.Key, v.String())
	}
}

// loadBytes is how much of the end of each file Load reads: errors
// further back than that are old news.
const loadBytes = 1 << 20

// Load remembers the errors in the last part of the log at path and of
// its newest rotated file, as written by slog's JSON handler. Lines it
// cannot read are skipped.
func (e *Errors) Load(path string) error {
	for _, p := range []string{path + ".1", path} {
		if err := e.load(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func (e *Errors) load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	from := max(info.Size()-loadBytes, 0)
	sc := bufio.NewScanner(io.NewSectionReader(f, from, info.Size()-from))
	sc.Buffer(make([]byte, 0, 64<<10), loadBytes)
	if from > 0 {
		sc.Scan() // a line cut by the start of the section
	}
	for sc.Scan() {
		if rec, ok := errorLine(sc.Bytes()); ok {
			e.r.add(rec)
		}
	}
	return sc.Err()
}

// errorLine reads one JSON line of level Error or above.
func errorLine(line []byte) (Record, bool) {
	if !bytes.Contains(line, []byte(`"level":"ERROR`)) {
		return Record{}, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return Record{}, false
	}
	var level slog.Level
	var rec Record
	if json.Unmarshal(fields[slog.LevelKey], &level) != nil || level < slog.LevelError ||
		json.Unmarshal(fields[slog.TimeKey], &rec.Time) != nil || json.Unmarshal(fields[slog.MessageKey], &rec.Message) != nil {
		return Record{}, false
	}
	rec.Attrs = map[string]string{}
	for k, raw := range fields {
		if k == slog.LevelKey || k == slog.TimeKey || k == slog.MessageKey {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		rec.Attrs[k] = s
	}
	return rec, true
}
