package daemon

import (
	"fmt"
	"io"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// Service builds the use cases over a store this process opened, from
// the same parts as the daemon builds them (keys, configuration, workflow
// sources), for the commands that read the file while no daemon runs.
func Service(h home.Dir, st *store.Store, stderr io.Writer, opts ...execute.Option) (*execute.Service, error) {
	p, err := loadParts(h, nil)
	if err != nil {
		return nil, err
	}
	// No daemon log holds an internal error's cause here: it goes to stderr.
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "workrail: "+format+"\n", args...) }
	return execute.New(st, p.keys, p.reg, p.cfg.Preferences(), time.Now, logf, opts...), nil
}
