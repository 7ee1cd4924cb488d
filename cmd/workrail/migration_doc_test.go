package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow/legacy"
)

// TestMigrationNoteExplainsEveryWarning: docs/migrating-from-typescript.md
// has a row for every rewrite the legacy reader reports and for every
// load warning code a file from the TypeScript WorkRail can get, so a
// code added without words fails here.
func TestMigrationNoteExplainsEveryWarning(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "migrating-from-typescript.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := []string{string(event.NoticeLegacyWorkflowID), string(event.NoticeReservedIDRenamed), string(event.NoticeRoutineArgUnused),
		string(event.NoticeDelegationRetargeted)}
	for _, c := range legacy.Codes() {
		want = append(want, string(c))
	}
	for _, code := range want {
		if !strings.Contains(doc, "\n| `"+code+"` | ") {
			t.Errorf("the migration note has no row for %s", code)
		}
	}
	for _, code := range []event.NoticeCode{event.NoticeLegacyFormat, event.NoticeArtifactKindAliased,
		event.NoticeAssessmentLevelNormalized, event.NoticeContextValueCanonicalized} {
		if !strings.Contains(doc, "`"+string(code)+"`") {
			t.Errorf("the migration note does not name %s", code)
		}
	}
}
