package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"hash"
	"sync"
)

// MinSecretLen is the shortest secret a Key may have: 256 bits, the full
// strength of HMAC-SHA256.
const MinSecretLen = 32

// KeyID names one signing key. It is encoded in every token so old tokens
// keep verifying after rotation. The zero KeyID is invalid.
type KeyID uint32

// Key is one signing key.
type Key struct {
	ID     KeyID
	Secret []byte
}

// Ring is an immutable set of signing keys with one active key. It is safe
// for concurrent use.
type Ring struct {
	keys   map[KeyID]*ringKey
	active KeyID
}

// ringKey pools keyed HMAC states: hmac.New costs several allocations and
// two compressions of the padded key, while Reset on a pooled state is cheap.
type ringKey struct {
	pool sync.Pool // of *mac
}

// mac is one pooled HMAC state plus scratch buffers. The buffers live here,
// not on the caller's stack, because anything passed through the hash.Hash
// interface escapes to the heap.
type mac struct {
	h   hash.Hash
	buf [maxRaw]byte
	sum [sha256.Size]byte
}

// NewRing returns a ring holding keys, with active as the key new tokens are
// signed with. Key ids must be non-zero and unique, secrets at least
// MinSecretLen bytes, and active must be one of the keys. Secrets are copied.
func NewRing(keys []Key, active KeyID) (*Ring, error) {
	r := &Ring{keys: make(map[KeyID]*ringKey, len(keys)), active: active}
	for _, k := range keys {
		switch {
		case k.ID == 0:
			return nil, fmt.Errorf("token: key id 0 is invalid")
		case len(k.Secret) < MinSecretLen:
			return nil, fmt.Errorf("token: key %d: secret is %d bytes; want at least %d", k.ID, len(k.Secret), MinSecretLen)
		case r.keys[k.ID] != nil:
			return nil, fmt.Errorf("token: duplicate key id %d", k.ID)
		}
		r.keys[k.ID] = newRingKey(k.Secret)
	}
	if r.keys[active] == nil {
		return nil, fmt.Errorf("token: active key %d is not in the ring", active)
	}
	return r, nil
}

func newRingKey(secret []byte) *ringKey {
	secret = append([]byte(nil), secret...)
	k := &ringKey{}
	k.pool.New = func() any { return &mac{h: hmac.New(sha256.New, secret)} }
	return k
}

// Active returns the id of the key new tokens should be signed with.
func (r *Ring) Active() KeyID { return r.active }

// tag computes the truncated HMAC of prefix || payload into m.sum. payload
// must live in m.buf so that hashing it does not allocate.
func (m *mac) tag(k Kind, payload []byte) []byte {
	m.h.Reset()
	m.h.Write(kindInfo[k].raw)
	m.h.Write(payload)
	return m.h.Sum(m.sum[:0])[:tagLen]
}

func (k *ringKey) get() *mac  { return k.pool.Get().(*mac) }
func (k *ringKey) put(m *mac) { k.pool.Put(m) }
