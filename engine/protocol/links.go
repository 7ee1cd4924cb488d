package protocol

import "github.com/workrail/workrail/engine"

// SessionURI is the MCP resource of a session: the session as Markdown.
func SessionURI(s engine.SessionID) string { return "workrail://sessions/" + s.String() }

// RunURI is the MCP resource of one run of a session.
func RunURI(s engine.SessionID, r engine.RunID) string {
	return SessionURI(s) + "/runs/" + r.String()
}

// RunPage is the path of a run's page in the Console.
func RunPage(s engine.SessionID, r engine.RunID) string {
	return "/sessions/" + s.String() + "/runs/" + r.String()
}

// RunOf is the session and run a result is about: a step, blocked or
// complete result names one; other kinds do not.
func RunOf(r Result) (SessionRef, bool) {
	switch r := r.(type) {
	case StepResult:
		return r.Session, true
	case BlockedResult:
		return r.Session, true
	case CompleteResult:
		return r.Session, true
	}
	return SessionRef{}, false
}

// WithConsoleLink is r with the Console page of its run, under base (the
// Console's URL, "http://127.0.0.1:7421"), in consoleUrl and as the last
// line of its text. The link is made of the run's ids alone, so a replay
// stays byte for byte the answer it repeats. Results about no run are
// returned as they are.
func WithConsoleLink(r Result, base string) Result {
	ref, ok := RunOf(r)
	if !ok || base == "" {
		return r
	}
	url := base + RunPage(ref.SessionID, ref.RunID)
	line := "\n\nConsole: " + url + "\n"
	switch r := r.(type) {
	case StepResult:
		r.ConsoleURL, r.Text = url, trimEnd(r.Text)+line
		return r
	case BlockedResult:
		r.ConsoleURL, r.Text = url, trimEnd(r.Text)+line
		return r
	case CompleteResult:
		r.ConsoleURL, r.Text = url, trimEnd(r.Text)+line
		return r
	}
	return r
}

// trimEnd drops the text's final line breaks, so the link's line follows
// one blank line whatever the text ended with.
func trimEnd(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}
