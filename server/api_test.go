package server

import (
	"encoding/json"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine/protocol"
)

// testAdmin answers status and doctor with fixed values.
type testAdmin struct{ status, doctor any }

func (a testAdmin) Status() jsontext.Value          { return encoded(a.status) }
func (a testAdmin) Doctor() (jsontext.Value, error) { return encoded(a.doctor), nil }
func (testAdmin) Restart() *protocol.ErrorResult    { return nil }

// testSessions is the sessions API as the functions a test gives.
type testSessions struct {
	list   func() (any, *protocol.ErrorResult)
	export func(session string, ask ExportAsk) ([]byte, *protocol.ErrorResult)
	imp    func(body io.Reader, dryRun bool) (any, *protocol.ErrorResult)
}

func (s testSessions) List() (jsontext.Value, *protocol.ErrorResult) { return encodedAnswer(s.list()) }
func (s testSessions) Export(session string, ask ExportAsk) ([]byte, *protocol.ErrorResult) {
	return s.export(session, ask)
}
func (s testSessions) Import(body io.Reader, dryRun bool) (jsontext.Value, *protocol.ErrorResult) {
	return encodedAnswer(s.imp(body, dryRun))
}

func encodedAnswer(v any, refused *protocol.ErrorResult) (jsontext.Value, *protocol.ErrorResult) {
	if refused != nil {
		return nil, refused
	}
	return encoded(v), nil
}

func encoded(v any) jsontext.Value {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
