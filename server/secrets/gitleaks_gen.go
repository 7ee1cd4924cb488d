//go:build ignore

// gitleaks_gen.go copies gitleaks' default rules (config/gitleaks.toml)
// and its license from the pinned gitleaks module into this folder, where
// rules.go embeds them: `go generate ./server/secrets`, checked by
// `.ci/tasks check-generated`. The go command downloads the module and
// checks it against the checksum database; the rules are copied as they
// are, under a header that says where they come from. To move to another
// gitleaks release, change module, run go generate and read the diff.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// module is the gitleaks release whose rules WorkRail uses.
const module = "github.com/zricethezav/gitleaks/v8@v8.30.1"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gitleaks_gen:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := download(module)
	if err != nil {
		return err
	}
	rules, err := os.ReadFile(filepath.Join(dir, "config", "gitleaks.toml"))
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if err != nil {
		return err
	}
	header := "# gitleaks' default rules, copied by go generate (gitleaks_gen.go) from\n" +
		"# " + module + ", config/gitleaks.toml; do not edit.\n" +
		"# MIT License: gitleaks-LICENSE.txt.\n\n"
	if err := os.WriteFile("gitleaks.toml", append([]byte(header), rules...), 0o644); err != nil {
		return err
	}
	return os.WriteFile("gitleaks-LICENSE.txt", license, 0o644)
}

// download fetches path@version into the module cache and returns its
// folder there.
func download(pathVersion string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", pathVersion).Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil || m.Error != "" || err != nil {
		return "", fmt.Errorf("go mod download %s: %v %s", pathVersion, err, m.Error)
	}
	return m.Dir, nil
}
