package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// runCompact rewrites the database into a file of only its live records,
// with the daemon stopped. The daemon does not compact itself: every
// part of it holds the open store, so swapping the file under it would
// mean a restart anyway, and a stopped daemon is one command away.
func runCompact(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON (a failure as the error envelope)")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "workrail compact: unexpected argument %q\n\n", fs.Arg(0))
		commandUsage(fs, stderr)
		return 2
	}
	res, e := compact()
	switch {
	case e != nil && *asJSON:
		printJSON(stdout, protocol.NewError(e))
		return 1
	case e != nil:
		fmt.Fprintln(stderr, "workrail compact:", e.Message)
		return 1
	case *asJSON:
		printJSON(stdout, res)
	default:
		fmt.Fprintf(stdout, "Compacted %s: %d bytes before, %d after; %d sessions verified.\n", res.Path, res.BytesBefore, res.BytesAfter, res.Sessions)
	}
	return 0
}

// compact compacts the home's database, its failures as the error
// envelope.
func compact() (store.CompactResult, *engine.Error) {
	h, err := home.Resolve()
	if err != nil {
		return store.CompactResult{}, engine.Errorf(engine.CodeInvalidInput, "%v", err).With("reason", "no_home")
	}
	path := h.DB()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return store.CompactResult{}, engine.Errorf(engine.CodeInvalidInput, "there is no database at %s: nothing to compact.", path).
			With("reason", "no_database").With("path", path)
	}
	res, err := store.Compact(path, time.Second)
	var damaged *store.DamagedError
	var e *engine.Error
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, store.ErrLocked):
		return res, engine.Errorf(engine.CodeInvalidInput, "the daemon is running and holds %s; nothing was changed. Run `workrail stop`, then `workrail compact` again.", path).
			With("reason", "daemon_running").With("path", path)
	case errors.As(err, &damaged):
		return res, engine.Errorf(engine.CodeSessionCorrupt, "%v", damaged).With("reason", "file_damaged").With("path", path)
	case errors.As(err, &e):
		return res, e
	}
	return res, engine.Errorf(engine.CodeInternal, "%v", err).With("path", path)
}
