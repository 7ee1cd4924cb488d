package console

import (
	"net/http"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
)

// Every reason a workflow file is not written has its own status: what
// the reader can do about it, never a 500.
func TestWriteStatusCoversEveryKind(t *testing.T) {
	want := map[catalog.WriteErrorKind]int{
		catalog.WriteConflict:    http.StatusConflict,
		catalog.WriteExists:      http.StatusConflict,
		catalog.WriteInvalid:     http.StatusUnprocessableEntity,
		catalog.WriteBadName:     http.StatusUnprocessableEntity,
		catalog.WriteNotWritable: http.StatusForbidden,
	}
	for _, k := range catalog.WriteErrorKinds() {
		status, ok := want[k]
		if !ok {
			t.Errorf("write error kind %q has no status here: add it to writeStatus and this table", k)
			continue
		}
		if got := writeStatus(k); got != status {
			t.Errorf("writeStatus(%q) = %d; want %d", k, got, status)
		}
	}
	if len(want) != len(catalog.WriteErrorKinds()) {
		t.Errorf("the table names %d kinds; catalog.WriteErrorKinds has %d", len(want), len(catalog.WriteErrorKinds()))
	}
}
