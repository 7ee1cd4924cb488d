package project

import "strings"

// OriginText says how a branch came to be, in words, as the Console and
// the Markdown export say it.
func OriginText(o Origin, changed []string) string {
	switch o {
	case OriginFirst:
		return "the path taken first"
	case OriginRestart:
		return "started over in the Console"
	case OriginRewound:
		return "an agent went on from an older point of the run"
	case OriginCheckpoint:
		return "an agent went on with a call it held from before a checkpoint"
	case OriginConsoleFork:
		if len(changed) == 0 {
			return "forked in the Console, context unchanged"
		}
		return "forked in the Console, context changed: " + strings.Join(changed, ", ")
	}
	return string(o)
}

// StatusText says a branch's state in words.
func StatusText(s BranchStatus) string {
	switch s {
	case BranchComplete:
		return "complete"
	case BranchCurrent:
		return "current"
	case BranchBlocked:
		return "left blocked"
	}
	return "left behind"
}

// ContinuedText is what a step shows whose node the log linked as a fork
// from before a checkpoint, which the projection reads as the same line.
const ContinuedText = "continued from before a checkpoint"
