package sources

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// A reference a workflow reads from its package (resolveFrom "package")
// names a document of the TypeScript WorkRail package its file came with
// (spec/…, docs/…). A library read from a folder holds that package when
// the folder is the package or one of its folders (its workflows/): the
// document is then looked for in the source folder and in the folder
// above it, and the agent is given its path, or told where it was looked
// for.

// placeRefs fills in where each package reference of the entries read
// from folders is, within the read deadline: a regular file under one of
// the candidate roots, never outside it.
func (r *Registry) placeRefs(entries []catalog.Entry) {
	for i := range entries {
		e := &entries[i]
		if e.Source.Kind == catalog.Bundled || e.Source.Path == "" || !hasPackageRefs(e.Compiled.References) {
			continue
		}
		places, err := within(&r.stuck, "\x00refs "+e.File, r.timeout, func() ([]catalog.RefPlace, error) {
			return placesOf(e.Compiled.References, packageRoots(e.Source)), nil
		})
		if err == nil {
			e.RefPlaces = places
		}
	}
}

func hasPackageRefs(refs []workflow.Reference) bool {
	for _, ref := range refs {
		if ref.ResolveFrom == workflow.FromPackage {
			return true
		}
	}
	return false
}

// packageRoots are the folders a source folder's package may be rooted
// at: the folder itself, and the folder above it. A repository's folder
// is the copy WorkRail fetched of it, and the folder above that is
// WorkRail's own storage (other repositories' copies): only the copy is
// the package.
func packageRoots(src catalog.Source) []string {
	dir := filepath.Clean(src.Path)
	if parent := filepath.Dir(dir); parent != dir && src.Kind != catalog.Repo {
		return []string{dir, parent}
	}
	return []string{dir}
}

func placesOf(refs []workflow.Reference, roots []string) []catalog.RefPlace {
	var out []catalog.RefPlace
	for _, ref := range refs {
		if ref.ResolveFrom != workflow.FromPackage {
			continue
		}
		p := catalog.RefPlace{ID: ref.ID}
		for _, root := range roots {
			path := filepath.Join(root, filepath.FromSlash(ref.Source))
			if !strings.HasPrefix(path, root+string(filepath.Separator)) {
				continue // a source that climbs out of the package is never read
			}
			if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
				p.Path, p.LookedIn = path, nil
				break
			}
			p.LookedIn = append(p.LookedIn, path)
		}
		out = append(out, p)
	}
	return out
}
