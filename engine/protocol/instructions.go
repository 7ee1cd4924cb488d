package protocol

import "fmt"

// Instructions is what the server tells a client about itself when it
// connects (initialize's and server/discover's instructions): how an
// agent works with WorkRail, in a few lines, since every client puts it in
// every chat's context.
var Instructions = fmt.Sprintf(`WorkRail runs workflows step by step and keeps their state for you.
1. Pick a workflow: the user names one, or %[1]s lists them (%[2]s shows its inputs). Start it with %[3]s.
2. Do the pending step the answer gives, then send exactly the nextCall the answer ends with (%[4]s): copy every token unchanged and replace every "<<fill: …>>" marker with real content (your notes, what you found or did).
3. Never invent a user's answer, choice or confirmation: when a step needs one, ask the user and send what they said.
4. Lost the step? %[4]s with only the stateToken shows it again. Repeat until the answer's kind is complete.`,
	ToolList, ToolInspect, ToolStart, ToolContinue)
