package server

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/workrail/workrail/server/home"
)

// Which client a message comes from matters only to a cancel: the shim
// posts each line on its own (on whichever pooled connection is free), and
// two clients number their requests alike, so a request's id names a call
// only together with its client. The daemon names each client as
// streamable HTTP allows: its answer to initialize carries a new session
// id (home.SessionHeader, 128 random bits), which the client sends with
// every request after. Nothing is kept per session, so the daemon stays
// stateless: any id is taken as it is sent, and one minted before a
// restart still names its client after it.

// mintClient gives a client that initializes without a session id one,
// in the answer's headers.
func mintClient(w http.ResponseWriter, r *http.Request, method string) {
	if method != "initialize" || r.Header.Get(home.SessionHeader) != "" {
		return
	}
	w.Header().Set(home.SessionHeader, newClientID())
}

func newClientID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// clientOf is the session id r's client sent; empty for a client that has
// none (one that never initialized here, or an older shim).
func clientOf(r *http.Request) string { return r.Header.Get(home.SessionHeader) }
