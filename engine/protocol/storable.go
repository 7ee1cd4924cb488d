package protocol

import (
	"bytes"
	"encoding/json"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
)

// checkStorable refuses arguments whose values could not be stored as
// sent, before anything is evaluated: numbers canon.CheckNumber refuses
// (named by JSON pointer), and anything else the canonical form rejects,
// such as an unpaired surrogate escape. Canonical JSON is compositional,
// so every part of arguments that pass can be stored.
func checkStorable(raw []byte) *engine.Error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil // the strict decode that follows explains it
	}
	if bad := canon.BadNumbers(v); len(bad) > 0 {
		return engine.Errorf(engine.CodeInvalidInput, "%s: %v; send it as a string.", bad[0].Pointer, bad[0].Err).With("pointer", bad[0].Pointer)
	}
	if _, err := canon.JSON(json.RawMessage(raw)); err != nil {
		return engine.Errorf(engine.CodeInvalidInput,
			"the arguments cannot be stored as canonical JSON (%v). Strings must be valid Unicode: no invalid UTF-8 and no unpaired surrogate escapes such as \\ud800.", err)
	}
	return nil
}
