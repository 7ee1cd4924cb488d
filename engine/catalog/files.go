package catalog

import (
	"crypto/sha256"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// The rules for writing workflow files, which the Console's editor
// follows and the folder sources enforce: which sources may be written,
// what a file may be called, and the errors a person can act on.

// Writable says whether files of a source kind may be written. Bundled
// workflows are WorkRail's own: they are forked, never edited; a
// repository's are changed in the repository, and fetched.
func Writable(k SourceKind) bool { return k != Bundled && k != Repo }

// FileHash is the sha256 of a workflow file's bytes as an editor loaded
// them: a save replaces the file only while it still has that hash, so an
// edit made on disk meanwhile is never lost.
type FileHash engine.Digest

// HashFile is the hash of a file's bytes.
func HashFile(b []byte) FileHash { return sha256.Sum256(b) }

func (h FileHash) String() string                { return engine.Digest(h).String() }
func (h FileHash) MarshalText() ([]byte, error)  { return engine.Digest(h).MarshalText() }
func (h *FileHash) UnmarshalText(b []byte) error { return (*engine.Digest)(h).UnmarshalText(b) }

// WriteErrorKind is the closed set of reasons a workflow file was not
// written.
type WriteErrorKind string

// Write error kinds.
const (
	// WriteConflict: the file changed since the editor read it.
	WriteConflict WriteErrorKind = "conflict"
	// WriteExists: a new file's name is taken.
	WriteExists WriteErrorKind = "exists"
	// WriteInvalid: the text would not load from its source.
	WriteInvalid WriteErrorKind = "invalid"
	// WriteBadName: the file name is not one a workflow file may have.
	WriteBadName WriteErrorKind = "bad_name"
	// WriteNotWritable: a bundled source, a folder WorkRail does not
	// read, or a file it will not replace.
	WriteNotWritable WriteErrorKind = "not_writable"
)

// WriteErrorKinds lists every write error kind.
func WriteErrorKinds() []WriteErrorKind {
	return []WriteErrorKind{WriteConflict, WriteExists, WriteInvalid, WriteBadName, WriteNotWritable}
}

// WriteError says why a workflow file was not written; nothing was.
type WriteError struct {
	Kind    WriteErrorKind
	Message string
	// Current is the file as it is now (WriteConflict, WriteExists); nil
	// when it is gone.
	Current []byte
	// Problems are why the text does not load (WriteInvalid).
	Problems workflow.Problems
}

func (e *WriteError) Error() string {
	if e.Kind == WriteInvalid && len(e.Problems) > 0 {
		return e.Message + ": " + e.Problems.Error()
	}
	return e.Message
}

// maxNameLen bounds a workflow file's name.
const maxNameLen = 128

var fileName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$`)

// CheckFileName refuses a name that is not a plain *.json file name in
// its folder: no separators, no "..", not hidden, letters, digits, '.',
// '_' and '-' only.
func CheckFileName(name string) error {
	if len(name) > maxNameLen || !fileName.MatchString(name) || strings.Contains(name, "..") {
		return &WriteError{Kind: WriteBadName, Message: "a workflow file is named like my_review.json: at most 128 letters, " +
			"digits, '.', '_' or '-', ending in .json, not starting with '.', no folders"}
	}
	return nil
}

// FileName is the name a new workflow file for id is given.
func FileName(id engine.WorkflowID) string { return string(id) + ".json" }

// CheckText refuses text that would not load from a source of kind:
// everything Validate checks.
func CheckText(text []byte, kind SourceKind) error {
	if _, _, problems := Validate(text, kind); len(problems) > 0 {
		return &WriteError{Kind: WriteInvalid, Message: "the workflow does not load", Problems: problems}
	}
	return nil
}

// WithID is workflow file b with the value of its top-level id replaced
// by id and every other byte kept, so a fork keeps its author's layout.
// It is false when b names no id there.
func WithID(b []byte, id engine.WorkflowID) ([]byte, bool) {
	return withString(b, "id", string(id))
}

// WithName is workflow file b with its top-level name, the name people
// see, replaced by name, as WithID replaces the id.
func WithName(b []byte, name string) ([]byte, bool) {
	return withString(b, "name", name)
}

func withString(b []byte, key, value string) ([]byte, bool) {
	_, start, end := stringValue(b, key)
	if end == 0 {
		return nil, false
	}
	quoted, _ := json.Marshal(value)
	return slices.Concat(b[:start], quoted, b[end:]), true
}
