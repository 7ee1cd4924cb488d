package console

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

func TestArtifactsAreTablesWhereTheirContractDefinesOne(t *testing.T) {
	custom := map[workflow.ContractRef]compile.ContractPack{
		"acme.findings": {Description: "Review findings.", Schema: json.RawMessage(`{"type":"object","properties":{
			"kind":{"const":"acme.findings"},
			"summary":{"type":"string"},
			"files":{"type":"array","items":{"type":"string"}},
			"findings":{"type":"array","items":{"type":"object","properties":{"severity":{"type":"string"},"file":{"type":"string"},"line":{"type":"integer"}}}}}}`)},
	}
	tests := []struct {
		name string
		raw  string
		want artifact
	}{{
		name: "WorkRail's own pack: properties in the schema's order, lists of objects as tables",
		raw:  `{"kind":"wr.contracts.gaps","gaps":[{"severity":"warning","summary":"No tests ran"}]}`,
		want: artifact{Kind: "wr.contracts.gaps", Description: "Things the agent could not do or had to assume, disclosed durably.",
			Fields: []field{{Name: "gaps", Table: &table{Columns: []string{"summary", "severity", "howToResolve"}, Rows: [][]string{{"No tests ran", "warning", ""}}}}}},
	}, {
		name: "the workflow's own contract: scalars in words, a list of strings joined",
		raw:  `{"files":["a.go","b.go"],"kind":"acme.findings","summary":"Two issues","findings":[{"line":12,"file":"a.go","severity":"high"}]}`,
		want: artifact{Kind: "acme.findings", Description: "Review findings.", Fields: []field{
			{Name: "summary", Value: "Two issues"},
			{Name: "files", Value: "a.go, b.go"},
			{Name: "findings", Table: &table{Columns: []string{"severity", "file", "line"}, Rows: [][]string{{"high", "a.go", "12"}}}},
		}},
	}, {
		name: "no contract: the JSON, indented",
		raw:  `{"kind":"acme.unknown","n":1}`,
		want: artifact{Kind: "acme.unknown", JSON: "{\n  \"kind\": \"acme.unknown\",\n  \"n\": 1\n}"},
	}, {
		name: "not an object: the JSON as it is",
		raw:  `[1,2]`,
		want: artifact{JSON: "[\n  1,\n  2\n]"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := artifactsOf([]json.RawMessage{json.RawMessage(tt.raw)}, custom)
			if len(got) != 1 || !reflect.DeepEqual(got[0], tt.want) {
				t.Errorf("got  %s\nwant %s", show(got), show([]artifact{tt.want}))
			}
		})
	}
}

func show(as []artifact) string {
	b, _ := json.Marshal(as)
	return string(b)
}

func TestPropertyNamesReadAsWords(t *testing.T) {
	for in, want := range map[string]string{"summary": "summary", "howToResolve": "how to resolve", "resolvesGapId": "resolves gap id", "": ""} {
		if got := words(in); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}
