// Command perf runs every Go benchmark of the module, the end-to-end ones
// (real daemon and shim processes) included, several times, and writes
// docs/performance.md from their output: per package and benchmark the
// median and p99 of the runs, allocations, each benchmark's own metrics,
// the machine and the exact command. It keeps the raw output next to the
// page (docs/performance.txt) for benchstat, and with -old compares an
// earlier raw file with this run through a pinned benchstat. `.ci/tasks
// bench` runs it from the repository's root:
//
//	go run ./e2e/perf -count=6 -pkg=./... -bench=. -throughput=30s
//	go run ./e2e/perf -count=1 -pkg='./store ./e2e' -bench='CommitFloor|MCPThroughput' -throughput=2s -out=/tmp/p.md -raw=/tmp/p.txt
//
// When a benchmark fails it writes nothing under docs/: the partial output
// goes to a temporary file it names.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// benchstat is the pinned benchstat that compares two raw files.
const benchstat = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

// e2ePkg takes the -throughput flag, which the other packages' test
// binaries would refuse.
const e2ePkg = "github.com/workrail/workrail/e2e"

type options struct {
	count      int
	pkgs       string
	bench      string
	throughput time.Duration
	old        string
	out, raw   string
}

func main() {
	var o options
	// Six runs: benchstat gives a confidence interval from six samples up.
	flag.IntVar(&o.count, "count", 6, "how many times each benchmark runs (go test -count)")
	flag.StringVar(&o.pkgs, "pkg", "./...", "the packages, as go list patterns separated by spaces")
	flag.StringVar(&o.bench, "bench", ".", "which benchmarks run (go test -bench)")
	flag.DurationVar(&o.throughput, "throughput", 30*time.Second, "how long e2e's BenchmarkMCPThroughput drives the daemon at each client count")
	flag.StringVar(&o.old, "old", "", "an earlier raw file to compare this run with through benchstat")
	flag.StringVar(&o.out, "out", "docs/performance.md", "the page to write")
	flag.StringVar(&o.raw, "raw", "docs/performance.txt", "where the raw go test output goes")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.count < 1 {
		return errors.New("-count must be at least 1")
	}
	module, err := goOutput("list", "-m")
	if err != nil {
		return err
	}
	commands, err := testCommands(o)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for _, args := range commands {
		fmt.Fprintln(os.Stderr, "perf: go", strings.Join(args, " "))
		cmd := exec.Command("go", args...)
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, os.Stderr), os.Stderr
		if err := cmd.Run(); err != nil {
			return keepPartial(out.Bytes(), fmt.Errorf("go %s: %w", strings.Join(args, " "), err))
		}
	}
	var compared string
	if o.old != "" {
		if compared, err = compare(o.old, out.Bytes()); err != nil {
			return err
		}
	}
	m, err := describe(o, commands)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(o.out), o.raw)
	if err != nil {
		rel = o.raw
	}
	text := page(parse(out.String(), gomaxprocs()), m, o.count, module, filepath.ToSlash(rel), compared)
	if err := os.WriteFile(o.raw, out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(o.out, []byte(text), 0o644)
}

// testCommands are the go test argument lists of the run: one for the
// packages o.pkgs names besides e2e, one for e2e with its own flag.
func testCommands(o options) ([][]string, error) {
	listed, err := goOutput(append([]string{"list"}, strings.Fields(o.pkgs)...)...)
	if err != nil {
		return nil, err
	}
	pkgs := strings.Fields(listed)
	common := []string{"test", "-run=NONE", "-bench=" + o.bench, "-benchmem", "-count=" + strconv.Itoa(o.count), "-timeout=0"}
	var cmds [][]string
	if others := slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool { return p == e2ePkg }); len(others) > 0 {
		cmds = append(cmds, append(slices.Clone(common), others...))
	}
	if slices.Contains(pkgs, e2ePkg) {
		cmds = append(cmds, append(slices.Clone(common), e2ePkg, "-throughput="+o.throughput.String()))
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("-pkg %q names no package", o.pkgs)
	}
	return cmds, nil
}

// keepPartial writes the output of a failed run to a temporary file and
// names it in err.
func keepPartial(out []byte, err error) error {
	f, ferr := os.CreateTemp("", "performance-*.txt")
	if ferr != nil {
		return err
	}
	defer f.Close()
	if _, ferr := f.Write(out); ferr != nil {
		return err
	}
	return fmt.Errorf("%w (nothing written under docs/; the output so far is in %s)", err, f.Name())
}

// compare runs the pinned benchstat on old and this run's output, the
// latter from a temporary file, so old may be the raw file this run is
// about to replace.
func compare(old string, out []byte) (string, error) {
	dir, err := os.MkdirTemp("", "perf-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cur := filepath.Join(dir, "new.txt")
	if err := os.WriteFile(cur, out, 0o600); err != nil {
		return "", err
	}
	args := []string{"run", benchstat, "old=" + old, "new=" + cur}
	stat, err := goOutput(args...)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$ go run %s old=%s new=<this run>\n%s\n", benchstat, old, stat), nil
}

// describe gathers what the page says about the machine and the command.
func describe(o options, commands [][]string) (machine, error) {
	goVer, err := goOutput("env", "GOVERSION", "GOOS", "GOARCH")
	if err != nil {
		return machine{}, err
	}
	kernel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return machine{}, err
	}
	mem, err := memTotal()
	if err != nil {
		return machine{}, err
	}
	m := machine{
		nproc:  runtime.NumCPU(),
		memory: mem,
		goVer:  strings.Join(strings.Fields(goVer), " "),
		kernel: strings.TrimSpace(string(kernel)),
		commit: commit(),
		date:   time.Now().UTC().Format(time.DateOnly),
		command: fmt.Sprintf("go run ./e2e/perf -count=%d -pkg=%s -bench=%s -throughput=%s",
			o.count, shellQuote(o.pkgs), shellQuote(o.bench), o.throughput),
	}
	if o.old != "" {
		m.command += " -old=" + shellQuote(o.old)
	}
	for _, args := range commands {
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = shellQuote(a)
		}
		m.commands = append(m.commands, "go "+strings.Join(quoted, " "))
	}
	return m, nil
}

// memTotal is MemTotal of /proc/meminfo, in GiB.
func memTotal() (string, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				return "", fmt.Errorf("/proc/meminfo: MemTotal %q", v)
			}
			return fmt.Sprintf("%.1f GiB (MemTotal)", kb/(1<<20)), nil
		}
	}
	return "", errors.New("/proc/meminfo has no MemTotal")
}

// commit names the checked-out commit, and says when the tree differed
// from it.
func commit() string {
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown (not a git checkout)"
	}
	c := strings.TrimSpace(string(head))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += " with uncommitted changes"
	}
	return c
}

// gomaxprocs is the GOMAXPROCS the test binaries run with: this
// process's, which the same GOMAXPROCS variable sets, and otherwise the
// same default (since Go 1.25 the CPU limit of the process's cgroup,
// which can be below the machine's CPU count).
func gomaxprocs() int { return runtime.GOMAXPROCS(0) }

func goOutput(args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
