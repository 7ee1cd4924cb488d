package workflow

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/workrail/workrail/engine"
)

var segment = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// IDStatus says whether an id is namespaced or legacy.
type IDStatus string

// ID statuses.
const (
	Namespaced IDStatus = "namespaced"
	Legacy     IDStatus = "legacy"
)

// StatusOf classifies id, or errors when it is neither a namespaced id
// ("namespace.name") nor a legacy one (a single segment).
func StatusOf(id engine.WorkflowID) (IDStatus, error) {
	s := string(id)
	if segment.MatchString(s) {
		return Legacy, nil
	}
	ns, name, ok := strings.Cut(s, ".")
	if ok && !strings.Contains(name, ".") && segment.MatchString(ns) && segment.MatchString(name) {
		return Namespaced, nil
	}
	return "", fmt.Errorf("workflow id %q must be namespace.name: two segments of [a-z][a-z0-9_-]* joined by one dot, e.g. \"user.my_review\"", s)
}

// Namespace returns the part of a namespaced id before the dot ("" for a
// legacy id).
func Namespace(id engine.WorkflowID) string {
	ns, _, ok := strings.Cut(string(id), ".")
	if !ok {
		return ""
	}
	return ns
}

// Reserved reports whether id is in the wr namespace, which only bundled
// workflows may use.
func Reserved(id engine.WorkflowID) bool { return Namespace(id) == "wr" }
