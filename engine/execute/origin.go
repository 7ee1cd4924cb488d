package execute

import "github.com/workrail/workrail/engine"

// NumberedByConsole says attempt a is numbered as a fork from the Console
// numbers its own (see forkAttemptGap): how a reader of a log written
// before events carried their origin tells a Console fork from a rewound
// chat's.
func NumberedByConsole(a engine.Attempt) bool { return a >= forkAttemptGap }
