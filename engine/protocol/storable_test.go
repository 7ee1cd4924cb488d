package protocol_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
)

// Arguments must be storable as sent (DESIGN §4): numbers within a double,
// integers at most 2^53 in magnitude, strings valid Unicode. Anything else
// is INVALID_INPUT before evaluation, numbers named by JSON pointer.
func TestArgumentsMustBeStorable(t *testing.T) {
	const surrogateMsg = "the arguments cannot be stored as canonical JSON ("
	tests := []struct {
		name string
		raw  string
		want *wantErr // nil: accepted
	}{
		{"2^53 is exact", `{"stateToken":"s","context":{"n":9007199254740992}}`, nil},
		{"-2^53 is exact", `{"stateToken":"s","context":{"n":-9007199254740992}}`, nil},
		{"a large decimal is a double", `{"stateToken":"s","context":{"n":9007199254740993.0}}`, nil},
		{"the largest double", `{"stateToken":"s","context":{"n":1.7976931348623157e308}}`, nil},
		{"a tiny double", `{"stateToken":"s","context":{"n":5e-324}}`, nil},
		{"2^53+1", `{"stateToken":"s","context":{"n":9007199254740993}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/n",
			Message: "/context/n: the integer 9007199254740993 is larger than 2^53 and would be rounded; send it as a string."}},
		{"-(2^53+1)", `{"stateToken":"s","context":{"n":-9007199254740993}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/n",
			Message: "/context/n: the integer -9007199254740993 is larger than 2^53 and would be rounded; send it as a string."}},
		{"beyond int64", `{"stateToken":"s","context":{"n":123456789012345678901234567890}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/n"}},
		{"beyond a double", `{"stateToken":"s","context":{"n":1e309}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/n",
			Message: "/context/n: 1e309 is outside the range of an IEEE-754 double; send it as a string."}},
		{"negative, beyond a double", `{"stateToken":"s","context":{"n":-2e308}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/n"}},
		{"nested in arrays and objects", `{"stateToken":"s","context":{"a":[1,{"b":1e400}]}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/a/1/b",
			Message: "/context/a/1/b: 1e400 is outside the range of an IEEE-754 double; send it as a string."}},
		{"pointer escapes / and ~", `{"stateToken":"s","context":{"a/b~c":1e400}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/a~1b~0c"}},
		{"first bad number by sorted key", `{"stateToken":"s","context":{"z":1e400,"a":9007199254740993}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/a"}},
		{"in an artifact", `{"stateToken":"s","output":{"artifacts":[{"kind":"k","n":1e999}]}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/artifacts/0/n"}},
		{"bad number before a type error", `{"stateToken":1e999}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/stateToken",
			Message: "/stateToken: 1e999 is outside the range of an IEEE-754 double; send it as a string."}},
		{"unpaired high surrogate", `{"stateToken":"s","context":{"a":"\ud800"}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "-", Prefix: true, Message: surrogateMsg}},
		{"unpaired low surrogate", `{"stateToken":"s","context":{"a":"x\udc00y"}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "-", Prefix: true, Message: surrogateMsg}},
		{"reversed pair", `{"stateToken":"s","output":{"notesMarkdown":"\ude00\ud83d"}}`, &wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: surrogateMsg}},
		{"surrogate in a key", `{"stateToken":"s","context":{"\ud800":1}}`, &wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: surrogateMsg}},
		{"invalid UTF-8", "{\"stateToken\":\"s\",\"context\":{\"a\":\"\xff\"}}", &wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: surrogateMsg}},
		{"paired surrogates", `{"stateToken":"s","context":{"a":"\ud83d\ude00"}}`, nil},
		{"a key sent twice", `{"stateToken":"a","stateToken":"b"}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/stateToken",
			Message: `/stateToken: the key "stateToken" is sent twice in the same object; send it once.`}},
		{"a key sent twice in context", `{"stateToken":"s","context":{"a":1,"b":2,"a":1}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/a"}},
		{"a key sent twice in an array item", `{"stateToken":"s","output":{"artifacts":[{"kind":"k"},{"kind":"k","n":[1],"kind":"j"}]}}`,
			&wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/artifacts/1/kind"}},
		{"the same key, escaped", `{"stateToken":"s","context":{"a/b":1,"a\u002fb":2}}`, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/a~1b",
			Message: `/context/a~1b: the key "a/b" is sent twice in the same object; send it once.`}},
		{"one key in two objects", `{"stateToken":"s","context":{"a":{"k":1},"b":[{"k":1},{"k":2}],"k":3}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := protocol.ParseContinue([]byte(tt.raw))
			if tt.want == nil {
				if e != nil {
					t.Fatalf("refused: %v", e)
				}
				return
			}
			checkErr(t, e, *tt.want)
		})
	}
}

// The storable check guards every entry point, not only continue.
func TestEveryParserChecksStorable(t *testing.T) {
	tests := map[string]string{
		"start":   `{"workflowId":"w","context":{"n":1e999}}`,
		"list":    `{"workspacePath":1e999}`,
		"inspect": `{"workflowId":"w","mode":1e999}`,
	}
	parse := parsers()
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			e := parse[name]([]byte(raw))
			checkErr(t, e, wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: "/"})
			if _, ok := e.Details["pointer"]; !ok {
				t.Errorf("no pointer in %+v", e.Details)
			}
		})
	}
}
