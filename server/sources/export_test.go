package sources

import (
	"os"
	"time"
)

// SetOpen makes r open workflow files with open and wait at most timeout
// for each file or folder, so tests can make reads slow.
func SetOpen(r *Registry, timeout time.Duration, open func(path string) (*os.File, error)) {
	r.timeout, r.open = timeout, open
}

// OpenFile is how a Registry opens a workflow file.
var OpenFile = openFile

// ReadAtMost is readAtMost.
var ReadAtMost = readAtMost

// ReadTimeout is how long a Registry waits for one file or folder.
const ReadTimeout = readTimeout

// SetBudget makes r load at most bytes of each folder's workflows and
// compile a folder's files for at most d on one call.
func SetBudget(r *Registry, bytes int, d time.Duration) {
	r.folderBytes, r.compileTime = bytes, d
}

// PackageRoots is packageRoots.
var PackageRoots = packageRoots
