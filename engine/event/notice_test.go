package event_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"

	"github.com/workrail/workrail/engine/event"
)

// NoticeCodes is the closed set the tools' output schemas enumerate: it
// lists every NoticeCode declared in notice.go, in declaration order.
func TestNoticeCodesListsEveryCodeInOrder(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "notice.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []event.NoticeCode
	ast.Inspect(f, func(n ast.Node) bool {
		v, ok := n.(*ast.ValueSpec)
		if !ok || v.Type == nil {
			return true
		}
		if id, ok := v.Type.(*ast.Ident); ok && id.Name == "NoticeCode" {
			for _, val := range v.Values {
				s, err := strconv.Unquote(val.(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				declared = append(declared, event.NoticeCode(s))
			}
		}
		return true
	})
	if len(declared) == 0 || !slices.Equal(event.NoticeCodes(), declared) {
		t.Errorf("NoticeCodes() = %v;\nnotice.go declares %v", event.NoticeCodes(), declared)
	}
}
