package legacy

import "fmt"

// A file both formats can read, for it needs no rewrite, is still one
// written for the TypeScript WorkRail when it uses a construct that
// format introduced (WorkRail's own format took them over later) and
// nothing only WorkRail's own format has: it then runs as there, under
// that format's notes policy and run-time rules. A file that says it is
// WorkRail's own in any way keeps WorkRail's rules.

// tsKeys are the workflow keys the TypeScript format introduced; tsStepKeys
// those of its steps.
var (
	tsKeys     = []string{"metricsProfile", "metaGuidance", "about", "examples", "preconditions", "clarificationPrompts", "references", "functionDefinitions", "assessments"}
	tsStepKeys = []string{"promptFragments", "validationCriteria", "guidance", "functionReferences", "functionDefinitions", "assessmentRefs", "assessmentConsequences", "notesOptional"}
	// ownKeys are what only WorkRail's own format has; ownStepKeys of its
	// steps and loops.
	ownKeys     = []string{"$schema", "context", "notes", "kind", "capabilities", "recommendedPreferences", "contracts"}
	ownStepKeys = []string{"output", "userDependency", "template", "capabilities"}
)

// detect marks a file that needed no rewrite as the TypeScript format's
// when it uses a construct of that format (a key it introduced) and
// nothing only WorkRail's own format has. Its id says nothing either way:
// an id without namespace, or in the wr namespace, has warnings of its
// own.
func (n *normalizer) detect(root *object) {
	if ownFormat(root) {
		return
	}
	ptr, what := tsConstruct(root)
	if ptr == "" {
		return
	}
	n.warn(FormatByConstruct, ptr, "%s came from the TypeScript WorkRail's format, and nothing in the file is only WorkRail's own (such as $schema or context): "+
		"it is read in that format, with its notes policy and run-time rules; add \"$schema\" to read it as WorkRail's own format", what)
}

func ownFormat(root *object) bool {
	for _, k := range ownKeys {
		if root.has(k) {
			return true
		}
	}
	return ownNodes(root.get("steps"))
}

func ownNodes(v any) bool {
	list, _ := v.([]any)
	for _, x := range list {
		o, ok := x.(*object)
		if !ok {
			continue
		}
		for _, k := range ownStepKeys {
			if o.has(k) {
				return true
			}
		}
		if spec := o.obj("loop"); spec != nil && spec.has("kind") || ownNodes(o.get("body")) {
			return true
		}
	}
	return false
}

// tsConstruct finds the first construct of the TypeScript format in root:
// where it is, and its key ("" when there is none).
func tsConstruct(root *object) (ptr, what string) {
	for _, k := range tsKeys {
		if root.has(k) {
			return "/" + k, k
		}
	}
	return tsNodes(root.get("steps"), "/steps")
}

func tsNodes(v any, ptr string) (string, string) {
	list, _ := v.([]any)
	for i, x := range list {
		o, ok := x.(*object)
		if !ok {
			continue
		}
		p := fmt.Sprintf("%s/%d", ptr, i)
		for _, k := range tsStepKeys {
			if o.has(k) {
				return p + "/" + k, k
			}
		}
		if at, what := tsNodes(o.get("body"), p+"/body"); at != "" {
			return at, what
		}
	}
	return "", ""
}
