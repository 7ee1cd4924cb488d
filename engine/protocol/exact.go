package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine/canon"
)

// readExact decodes raw, one JSON object, into v (a pointer to a tool's
// input struct) in one pass, making on the way every check parseArgs
// makes: json/v2 refuses a key sent twice in any object, a key that is
// no field of the struct it is decoded into (names compared exactly), a
// value not of its field's JSON type, a string not valid Unicode and
// anything after the object; exactOptions add that every number is one
// canon.CheckNumber takes, kept as json.Number (in a map, as
// encoding/json with UseNumber keeps it) or as the bytes of a
// json.RawMessage item, so the arguments are stored as sent.
//
// ok is false at the first thing parseArgs would refuse: v is then left
// part-filled, and parseArgs finds and names the problem the long way,
// with its messages and its order of checks. So readExact decides only
// what parseArgs would decide the same way; it never refuses on its own.
func readExact(raw []byte, v any) (ok bool) {
	return jsonv2.Unmarshal(raw, v, exactOptions) == nil
}

var exactOptions = jsonv2.JoinOptions(
	jsonv2.RejectUnknownMembers(true),
	jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
		jsonv2.UnmarshalFromFunc(anyNumber),
		jsonv2.UnmarshalFromFunc(rawValue),
	)),
)

// anyNumber decodes a number held by an interface as json.Number, when
// canon.CheckNumber takes it; anything else as json/v2 does.
func anyNumber(dec *jsontext.Decoder, v *any) error {
	if dec.PeekKind() != '0' {
		return errors.ErrUnsupported // json/v2 decodes it
	}
	n, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if err := canon.CheckNumber(string(n)); err != nil {
		return err
	}
	*v = json.Number(n)
	return nil
}

// rawValue keeps a json.RawMessage as the bytes sent, when every number
// in it is one canon.CheckNumber takes.
func rawValue(dec *jsontext.Decoder, v *json.RawMessage) error {
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if err := checkNumbers(b); err != nil {
		return err
	}
	*v = append(json.RawMessage(nil), b...)
	return nil
}

// checkNumbers returns CheckNumber's refusal of the first number in b,
// one valid JSON value.
func checkNumbers(b []byte) error {
	if !bytes.ContainsAny(b, "0123456789") {
		return nil
	}
	w := numberWalks.Get().(*numberWalk)
	defer numberWalks.Put(w)
	w.r.Reset(b)
	w.dec.Reset(&w.r, jsontext.AllowDuplicateNames(true))
	for {
		tok, err := w.dec.ReadToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if tok.Kind() == '0' {
			if err := canon.CheckNumber(tok.String()); err != nil {
				return err
			}
		}
	}
}

// numberWalk is a decoder over a reader, kept for the next value.
type numberWalk struct {
	r   bytes.Reader
	dec jsontext.Decoder
}

var numberWalks = sync.Pool{New: func() any { return new(numberWalk) }}
