package query

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// WithVaults returns a copy of e that knows the vaults' root directories
// (name → absolute path). With them the engine names the vaults a request
// may use, gives results their absolute path, flags citations whose file
// changed since indexing, and quotes context lines from the files
// themselves. Without them (tests) it does none of that.
func (e *Engine) WithVaults(roots map[string]string) *Engine {
	c := *e
	c.roots = roots
	return &c
}

// checkVaults fails with a not-found error for a vault that is not
// configured.
func (e *Engine) checkVaults(vaults []string) error {
	if e.roots == nil {
		return nil
	}
	for _, v := range vaults {
		if _, ok := e.roots[v]; !ok {
			return ipc.NotFound("no vault named %q", v)
		}
	}
	return nil
}

// absPath is the file of vault/rel on disk, "" for an unknown vault.
func (e *Engine) absPath(vault, rel string) string {
	root, ok := e.roots[vault]
	if !ok {
		return ""
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

// isStale reports whether a result's file changed since it was indexed
// (or was removed since the search ranked it), so a citation is flagged
// rather than silently wrong. st is the stat the file was indexed with
// (known false: not kept, the document record decides): a file gone is
// stale, one with the size and time it was indexed with is not (as
// index.Document.Unchanged decides); otherwise the file's hash decides.
// Without the file's absolute path (no vault roots) nothing is stale.
func (e *Engine) isStale(vault, rel, abs string, st index.StoredStat, known bool) bool {
	if abs == "" {
		return false
	}
	if known {
		fi, err := os.Stat(abs)
		if err != nil {
			return true
		}
		if fi.Size() == st.Size && fi.ModTime().UnixNano() == st.ModTime {
			return false
		}
	}
	doc, err := e.ix.Document(vault, rel)
	return err != nil || doc == nil || !doc.Unchanged(abs)
}

// ResolveNote turns a note named by a request — a vault-relative or
// absolute path, with or without its vault — into a vault and a
// vault-relative path. Without a vault, a relative path must be indexed in
// exactly one vault.
func (e *Engine) ResolveNote(vault, p string) (string, string, error) {
	if filepath.IsAbs(p) {
		names := make([]string, 0, len(e.roots))
		for name := range e.roots {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if vault != "" && name != vault {
				continue
			}
			if rel, err := filepath.Rel(e.roots[name], p); err == nil && !strings.HasPrefix(rel, "..") {
				return name, filepath.ToSlash(rel), nil
			}
		}
		return "", "", ipc.NotFound("%s is not inside any configured vault", p)
	}
	p = strings.TrimPrefix(filepath.ToSlash(p), "./")
	if vault != "" {
		if err := e.checkVaults([]string{vault}); err != nil {
			return "", "", err
		}
	}
	var found []string
	for name := range e.roots {
		if vault != "" && name != vault {
			continue
		}
		doc, err := e.ix.Document(name, p)
		if err != nil {
			return "", "", err
		}
		if doc != nil {
			found = append(found, name)
		}
	}
	switch len(found) {
	case 0:
		return e.resolveName(vault, p)
	case 1:
		return found[0], p, nil
	}
	slices.Sort(found)
	return "", "", ipc.BadRequest("%s exists in vaults %s: name one with vault", p, strings.Join(found, ", "))
}

// noteFinder is the part of the index that resolves a note's name.
type noteFinder interface {
	FindNotes(vault, name string) ([]graph.NoteRef, error)
}

// resolveName resolves p as a note's file name, title or alias, when it is
// no indexed path.
func (e *Engine) resolveName(vault, p string) (string, string, error) {
	where := "any vault"
	if vault != "" {
		where = fmt.Sprintf("vault %q", vault)
	}
	nf, ok := e.ix.(noteFinder)
	if !ok {
		if vault != "" {
			return vault, p, nil // the caller finds it is not indexed
		}
		return "", "", ipc.NotFound("%s is not indexed in %s", p, where)
	}
	notes, err := nf.FindNotes(vault, p)
	var none *graph.ErrNoSuchNote
	switch {
	case errors.As(err, &none):
		return "", "", ipc.NotFound("%s is not indexed in %s, and no note has that title, file name or alias", p, where)
	case err != nil:
		return "", "", err
	case len(notes) > 1:
		names := make([]string, len(notes))
		for i, n := range notes {
			names[i] = n.Vault + ": " + n.Path
		}
		return "", "", ipc.BadRequest("%q names several notes (%s): give a path", p, strings.Join(names, ", "))
	}
	return notes[0].Vault, notes[0].Path, nil
}

// readLines returns lines from..to (1-based, inclusive) of a text file,
// joined by "\n". Extracted documents (PDF, ...) have no text lines on
// disk: ok is false for them and the indexed text stands.
func readLines(abs string, from, to int, extracted bool) (string, bool) {
	if abs == "" || extracted || from < 1 || to < from {
		return "", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var b strings.Builder
	for n := 1; sc.Scan(); n++ {
		if n < from {
			continue
		}
		if n > to {
			break
		}
		if n > from {
			b.WriteByte('\n')
		}
		b.Write(sc.Bytes())
		if n == to {
			return b.String(), true
		}
	}
	return "", false
}

// isExtracted reports whether a path's text came from an extractor (its
// lines are not the file's lines).
func isExtracted(rel string) bool { return !index.IsText(rel) }
