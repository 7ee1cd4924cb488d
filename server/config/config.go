// Package config owns config.json: the desired configuration a person
// writes, checked against its published JSON Schema; the configuration a
// running daemon applies and its appliedConfigHash; and the closed
// classification of every key as restart-required or runtime-safe, by which
// a difference between the two is either applied live or waits for a
// restart. It adapts a JSON file a person edits to the settings the
// wiring hands the daemon's parts.
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/giturl"
)

// Schema is config.json's JSON Schema, published by `workrail config
// schema` and the Console.
//
//go:embed config.schema.json
var Schema []byte

// Config is a whole configuration: every key has a value (defaults fill
// what the file leaves out), so two configs compare key by key and hash
// the same whenever they mean the same.
type Config struct {
	WorkflowPaths []string `json:"workflowPaths"`
	// WorkflowRepos are git repositories of workflows, after the folders
	// (a later one wins an id two of them define).
	WorkflowRepos []Repo `json:"workflowRepos"`
	// WorkflowReposSyncMinutes is how often the daemon fetches them; 0
	// fetches only a repository it holds no copy of, and when asked.
	WorkflowReposSyncMinutes int                  `json:"workflowReposSyncMinutes"`
	Features                 Features             `json:"features"`
	DefaultMode              outcome.ModeID       `json:"defaultMode"`
	DefaultPreferences       workflow.Preferences `json:"defaultPreferences"`
	RetentionDays            int                  `json:"retentionDays"`
	Port                     int                  `json:"port"`
	Console                  Console              `json:"console"`
}

// Repo is one repository of workflows: its address (which may carry
// credentials: never shown, see Shown), the branch, tag or commit
// followed (the remote's default branch when empty), and the folder of
// the repository its workflows are in (its top when empty).
type Repo struct {
	URL  string `json:"url"`
	Ref  string `json:"ref,omitempty"`
	Path string `json:"path,omitempty"`
}

// Shown is r with its address's credentials left out: what a page, a
// log line or `workrail config` may show.
func (r Repo) Shown() Repo {
	r.URL = giturl.Shown(r.URL)
	return r
}

// Features are the flags that gate tools.
type Features struct {
	CheckpointWorkflow bool `json:"checkpoint_workflow"`
	ResumeSession      bool `json:"resume_session"`
	StartSession       bool `json:"start_session"`
}

// Console is how the Console presents things.
type Console struct {
	PageSize    int `json:"pageSize"`
	PollSeconds int `json:"pollSeconds"`
}

// DefaultPort is where the Console and HTTP MCP endpoint listen unless
// config.json, WORKRAIL_PORT or --port say otherwise.
const DefaultPort = 7421

// Defaults is the configuration of an empty config.json.
func Defaults() Config {
	return Config{
		WorkflowPaths:            []string{},
		WorkflowRepos:            []Repo{},
		WorkflowReposSyncMinutes: 15,
		Features:                 Features{CheckpointWorkflow: true, ResumeSession: true},
		DefaultMode:              outcome.ModeGuided,
		RetentionDays:            60,
		Port:                     DefaultPort,
		Console:                  Console{PageSize: 50, PollSeconds: 2},
	}
}

// Preferences are the global default preferences new sessions copy: the
// default mode's, with defaultPreferences laid over them.
func (c Config) Preferences() workflow.Preferences {
	p, _ := outcome.Preset(c.DefaultMode)
	return outcome.Apply(p, c.DefaultPreferences)
}

// Hash is the appliedConfigHash of c: sha256 of its RFC 8785 canonical
// JSON, as "sha256:<hex>".
func (c Config) Hash() string {
	_, d, err := canon.Digest(c)
	if err != nil {
		panic(fmt.Sprintf("config: a Config always encodes: %v", err)) // only plain fields
	}
	return d.String()
}

// Parse reads config.json's bytes over the defaults. An empty file is the
// defaults. A file the schema refuses is an INVALID_INPUT error naming the
// JSON pointer of the first problem; nothing of it is used.
func Parse(b []byte) (Config, *engine.Error) {
	cfg := Defaults()
	if len(bytes.TrimSpace(b)) == 0 {
		return cfg, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return cfg, engine.Errorf(engine.CodeInvalidInput, "config.json is not JSON: %v", err).With("pointer", "")
	}
	if e := check(doc); e != nil {
		return cfg, e
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return Defaults(), engine.Errorf(engine.CodeInvalidInput, "config.json: %v", err).With("pointer", "")
	}
	if cfg.WorkflowPaths == nil {
		cfg.WorkflowPaths = []string{}
	}
	if cfg.WorkflowRepos == nil {
		cfg.WorkflowRepos = []Repo{}
	}
	// The schema's pattern lets through what only reading the address
	// tells apart (plain http to another machine, a file:// host).
	for i, r := range cfg.WorkflowRepos {
		if _, err := giturl.Parse(r.URL); err != nil {
			ptr := fmt.Sprintf("/workflowRepos/%d/url", i)
			return Defaults(), engine.Errorf(engine.CodeInvalidInput, "config.json at %s: %v", ptr, err).With("pointer", ptr)
		}
	}
	return cfg, nil
}

// schema is compiled on first use, not at program start: every workrail
// process (the shim above all) would pay for it.
var schema = sync.OnceValue(compileSchema)

func compileSchema() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		panic(fmt.Sprintf("config: the embedded schema is not JSON: %v", err))
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("config.schema.json", doc); err != nil {
		panic(fmt.Sprintf("config: the embedded schema: %v", err))
	}
	return c.MustCompile("config.schema.json")
}

var printer = message.NewPrinter(language.English)

// check validates a decoded document against the schema. Of several
// problems it reports the first by pointer, so the message is the same
// every time; an unknown key gets the nearest known one as a suggestion.
func check(doc any) *engine.Error {
	err := schema().Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return engine.Errorf(engine.CodeInvalidInput, "config.json: %v", err)
	}
	type problem struct {
		ptr string
		err *jsonschema.ValidationError
	}
	var leaves []problem
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, problem{pointer(e.InstanceLocation), e})
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].ptr < leaves[j].ptr })
	p := leaves[0]
	if a, ok := p.err.ErrorKind.(*kind.AdditionalProperties); ok {
		return unknownKey(p.ptr + "/" + slices.Sorted(slices.Values(a.Properties))[0])
	}
	at := p.ptr
	if at == "" {
		at = "the top level"
	}
	return engine.Errorf(engine.CodeInvalidInput, "config.json at %s: %s", at, problemText(p.err.ErrorKind)).With("pointer", p.ptr)
}

// problemText says what is wrong; bounds are written as plain numbers
// (the validator's own words group digits: 65,535).
func problemText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("%s is below the minimum, %s", k.Got.RatString(), k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("%s is above the maximum, %s", k.Got.RatString(), k.Want.RatString())
	}
	return k.LocalizedString(printer)
}

// unknownKey is the UNKNOWN_KEY error for the key at ptr, with the
// nearest key beside it as a suggestion.
func unknownKey(ptr string) *engine.Error {
	parent, name := splitPointer(ptr)
	e := engine.Errorf(engine.CodeUnknownKey, "config.json has no key %s; `workrail config` lists the keys", keyName(ptr)).With("pointer", ptr)
	var siblings []string
	for _, k := range Keys() {
		if p, n := splitPointer(k.Pointer()); p == parent {
			siblings = append(siblings, n)
		}
	}
	if s := engine.Closest(name, siblings); s != "" {
		e.Suggestions = []engine.Suggestion{{Path: keyName(ptr), DidYouMean: keyName(parent + "/" + s)}}
	}
	return e
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range loc {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

// splitPointer splits a pointer into its parent and its last name.
func splitPointer(ptr string) (parent, name string) {
	i := strings.LastIndexByte(ptr, '/')
	return ptr[:i], ptr[i+1:]
}

// keyName is a pointer as a dotted key: /console/pageSize → console.pageSize.
func keyName(ptr string) string { return strings.ReplaceAll(strings.TrimPrefix(ptr, "/"), "/", ".") }
