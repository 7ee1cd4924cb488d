// Package engine holds what every part of WorkRail shares and nothing that
// runs: the closed set of error codes with their retry policy (the error
// envelope every edge answers with), the typed identifiers of sessions,
// runs, nodes and events and their text forms, the digests that chain the
// log, and two small helpers every edge uses to say what went wrong (a JSON
// pointer's tokens, the closest known name to a misspelt one). It imports
// nothing of the project; its subpackages import it.
package engine
