package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Class is the closed set of ways a changed key takes effect.
type Class string

// The classes. Seed §6 locks them: a change is runtime-safe only if it
// changes read-only presentation or the retention of data; anything else —
// the tool set, a tool's schema, which workflow sources are registered, a
// flag that gates tools — is restart-required, because an MCP client learns
// the tools once, when it connects.
const (
	RestartRequired Class = "restart_required"
	RuntimeSafe     Class = "runtime_safe"
)

// Key is one setting of config.json: where it is, how a change to it takes
// effect and why, and how to read it from a Config.
type Key struct {
	Name  string // dotted: console.pageSize
	Class Class
	// Why says what the key governs, in the words the Console shows.
	Why string
	get func(Config) any
	// show is what of the value may be shown, when not all of it may (an
	// address's credentials); nil shows it whole.
	show func(any) any
	// apply copies the key from src onto dst; runtime-safe keys only.
	apply func(dst *Config, src Config)
}

// Pointer is the key's JSON pointer in config.json.
func (k Key) Pointer() string { return "/" + strings.ReplaceAll(k.Name, ".", "/") }

// Value is the key's value in c as JSON text, as it may be shown: a
// repository address without its credentials.
func (k Key) Value(c Config) string {
	v := k.get(c)
	if k.show != nil {
		v = k.show(v)
	}
	return encode(k, v)
}

// differs reports whether the key's value in a and b differs, credentials
// included: a new token takes a restart too.
func (k Key) differs(a, b Config) bool { return encode(k, k.get(a)) != encode(k, k.get(b)) }

func encode(k Key, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("config: key %s: %v", k.Name, err)) // plain fields always encode
	}
	return string(b)
}

// Keys lists every key in the order `workrail config` and the Console show
// them. A test holds it to the Config struct and to the schema: a field
// without a key (so without a class) fails.
func Keys() []Key {
	restart := func(name, why string, get func(Config) any) Key {
		return Key{Name: name, Class: RestartRequired, Why: why, get: get}
	}
	// Every runtime-safe key is a number; field names where it is.
	live := func(name, why string, field func(*Config) *int) Key {
		return Key{Name: name, Class: RuntimeSafe, Why: why,
			get:   func(c Config) any { return *field(&c) },
			apply: func(dst *Config, src Config) { *field(dst) = *field(&src) }}
	}
	return []Key{
		restart("workflowPaths", "source registration: which workflows can be listed and started",
			func(c Config) any { return c.WorkflowPaths }),
		{Name: "workflowRepos", Class: RestartRequired, Why: "source registration: which repositories workflows are fetched from",
			get: func(c Config) any { return c.WorkflowRepos }, show: func(v any) any {
				out := []Repo{}
				for _, r := range v.([]Repo) {
					out = append(out, r.Shown())
				}
				return out
			}},
		restart("workflowReposSyncMinutes", "how often the daemon fetches workflowRepos: neither presentation nor retention, so read at start",
			func(c Config) any { return c.WorkflowReposSyncMinutes }),
		restart("features.checkpoint_workflow", "feature flag: gates the checkpoint_workflow tool",
			func(c Config) any { return c.Features.CheckpointWorkflow }),
		restart("features.resume_session", "feature flag: gates the resume_session tool",
			func(c Config) any { return c.Features.ResumeSession }),
		restart("features.start_session", "feature flag: gates the start_session tool",
			func(c Config) any { return c.Features.StartSession }),
		restart("defaultMode", "what new sessions are allowed to do alone: not presentation or retention",
			func(c Config) any { return c.DefaultMode }),
		restart("defaultPreferences.autonomy", "laid over defaultMode for new sessions (\"\": the mode's)",
			func(c Config) any { return c.DefaultPreferences.Autonomy }),
		restart("defaultPreferences.riskPolicy", "laid over defaultMode for new sessions (\"\": the mode's)",
			func(c Config) any { return c.DefaultPreferences.RiskPolicy }),
		restart("port", "where MCP clients and the Console reach the daemon: bound at start",
			func(c Config) any { return c.Port }),
		live("retentionDays", "retention: how long idle sessions are kept",
			func(c *Config) *int { return &c.RetentionDays }),
		live("console.pageSize", "presentation: items per page in every Console list",
			func(c *Config) *int { return &c.Console.PageSize }),
		live("console.pollSeconds", "presentation: how often open pages look for changes",
			func(c *Config) *int { return &c.Console.PollSeconds }),
	}
}

// Lookup returns the key named name (dotted), or the UNKNOWN_KEY error
// with the nearest key as a suggestion.
func Lookup(name string) (Key, *engine.Error) {
	i := slices.IndexFunc(Keys(), func(k Key) bool { return k.Name == name })
	if i < 0 {
		return Key{}, unknownKey("/" + strings.ReplaceAll(name, ".", "/"))
	}
	return Keys()[i], nil
}

// Entry is one key's row in the desired-vs-applied table.
type Entry struct {
	Key     string `json:"key"`
	Class   Class  `json:"class"`
	Why     string `json:"why"`
	Desired string `json:"desired"` // JSON text
	Applied string `json:"applied"` // JSON text
	Differs bool   `json:"differs"`
}

// Compare lists every key with its desired and applied values.
func Compare(desired, applied Config) []Entry {
	keys := Keys()
	out := make([]Entry, len(keys))
	for i, k := range keys {
		out[i] = Entry{Key: k.Name, Class: k.Class, Why: k.Why, Desired: k.Value(desired), Applied: k.Value(applied), Differs: k.differs(desired, applied)}
	}
	return out
}

// ApplyRuntimeSafe returns applied with every runtime-safe key taken from
// desired: what the daemon can put in effect without a restart.
func ApplyRuntimeSafe(applied, desired Config) Config {
	for _, k := range Keys() {
		if k.Class == RuntimeSafe {
			k.apply(&applied, desired)
		}
	}
	return applied
}

// PendingRestart lists the restart-required keys whose desired value is
// not the applied one.
func PendingRestart(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		if e.Differs && e.Class == RestartRequired {
			out = append(out, e.Key)
		}
	}
	return out
}
