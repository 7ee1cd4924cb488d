package main

import (
	"fmt"
	"io"
	"time"

	"github.com/workrail/workrail/server/home"
)

func runKeys(args []string, stdout, stderr io.Writer) int {
	args, code, done := noFlags("keys", args, stdout, stderr)
	if done {
		return code
	}
	if len(args) != 1 || args[0] != "rotate" {
		fmt.Fprintf(stderr, "workrail keys: the only action is rotate\n\nUsage: workrail keys rotate\n")
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintln(stderr, "workrail keys:", err)
		return 1
	}
	// Serialise rotations of one home; create the ring first if this home
	// has none yet.
	unlock, err := h.Lock("keys.lock", 10*time.Second)
	if err != nil {
		fmt.Fprintln(stderr, "workrail keys:", err)
		return 1
	}
	defer unlock()
	if _, err := home.LoadKeyRing(string(h)); err != nil {
		fmt.Fprintln(stderr, "workrail keys:", err)
		return 1
	}
	id, err := home.RotateKey(string(h), time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "workrail keys:", err)
		return 1
	}
	fmt.Fprintf(stdout, "New signing key %d is active; tokens signed with older keys still verify.\n", id)
	if info, err := h.ReadInfo(); err == nil && info.Alive() {
		fmt.Fprintf(stdout, "The running daemon (pid %d) signs with the key it loaded at start: restart it to use key %d.\n", info.PID, id)
	}
	// A rotation is what a person does after a leak: every Console login
	// ends with it.
	n, err := endLogins(h)
	if err != nil {
		fmt.Fprintln(stderr, "workrail keys: the key rotated, but the Console's logins did not end:", err)
		return 1
	}
	fmt.Fprintln(stdout, endedText(n))
	return 0
}
