package protocol

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
)

// MaxAnswerBytes bounds one tool answer as the daemon writes it (the
// whole JSON-RPC message, which carries the text twice). The limits of
// a workflow (package compile) and of a rendered prompt keep every answer
// about a run well under it; a list or an outline of what the folders
// hold can reach it, and is then answered AnswerTooLarge instead.
const MaxAnswerBytes = 16 << 20

// AnswerTooLarge is the error that replaces an answer to tool of at
// least size bytes, over MaxAnswerBytes. Whatever the call did stands.
func AnswerTooLarge(tool ToolName, size int) *engine.Error {
	advice := "Nothing the call did is undone; a call that would answer the same is refused the same way."
	switch tool {
	case ToolList:
		advice = "The workflow folders this call sees hold too many workflows or broken files to list: " +
			"`workrail validate FOLDER` lists them; remove or fix them."
	case ToolInspect:
		advice = "Inspect it in mode \"metadata\" (its outline, without every prompt)."
	}
	return engine.Errorf(engine.CodePayloadTooLarge, "The answer to this %s call would be at least %s bytes, over the limit of %s for one answer. %s",
		tool, compile.Grouped(size), compile.Bytes(MaxAnswerBytes), advice).With("answerBytes", size).With("limitBytes", MaxAnswerBytes)
}
