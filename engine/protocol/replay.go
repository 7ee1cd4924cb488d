package protocol

import "github.com/workrail/workrail/engine/event"

// OutputIgnoredOnReplay tells an agent that sent a spent ackToken with an
// output other than the one its attempt recorded that the answer is the
// recorded one and its output was not recorded, and carries the call that
// records it: a rehydrate of stateToken (the one it sent) for a fresh
// ackToken to send the output again with. It is added to that replay's
// answer only, never recorded, so every other replay stays byte-identical
// to the first answer.
func OutputIgnoredOnReplay(stateToken string) Warning {
	call := Rehydrate(stateToken)
	return Warning{Code: event.NoticeOutputIgnoredOnReplay, NextCall: &call,
		Message: "the ackToken you sent was already used, so this is the answer recorded for it then, unchanged; " +
			"the output you sent now differs from the output recorded then and was NOT recorded. " +
			"To record it, call continue_workflow with only the stateToken you sent (this warning's nextCall, on the next line): " +
			"it gives you that step again with a fresh ackToken; then send your output with that ackToken, " +
			"which starts a new branch beside the recorded one. If the recorded output stands, carry on from this answer instead."}
}
