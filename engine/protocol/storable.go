package protocol

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
)

// storable refuses arguments whose values could not be stored as sent:
// numbers canon.CheckNumber refuses (named by JSON pointer), and anything
// else the canonical form rejected (canonErr), such as an unpaired
// surrogate escape. Canonical JSON is compositional, so every part of
// arguments that pass can be stored.
func storable(raw []byte, canonErr error) *engine.Error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil // the strict decode that follows explains it
	}
	if bad := canon.BadNumbers(v); len(bad) > 0 {
		return engine.Errorf(engine.CodeInvalidInput, "%s: %v; send it as a string.", bad[0].Pointer, bad[0].Err).With("pointer", bad[0].Pointer)
	}
	if canonErr != nil {
		return engine.Errorf(engine.CodeInvalidInput,
			"the arguments cannot be stored as canonical JSON (%v). Strings must be valid Unicode: no invalid UTF-8 and no unpaired surrogate escapes such as \\ud800.", canonErr)
	}
	return nil
}

// checkDuplicates refuses arguments that send one key twice in the same
// object: which of the two values was meant cannot be known, and
// encoding/json would silently keep the last. The pointer names the
// second occurrence. Malformed JSON passes: the strict decode explains it.
func checkDuplicates(raw []byte) *engine.Error {
	ptr, key := duplicateKey(raw)
	if ptr == "" {
		return nil
	}
	return engine.Errorf(engine.CodeInvalidInput, "%s: the key %q is sent twice in the same object; send it once.", ptr, key).With("pointer", ptr)
}

// duplicateKey returns the JSON pointer and name of the first key raw
// repeats within one object, or "" when there is none; jsontext finds
// it (comparing names unescaped) and points at it.
func duplicateKey(raw []byte) (ptr, key string) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true))
	_, err := dec.ReadValue()
	var se *jsontext.SyntacticError
	if !errors.Is(err, jsontext.ErrDuplicateName) || !errors.As(err, &se) {
		return "", ""
	}
	return string(se.JSONPointer), se.JSONPointer.LastToken()
}
