package e2e

import (
	"testing"

	"github.com/workrail/workrail/store/storetest"
)

// smallDiskHome is a WorkRail home on a tmpfs of the given size: a real
// file system that really runs out of space. Daemons started on it are
// stopped before it is unmounted.
func smallDiskHome(t *testing.T, size string) string {
	t.Helper()
	dir := storetest.SmallDisk(t, size)
	t.Cleanup(func() { killHomeDaemons(t, dir) })
	return dir
}
