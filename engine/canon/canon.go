// Package canon owns the one canonicalisation WorkRail hashes with:
// encoding/json, then RFC 8785 (JCS), then SHA-256. Everything content
// addressed (events, snapshots, compiled workflows) goes through it, so the
// same value always has the same bytes and the same digest.
package canon

import (
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
	"github.com/workrail/workrail/engine"
)

// JSON returns the RFC 8785 canonical JSON of v.
func JSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canon: marshal: %w", err)
	}
	out, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("canon: jcs: %w", err)
	}
	return out, nil
}

// Digest returns the canonical JSON of v and its SHA-256 digest.
func Digest(v any) ([]byte, engine.Digest, error) {
	b, err := JSON(v)
	if err != nil {
		return nil, engine.Digest{}, err
	}
	return b, engine.Sum(b), nil
}
