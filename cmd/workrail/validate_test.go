package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestValidateFolderResolvesRoutines: a folder in the TypeScript format
// validates as a set (the routine a workflow calls is found beside it),
// warnings do not fail it, and both files are flagged as refused for new
// files; the caller alone fails for want of its routine.
func TestValidateFolderResolvesRoutines(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mixed.json", "routine.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "engine", "workflow", "legacy", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := runValidate([]string{"--json", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	var res struct {
		Valid bool
		Files []fileReport
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Valid || len(res.Files) != 2 {
		t.Fatalf("result %+v", res)
	}
	for _, f := range res.Files {
		want := []string{refusedLegacyFormat, refusedReservedID}
		if len(f.Warnings) == 0 || !slices.Equal(f.RefusedForNewFiles, want) {
			t.Errorf("%s: warnings %d, refused %v", f.File, len(f.Warnings), f.RefusedForNewFiles)
		}
	}
	out.Reset()
	alone := filepath.Join(dir, "mixed.json")
	if code := runValidate([]string{alone}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	// The problem names the routine, where it was looked for and the fix.
	for _, want := range []string{`calls routine "wr.routine-check", which is not loaded`, "looked for it in " + alone + " and among its bundled routines",
		"Add the folder that holds the routine's file"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the problem lacks %q:\n%s", want, out.String())
		}
	}
}

// TestValidateFolderReadsSubfolders: a folder is read as the daemon reads
// a source folder, subfolders included (a library keeps its routines in
// routines/), but for hidden ones, examples/ and internal/; a routine in
// a subfolder resolves the calls of the files above it.
func TestValidateFolderReadsSubfolders(t *testing.T) {
	dir := t.TempDir()
	for name, target := range map[string]string{"mixed.json": "mixed.json", "routine.json": filepath.Join("routines", "routine.json")} {
		b, err := os.ReadFile(filepath.Join("..", "..", "engine", "workflow", "legacy", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, target)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, target), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, skipped := range []string{".git", "examples", "internal"} {
		if err := os.MkdirAll(filepath.Join(dir, skipped), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, skipped, "broken.json"), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := runValidate([]string{"--json", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	var res struct{ Files []fileReport }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, strings.TrimPrefix(f.File, dir+string(filepath.Separator)))
	}
	if want := []string{"mixed.json", filepath.Join("routines", "routine.json")}; !slices.Equal(files, want) {
		t.Errorf("validated %v, want %v", files, want)
	}
}

func TestValidateFlagsLegacyID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(path, []byte(`{"id":"old-flow","name":"Old","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p"}]}`), 0o644)
	var out, errOut bytes.Buffer
	if code := runValidate([]string{path}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "refused for new files: "+refusedLegacyID) {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

// TestValidateSaysWhatAFileExpandsTo: a file over the limits of a
// workflow fails validation with its place and what it expands to.
func TestValidateSaysWhatAFileExpandsTo(t *testing.T) {
	dir := t.TempDir()
	calls := make([]string, 501)
	for i := range calls {
		calls[i] = `{"id":"c` + strconv.Itoa(i) + `","title":"Call","template":{"id":"user.pair"}}`
	}
	os.WriteFile(filepath.Join(dir, "pair.json"), []byte(`{"id":"user.pair","kind":"routine","name":"Pair","description":"d","version":"1",
"steps":[{"id":"a","title":"A","prompt":"Do a."},{"id":"b","title":"B","prompt":"Do b."}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "calls.json"), []byte(`{"id":"user.calls","name":"Calls","description":"d","version":"1","steps":[
`+strings.Join(calls, ",\n")+`]}`), 0o644)
	var out, errOut bytes.Buffer
	want := "calls.json:502:1: /steps/500: expands to 1,002 steps once its routine calls are expanded, over the limit of 1,000"
	if code := runValidate([]string{dir}, &out, &errOut); code != 1 || !strings.Contains(out.String(), want) {
		t.Fatalf("exit %d: %s; want %q", code, out.String(), want)
	}
}
