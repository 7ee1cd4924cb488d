package workflows_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/engine/workflow/legacy"
	"github.com/workrail/workrail/workflows"
)

// legacyDir holds workflow files in the TypeScript WorkRail's format, one
// per construct and a few mixed ones, with their routines in routines/
// (README.md there says what each covers).
var legacyDir = filepath.Join("testdata", "legacy")

// legacyWant is what loading each fixture from a user folder must give:
// the id it loads under, its kind, and the codes of its warnings — a
// LEGACY_FORMAT notice counts as its rewrite's code, any other notice as
// its own code.
var legacyWant = map[string]struct {
	id    string
	kind  workflow.Kind
	codes []string
}{
	"assessments.json":          {"legacy.assessments", workflow.KindWorkflow, []string{"DIMENSION_REQUIRED"}},
	"conditions.json":           {"legacy.conditions", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "NOT_EQUALS"}},
	"confirmation.json":         {"legacy.confirmation", workflow.KindWorkflow, []string{"CONFIRMATION_GATE", "CONTEXT_SYNTHESIZED", "NOT_EQUALS"}},
	"dotless.json":              {"dotless-fixture", workflow.KindWorkflow, []string{"LEGACY_WORKFLOW_ID"}},
	"edge-shapes.json":          {"legacy.edge-shapes", workflow.KindWorkflow, []string{"ARRAY_OPERAND", "ARTIFACT_WHILE", "CONTEXT_SYNTHESIZED", "CONTEXT_WHILE", "EMPTY_CONDITION", "GOAL_FROM_TITLE", "LOOP_TYPE", "OUTPUT_OPTIONAL_HINT", "OUTPUT_OPTIONAL_KEPT", "OUTPUT_REQUIRED_LIST", "SPEC_VERSION_DROPPED", "STEP_TYPE_DROPPED"}},
	"features.json":             {"legacy.features", workflow.KindWorkflow, []string{"FEATURE_ORDER_FIXED", "SPEC_VERSION_DROPPED"}},
	"functions.json":            {"legacy.functions", workflow.KindWorkflow, []string{"FUNCTION_REF_PARENS"}},
	"guidance.json":             {"legacy.guidance", workflow.KindWorkflow, []string{"ASK_FOR_FILES_DROPPED", "HAS_VALIDATION_DROPPED", "MODEL_TIER_DROPPED"}},
	"loop-foreach.json":         {"legacy.loop-foreach", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "FOREACH_VARS", "LOOP_TYPE"}},
	"loop-run-condition.json":   {"legacy.loop-run-condition", workflow.KindWorkflow, []string{"ARTIFACT_WHILE", "CONTEXT_SYNTHESIZED", "FOREACH_VARS", "LOOP_KEY_DROPPED", "LOOP_TYPE", "NOT_EQUALS", "OUTPUT_CONTRACT"}},
	"loop-while-artifact.json":  {"legacy.loop-while-artifact", workflow.KindWorkflow, []string{"ARTIFACT_WHILE", "LOOP_TYPE", "OUTPUT_CONTRACT"}},
	"loop-while-implicit.json":  {"legacy.loop-while-implicit", workflow.KindWorkflow, []string{"ARTIFACT_WHILE", "LOOP_TYPE", "OUTPUT_CONTRACT"}},
	"metadata.json":             {"legacy.metadata", workflow.KindWorkflow, []string{"MODEL_TIER_DROPPED", "PREFERENCES_RENAMED", "SPEC_VERSION_DROPPED"}},
	"mixed-course-builder.json": {"legacy.course-builder", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "DELEGATION_RETARGETED", "FOREACH_VARS", "FUNCTION_REF_PARENS", "LOOP_TYPE", "OUTPUT_CONTRACT", "OUTPUT_REQUIRED_LIST", "PARALLEL_STEP", "PROMPT_PARTS_JOINED", "PROMPT_REF_INLINED"}},
	"mixed-incident-review.json": {"incident-review", workflow.KindWorkflow, []string{"ARTIFACT_WHILE", "CONTEXT_SYNTHESIZED", "LEGACY_WORKFLOW_ID", "LOOP_TYPE", "NOT_EQUALS", "OUTPUT_CONTRACT",
		"OUTPUT_REQUIRED_LIST", "PREFERENCES_RENAMED", "PROMPT_PARTS_JOINED", "PROMPT_REF_INLINED", "TEMPLATE_CALL"}},
	"mixed-platform-migration.json": {"user.platform-migration", workflow.KindWorkflow, []string{"ARTIFACT_WHILE", "CONFIRMATION_GATE", "CONTEXT_SYNTHESIZED", "DELEGATION_RETARGETED", "FEATURE_ORDER_FIXED", "FOREACH_VARS",
		"FUNCTION_REF_PARENS", "LOOP_TYPE", "NOT_EQUALS", "OUTPUT_CONTRACT", "OUTPUT_REQUIRED_LIST", "PARALLEL_STEP", "PREFERENCES_RENAMED", "PROMPT_PARTS_JOINED",
		"PROMPT_REF_INLINED", "RESERVED_ID_RENAMED", "SPEC_VERSION_DROPPED", "TEMPLATE_CALL"}},
	"notes-optional.json":                     {"legacy.notes-optional", workflow.KindWorkflow, []string{"SPEC_VERSION_DROPPED"}},
	"output-contracts.json":                   {"legacy.output-contracts", workflow.KindWorkflow, []string{"OUTPUT_CONTRACT"}},
	"parallel.json":                           {"legacy.parallel", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "DELEGATION_RETARGETED", "PARALLEL_STEP"}},
	"prompt-blocks.json":                      {"legacy.prompt-blocks", workflow.KindWorkflow, []string{"OUTPUT_REQUIRED_LIST", "PROMPT_PARTS_JOINED", "PROMPT_REF_INLINED"}},
	"prompt-fragments.json":                   {"legacy.prompt-fragments", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "FOREACH_VARS", "LOOP_TYPE"}},
	"template-call.json":                      {"legacy.template-call", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "NOT_EQUALS", "ROUTINE_ARG_UNUSED", "TEMPLATE_CALL"}},
	"templates.json":                          {"legacy.templates", workflow.KindWorkflow, []string{"FORMAT_BY_CONSTRUCT"}},
	"validation.json":                         {"legacy.validation", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "CRITERIA_WRAPPED", "HAS_VALIDATION_DROPPED"}},
	"wr-id.json":                              {"user.fixture-reserved-claim", workflow.KindWorkflow, []string{"FORMAT_BY_CONSTRUCT", "RESERVED_ID_RENAMED"}},
	"loop-iteration-vars.json":                {"legacy.loop-iteration-vars", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "CONTEXT_WHILE", "ITERATION_VAR", "LOOP_TYPE", "NOT_EQUALS"}},
	"loop-count-var.json":                     {"legacy.loop-count-var", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED", "COUNT_VAR", "LOOP_TYPE"}},
	"loop-body-by-id.json":                    {"legacy.loop-body-by-id", workflow.KindWorkflow, []string{"BODY_STEP_MOVED", "LOOP_TYPE"}},
	"loop-until.json":                         {"legacy.loop-until", workflow.KindWorkflow, []string{"ARTIFACT_WHILE", "CONTEXT_SYNTHESIZED", "LOOP_TYPE", "OUTPUT_CONTRACT", "UNTIL_PRECHECKED"}},
	"function-refs.json":                      {"legacy.function-refs", workflow.KindWorkflow, []string{"FUNCTION_CALLS_DROPPED", "FUNCTION_REF_PARENS", "FUNCTION_REF_UNDEFINED"}},
	"virtual-steps.json":                      {"legacy.virtual-steps", workflow.KindWorkflow, []string{"DELEGATION_RETARGETED", "OUTPUT_CONTRACT", "PARALLEL_STEP", "VIRTUAL_STEP"}},
	"contract-and-assessments.json":           {"legacy.contract-and-assessments", workflow.KindWorkflow, []string{"OUTPUT_CONTRACT"}},
	"skipped-reconsidered.json":               {"legacy.skipped-reconsidered", workflow.KindWorkflow, []string{"CONTEXT_SYNTHESIZED"}},
	"canonical/skipped-stays-skipped.json":    {"canonical.skipped-stays-skipped", workflow.KindWorkflow, nil},
	"canonical/loop-iteration-vars.json":      {"canonical.loop-iteration-vars", workflow.KindWorkflow, nil},
	"canonical/loop-count-var.json":           {"canonical.loop-count-var", workflow.KindWorkflow, nil},
	"canonical/loop-until.json":               {"canonical.loop-until", workflow.KindWorkflow, nil},
	"canonical/contract-and-assessments.json": {"canonical.contract-and-assessments", workflow.KindWorkflow, nil},
	"routines/checklist-pass.json":            {"user.routine-checklist-pass", workflow.KindRoutine, []string{"CONTEXT_SYNTHESIZED", "RESERVED_ID_RENAMED", "ROUTINE_KIND_FROM_ID"}},
	"routines/quick-scan.json":                {"routine-quick-scan", workflow.KindRoutine, []string{"LEGACY_WORKFLOW_ID", "ROUTINE_KIND_FROM_ID"}},
	"routines/second-opinion.json":            {"user.routine-second-opinion", workflow.KindRoutine, []string{"RESERVED_ID_RENAMED", "ROUTINE_KIND_FROM_ID"}},
}

// legacyFiles reads every fixture and routine, named relative to
// legacyDir, fixtures first.
func legacyFiles(tb testing.TB) []catalog.File {
	tb.Helper()
	var files []catalog.File
	for _, pattern := range []string{"*.json", filepath.Join("routines", "*.json"), filepath.Join("canonical", "*.json")} {
		names, err := filepath.Glob(filepath.Join(legacyDir, pattern))
		if err != nil {
			tb.Fatal(err)
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				tb.Fatal(err)
			}
			rel, _ := filepath.Rel(legacyDir, n)
			files = append(files, catalog.File{Name: filepath.ToSlash(rel), Data: b})
		}
	}
	if len(files) == 0 {
		tb.Fatal("no fixtures in " + legacyDir)
	}
	return files
}

// loadLegacy loads the fixtures and routines as one set from a user
// folder, routine calls resolving among them and the bundled routines.
func loadLegacy(tb testing.TB) ([]catalog.Entry, []catalog.LoadProblem) {
	tb.Helper()
	bundled, problems := catalog.LoadFS(workflows.FS, catalog.Source{Kind: catalog.Bundled})
	if len(problems) > 0 {
		tb.Fatalf("bundled: %v", problems)
	}
	return catalog.LoadSet(legacyFiles(tb), catalog.Source{Kind: catalog.User, Path: legacyDir}, catalog.RoutinesOf(bundled))
}

// warningCodes are an entry's warnings as legacyWant names them, sorted
// and distinct.
func warningCodes(e catalog.Entry) []string {
	var codes []string
	for _, n := range e.Warnings {
		c := string(n.Code)
		if n.Code == event.NoticeLegacyFormat {
			c = string(n.Rewrite)
		}
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	return codes
}

// TestLegacyFixturesLoad: every fixture and routine loads from a user
// folder under the id, kind and warnings the table says; each legacy
// warning points into the file; the compiled form records the dialect and
// the rewrites exactly when there were any; and together the fixtures
// reach every rewrite code the normalizer has.
func TestLegacyFixturesLoad(t *testing.T) {
	entries, problems := loadLegacy(t)
	for _, p := range problems {
		t.Errorf("%s does not load: %v", p.File, p.Problems)
	}
	reached := map[string]bool{}
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.File] = true
		want, ok := legacyWant[e.File]
		if !ok {
			t.Errorf("%s is not in legacyWant", e.File)
			continue
		}
		if string(e.Compiled.ID) != want.id || e.Compiled.Kind != want.kind {
			t.Errorf("%s loads as %s (%s), want %s (%s)", e.File, e.Compiled.ID, e.Compiled.Kind, want.id, want.kind)
		}
		codes := warningCodes(e)
		if !slices.Equal(codes, want.codes) {
			t.Errorf("%s warns %v\nwant %v", e.File, codes, want.codes)
		}
		var rewrites []string
		for _, n := range e.Warnings {
			if n.Code != event.NoticeLegacyFormat {
				continue
			}
			reached[string(n.Rewrite)] = true
			if !slices.Contains(rewrites, string(n.Rewrite)) {
				rewrites = append(rewrites, string(n.Rewrite))
			}
			if !strings.HasPrefix(n.Pointer, "/") || n.Message == "" {
				t.Errorf("%s: a %s warning without a pointer or a message: %+v", e.File, n.Rewrite, n)
			}
		}
		sort.Strings(rewrites)
		if legacyDialect := len(rewrites) > 0; legacyDialect != (e.Compiled.Dialect == compile.DialectTS) || !slices.Equal(e.Compiled.Rewrites, rewrites) {
			t.Errorf("%s compiled with dialect %q and rewrites %v; its warnings name %v", e.File, e.Compiled.Dialect, e.Compiled.Rewrites, rewrites)
		}
	}
	for name := range legacyWant {
		if !seen[name] && !slices.ContainsFunc(problems, func(p catalog.LoadProblem) bool { return p.File == name }) {
			t.Errorf("legacyWant names %s, which is not a fixture", name)
		}
	}
	for _, c := range legacy.Codes() {
		if !reached[string(c)] {
			t.Errorf("no fixture reaches rewrite %s: add a construct that needs it to a fixture in %s", c, legacyDir)
		}
	}
}

// TestLegacyLargestFixtureSize: the large mixed fixture stays the size of
// the largest file in the TypeScript library, which the compile and
// daemon-start benchmarks assume: about 90 KB, 36 steps once its routine
// calls expand.
func TestLegacyLargestFixtureSize(t *testing.T) {
	e := largestLegacy(t)
	if n := len(e.Text); n < 85<<10 || n > 100<<10 {
		t.Errorf("%s is %d bytes, want about 90 KB", e.File, n)
	}
	if n := countSteps(e.Compiled.Steps); n != 36 {
		t.Errorf("%s compiles to %d steps, want 36", e.File, n)
	}
}

func largestLegacy(tb testing.TB) catalog.Entry {
	tb.Helper()
	entries, problems := loadLegacy(tb)
	for _, e := range entries {
		if e.File == "mixed-platform-migration.json" {
			return e
		}
	}
	tb.Fatalf("mixed-platform-migration.json did not load: %v", problems)
	return catalog.Entry{}
}

// countSteps counts the steps of a compiled step list, loop bodies
// included (each once).
func countSteps(nodes []compile.Node) int {
	n := 0
	for _, x := range nodes {
		if x.Loop != nil {
			n += countSteps(x.Loop.Body)
			continue
		}
		n++
	}
	return n
}

// TestLegacyCompiledGolden compares each fixture's compiled canonical JSON
// (indented) with testdata/legacy-compiled/<file>: any change to what the
// normalizer or the compiler makes of the format shows as a reviewable
// diff. Refresh with: go test ./workflows -run TestLegacyCompiledGolden -update
func TestLegacyCompiledGolden(t *testing.T) {
	entries, problems := loadLegacy(t)
	if len(problems) > 0 {
		t.Fatalf("%d fixture(s) do not load (TestLegacyFixturesLoad says which)", len(problems))
	}
	dir := filepath.Join("testdata", "legacy-compiled")
	want := map[string]bool{}
	for _, e := range entries {
		name := strings.ReplaceAll(e.File, "/", "--")
		want[name] = true
		var got bytes.Buffer
		if err := json.Indent(&got, e.Compiled.Canonical, "", "  "); err != nil {
			t.Fatal(err)
		}
		got.WriteByte('\n')
		golden.Check(t, filepath.Join(dir, name), got.Bytes())
	}
	files, _ := os.ReadDir(dir)
	for _, g := range files {
		if !want[g.Name()] {
			t.Errorf("%s/%s has no fixture; delete it", dir, g.Name())
		}
	}
}

// BenchmarkCompileLegacyLargest reads (normalizes), checks and compiles
// the ~90 KB fixture of the TypeScript format, its two routine calls
// expanding to 36 steps in all, and hashes it: what a daemon does for
// such a file it has not cached (goal: 5 ms or less). Beside ns/op it
// reports the median op, which a busy machine disturbs less.
func BenchmarkCompileLegacyLargest(b *testing.B) {
	e := largestLegacy(b)
	entries, _ := loadLegacy(b)
	routines := catalog.RoutinesOf(entries)
	src := catalog.Source{Kind: catalog.User, Path: legacyDir}
	b.SetBytes(int64(len(e.Text)))
	b.ReportAllocs()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		c, p := catalog.LoadWith(e.Text, src, e.File, routines)
		ds = append(ds, time.Since(t0))
		if p != nil {
			b.Fatal(p)
		}
		if c.Compiled.Hash != e.Compiled.Hash {
			b.Fatal("the same file compiled to another hash")
		}
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
}
