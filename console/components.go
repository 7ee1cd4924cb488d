package console

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/console/diff"
	"github.com/workrail/workrail/engine/execute"
)

// healthText is a session's verified health in words, with what to do
// when the indexes alone are damaged.
func healthText(h execute.Health) string {
	switch h.Status {
	case execute.Healthy:
		return string(h.Status)
	case execute.IndexesDamaged:
		return "indexes damaged (run workrail doctor --rebuild-indexes)"
	default:
		return fmt.Sprintf("%s at event %d", statusWords(h.Status), h.FirstBad)
	}
}

// statusWords is a health status as the pages say it: corrupt tail.
func statusWords(s execute.HealthStatus) string { return strings.ReplaceAll(string(s), "_", " ") }

// diffClass is the class of one line of a diffView.
func diffClass(op diff.Op) string {
	switch op {
	case diff.OpAdd:
		return "add"
	case diff.OpDel:
		return "del"
	}
	return "same"
}
