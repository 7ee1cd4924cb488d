package protocol

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
)

// exactCases are arguments as agents send them and as they should not:
// readExact must take the first kind in its one pass, and leave every
// refusal to parseLong.
var exactCases = []struct {
	raw  string
	take bool
}{
	{`{}`, true},
	{`null`, true},
	{` {"workflowId":"wr.hello"} `, true},
	{`{"workflowId":"w","context":{"env":"dev","n":3,"big":9007199254740992,"f":-1.5e3,"tags":["a",{"b":null}],"ok":true,"no":false,"nil":null}}`, true},
	{`{"workflowId":"w","preferences":{"autonomy":"guided","riskPolicy":"aggressive"},"mode":"fast","workspacePath":"/p"}`, true},
	{`{"workflowId":"w","context":null,"preferences":null}`, true},
	{`{"workflowId":"w","context":{"smile":"\ud83d\ude00","esc":"a\"b\\c\/d\b\f\n\r\t\u00e9","é":"ü"}}`, true},
	{"{\n\t\"workflowId\" : \"w\" ,\r\n \"context\" : { } }", true},
	{`{"workflowId":"w","context":{"deep":[[[[{"a":[1,[2,[3]]]}]]]]}}`, true},
	{`{"workflowId":null}`, true},
	{`{"workflow\u0049d":"w"}`, true},
	{`{"workflowId":"w"}`, true},
	{`{"workflowId":"w","vars":{}}`, false},
	{`{"WorkflowId":"w"}`, false},
	{`{"workflowId":"a","workflowId":"b"}`, false},
	{`{"workflowId":"w","context":{"a":1,"a":2}}`, false},
	{`{"workflowId":"w","context":{"x":1e400}}`, false},
	{`{"workflowId":"w","context":{"n":9007199254740993}}`, false},
	{`{"workflowId":"w","context":{"s":"\ud800"}}`, false},
	{`{"workflowId":"w","context":{"s":"\udc00\ud800"}}`, false},
	{"{\"workflowId\":\"w\",\"context\":{\"s\":\"\xff\"}}", false},
	{"{\"workflowId\":\"w\x01\"}", false},
	{`{"workflowId":5}`, false},
	{`{"workflowId":"w","context":[1]}`, false},
	{`{"workflowId":"w","preferences":"guided"}`, false},
	{`{"workflowId":"w","preferences":{"colour":"red"}}`, false},
	{`["w"]`, false},
	{`"w"`, false},
	{`{"workflowId":`, false},
	{`{} {}`, false},
	{`{"workflowId":"w",}`, false},
	{`{"workflowId":"w","context":{"n":01}}`, false},
	{`{"workflowId":"w","context":{"n":-}}`, false},
	{`{"workflowId":"w","context":{"a":[1,]}}`, false},
	{`{"workflowId":"w","context":{"a":tru}}`, false},
	// Nesting is json/v2's to bound (10,000 levels, as encoding/json):
	// the one pass takes what the long way takes.
	{`{"workflowId":"w","context":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`, true},
	{`{"workflowId":"w","context":{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`, false},
}

var continueCases = []struct {
	raw  string
	take bool
}{
	{`{"stateToken":"st","ackToken":"ack","output":{"notesMarkdown":"did it","artifacts":[{"kind":"wr.x","n":1.50} , null,"s"],"resolvesGaps":[{"gapId":"evt_1_2","summary":"done"}]}}`, true},
	{`{"stateToken":"st","output":{"artifacts":[],"resolvesGaps":[]}}`, true},
	{`{"stateToken":"st","output":{"resolvesGaps":[{"gapId":"g","summary":"s","extra":1}]}}`, false},
	{`{"stateToken":"st","output":{"artifacts":[{"kind":"a","kind":"b"}]}}`, false},
	{`{"stateToken":"st","output":{"artifacts":[{"n":1e999}]}}`, false},
	{`{"stateToken":"st","output":{"notes":"x"}}`, false},
}

// TestReadExactAgreesWithTheLongWay: what readExact takes, parseLong
// takes too, into the same value; what it leaves is refused or read by
// parseLong.
func TestReadExactAgreesWithTheLongWay(t *testing.T) {
	for _, c := range exactCases {
		agreeInputs(t, c.raw, c.take, new(StartInput), new(StartInput), ToolStart)
	}
	for _, c := range continueCases {
		agreeInputs(t, c.raw, c.take, new(ContinueInput), new(ContinueInput), ToolContinue)
	}
}

func agreeInputs(t *testing.T, raw string, take bool, fast, long any, tool ToolName) {
	t.Helper()
	got := readExact([]byte(raw), fast)
	if got != take {
		t.Errorf("readExact(%s) = %v, want %v", raw, got, take)
	}
	if !got {
		return
	}
	if e := parseLong([]byte(raw), long, tool); e != nil {
		t.Errorf("readExact took %s, which the long way refuses: %v", raw, e)
		return
	}
	if !reflect.DeepEqual(fast, long) {
		t.Errorf("%s:\nreadExact %#v\nlong way  %#v", raw, fast, long)
	}
}

// FuzzReadExact holds readExact to the long way on any input: whatever it
// takes, parseLong takes into the same value, and whatever parseLong
// takes, it takes. While the hand-written reader it replaced
// (oldReadExact) is kept, it holds readExact to that too: whatever the
// old one took, the new one takes into the same value.
func FuzzReadExact(f *testing.F) {
	for _, c := range exactCases {
		f.Add(c.raw)
	}
	for _, c := range continueCases {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var fast, long, old ContinueInput
		took := readExact([]byte(raw), &fast)
		longErr := parseLong([]byte(raw), &long, ToolContinue)
		if took && longErr != nil {
			t.Fatalf("readExact took %q, which the long way refuses: %v", raw, longErr)
		}
		if !took && longErr == nil {
			t.Fatalf("readExact declined %q, which the long way takes", raw)
		}
		if took && !reflect.DeepEqual(fast, long) {
			t.Fatalf("%q:\nreadExact %#v\nlong way  %#v", raw, fast, long)
		}
		if oldReadExact([]byte(raw), &old) && (!took || !reflect.DeepEqual(fast, old)) {
			t.Fatalf("%q: the old reader took it as %#v; readExact %v, %#v", raw, old, took, fast)
		}
	})
}

// BenchmarkParseContinue measures parsing an advance's arguments as an
// agent sends them: the one pass (readExact, over json/v2), the
// hand-written one pass it replaced, and the long way.
func BenchmarkParseContinue(b *testing.B) {
	raw := []byte(`{"stateToken":"st.v1.AQEBAQKRAy6oN77g9FndeMhYODDe","ackToken":"ack.v1.AgEBAQIA89VMB2RJYdVHwW_32j5LEQ",` +
		`"output":{"notesMarkdown":"Read the three files and noted what each exports; the parser is the one to change.",` +
		`"artifacts":[{"kind":"wr.review_verdict","verdict":"approve","findings":[{"file":"a.go","line":12}]}]},"context":{"env":"dev","n":3}}`)
	for _, c := range []struct {
		name  string
		parse func([]byte, any, ToolName) *engine.Error
	}{{"one-pass", parseArgs}, {"old-one-pass", func(raw []byte, v any, _ ToolName) *engine.Error {
		if !oldReadExact(raw, v) {
			return engine.Errorf(engine.CodeInternal, "declined")
		}
		return nil
	}}, {"long-way", parseLong}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var in ContinueInput
				if e := c.parse(raw, &in, ToolContinue); e != nil {
					b.Fatal(e)
				}
			}
		})
	}
}
