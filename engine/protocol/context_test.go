package protocol_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// reviewInputs is a workflow's declared context: one of each type, two
// required, two with an enum.
var reviewInputs = []workflow.ContextInput{
	{Name: "env", Type: workflow.TypeString, Enum: []json.RawMessage{json.RawMessage(`"dev"`), json.RawMessage(`"prod"`)}, Required: true, Description: "target environment"},
	{Name: "count", Type: workflow.TypeInteger, Description: "how many files to review"},
	{Name: "ratio", Type: workflow.TypeNumber, Enum: []json.RawMessage{json.RawMessage(`0.5`), json.RawMessage(`1`)}, Description: "sampling ratio"},
	{Name: "dry", Type: workflow.TypeBoolean, Description: "only report"},
	{Name: "files", Type: workflow.TypeArray, Required: true, Description: "files to review"},
}

// validContext holds every required input, as ParseStart decodes them.
func validContext() map[string]any {
	return map[string]any{"env": "prod", "files": []any{"a.go"}}
}

func with(kv ...any) map[string]any {
	m := validContext()
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestCheckContextAccepts(t *testing.T) {
	tests := []struct {
		name    string
		ctx     map[string]any
		atStart bool
	}{
		{"required only", validContext(), true},
		{"every input", with("count", json.Number("3"), "ratio", json.Number("0.5"), "dry", false), true},
		{"enum compares by value", with("ratio", json.Number("1.0")), true},
		{"enum compares by value, exponent", with("ratio", json.Number("5e-1")), true},
		{"integer as a float64", with("count", float64(3)), true},
		{"negative integer", with("count", json.Number("-2")), true},
		{"empty array", with("files", []any{}), true},
		{"required inputs may be missing after start", map[string]any{"dry": true}, false},
		{"nothing sent after start", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, e := protocol.CheckContext(compile.Workflow{Context: reviewInputs}, tt.ctx, tt.atStart)
			if e != nil {
				t.Fatalf("CheckContext: %v", e)
			}
			if len(ws) != 0 {
				t.Errorf("warnings %+v; want none", ws)
			}
		})
	}
}

func TestCheckContextRefuses(t *testing.T) {
	tests := []struct {
		name    string
		ctx     map[string]any
		atStart bool
		want    wantErr
		allowed []string
	}{
		{"string outside the enum", with("env", "staging"), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/env", Message: `context.env is "staging"; allowed values: "dev", "prod"`},
			[]string{`"dev"`, `"prod"`}},
		{"enum is case sensitive", with("env", "Prod"), false,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/env", Message: `context.env is "Prod"; allowed values: "dev", "prod"`},
			[]string{`"dev"`, `"prod"`}},
		{"number outside the enum", with("ratio", json.Number("2")), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/ratio", Message: `context.ratio is 2; allowed values: 0.5, 1`},
			[]string{"0.5", "1"}},
		{"string for an integer", with("count", "three"), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/count",
				Message: "context.count: want integer, got a string. It is declared as: how many files to review"}, nil},
		{"fraction for an integer", with("count", json.Number("2.5")), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/count",
				Message: "context.count: want integer, got a number. It is declared as: how many files to review"}, nil},
		{"number for a string", with("env", json.Number("1")), false,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/env",
				Message: "context.env: want string, got a number. It is declared as: target environment"}, nil},
		{"null for a string", with("env", nil), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/env",
				Message: "context.env: want string, got null. It is declared as: target environment"}, nil},
		{"string for a boolean", with("dry", "yes"), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/dry",
				Message: "context.dry: want boolean, got a string. It is declared as: only report"}, nil},
		{"string for an array", with("files", "a.go"), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/files",
				Message: "context.files: want array, got a string. It is declared as: files to review"}, nil},
		{"object for an array", with("files", map[string]any{"a": "b"}), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/files",
				Message: "context.files: want array, got an object. It is declared as: files to review"}, nil},
		{"string for a number", with("ratio", "half"), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/ratio",
				Message: "context.ratio: want number, got a string. It is declared as: sampling ratio"}, nil},
		{"missing required at start", map[string]any{"dry": true}, true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context",
				Message: `this workflow needs these context inputs, which were not sent: env (string): target environment; files (array): files to review. Call start_workflow again with them in "context".`}, nil},
		{"one missing at start", map[string]any{"env": "dev"}, true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context",
				Message: `this workflow needs these context inputs, which were not sent: files (array): files to review. Call start_workflow again with them in "context".`}, nil},
		{"a wrong type wins over a missing input", map[string]any{"count": "x"}, true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/count"}, nil},
		{"the first wrong key by name", with("files", "x", "count", "y"), true,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/count"}, nil},
		{"undeclared keys do not excuse an error", with("zzz", 1, "env", "qa"), false,
			wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/env"}, []string{`"dev"`, `"prod"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, e := protocol.CheckContext(compile.Workflow{Context: reviewInputs}, tt.ctx, tt.atStart)
			checkErr(t, e, tt.want)
			if ws != nil {
				t.Errorf("warnings %+v with an error; want nil", ws)
			}
			if got, has := e.Details["allowed"]; tt.allowed != nil && !reflect.DeepEqual(got, tt.allowed) {
				t.Errorf("allowed %#v; want %#v", got, tt.allowed)
			} else if tt.allowed == nil && has {
				t.Errorf("allowed %#v; want none", got)
			}
		})
	}
}

func TestCheckContextNamesMissingInputs(t *testing.T) {
	_, e := protocol.CheckContext(compile.Workflow{Context: reviewInputs}, map[string]any{}, true)
	if e == nil {
		t.Fatal("no error")
	}
	if got, want := e.Details["missingContext"], []string{"env", "files"}; !reflect.DeepEqual(got, want) {
		t.Errorf("missingContext %#v; want %#v (declaration order)", got, want)
	}
}

func TestCheckContextWarnsAboutUndeclaredKeys(t *testing.T) {
	msg := func(k string) string {
		return "context." + k + " is not an input of this workflow: it is stored, but no condition or loop reads it"
	}
	tests := []struct {
		name    string
		inputs  []workflow.ContextInput
		ctx     map[string]any
		atStart bool
		want    []protocol.Warning
	}{
		{"one, at start", reviewInputs, with("branch", "main"), true,
			[]protocol.Warning{{Code: "CONTEXT_KEY_UNDECLARED", Message: msg("branch")}}},
		{"sorted by key", reviewInputs, with("zeta", 1, "alpha", true, "Mid", "x"), false,
			[]protocol.Warning{
				{Code: "CONTEXT_KEY_UNDECLARED", Message: msg("Mid")},
				{Code: "CONTEXT_KEY_UNDECLARED", Message: msg("alpha")},
				{Code: "CONTEXT_KEY_UNDECLARED", Message: msg("zeta")},
			}},
		{"a workflow without inputs", nil, map[string]any{"x": json.Number("1e400")}, true,
			[]protocol.Warning{{Code: "CONTEXT_KEY_UNDECLARED", Message: msg("x")}}},
		{"names are case sensitive", reviewInputs, with("Env", "dev"), true,
			[]protocol.Warning{{Code: "CONTEXT_KEY_UNDECLARED", Message: msg("Env")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, e := protocol.CheckContext(compile.Workflow{Context: tt.inputs}, tt.ctx, tt.atStart)
			if e != nil {
				t.Fatalf("CheckContext: %v", e)
			}
			if !reflect.DeepEqual(ws, tt.want) {
				t.Errorf("warnings %+v\n    want %+v", ws, tt.want)
			}
		})
	}
}
