// Package graph is the entity graph of the vaults, built from what the
// notes already say: every note is an entity (named by its path, its file
// name and its aliases), every tag is an entity, and every [[wikilink]],
// embed, Markdown link to a local note, #tag and link-valued frontmatter
// field is a relation whose mention is the chunk that holds it. A model may
// add typed entities and facts (enrich.go).
//
// It holds a note's part of the graph as a Record (built by Build from the
// chunker's output, stored by the index as g/<doc>), and the in-memory
// Graph of every searchable note that answers graph queries (read.go) and
// the graph retrieval channel (search.go). The package knows nothing of
// Badger: the index stores the records and keeps the Graph in step with
// every committed write.
package graph

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ragd/ragd/index/chunk"
)

// Like the postings, a document's part of the graph is stored in one
// record, g/<doc>, written and deleted in the same transaction as its
// chunks, so a note's entities, mentions and relations can never be
// orphaned or duplicated. Relations point at a normalised target *name*,
// not at a resolved document: resolution happens when the graph is read,
// so a link to a note that does not exist yet stays unresolved until the
// note appears, and a renamed note's old links become unresolved (or
// re-resolve through an alias) without rewriting any other document.

// Relation types.
const (
	RelLinksTo = "links_to"
	RelEmbeds  = "embeds"
	RelTagged  = "tagged"
	// RelMentions is a typed entity found by a model (see enrich.go): its
	// Target is "@" and the entity's name key, its Field the entity type.
	RelMentions = "mentions"
)

// Entity types.
const (
	EntityNote = "note"
	EntityTag  = "tag"
)

// Relation is one outgoing edge of a note.
type Relation struct {
	Type       string  `json:"type"`
	Target     string  `json:"target"` // normalised key: a note name or path, "#tag" or "@entity"
	Raw        string  `json:"raw"`    // the target as written
	Heading    string  `json:"heading,omitempty"`
	Block      string  `json:"block,omitempty"`
	Alias      string  `json:"alias,omitempty"`
	Field      string  `json:"field,omitempty"` // frontmatter key, for frontmatter relations
	Chunk      int     `json:"chunk"`           // ordinal of the chunk holding the mention; -1 outside any chunk
	Line       int     `json:"line"`            // 1-based line of the mention (0 if unknown)
	Start      int     `json:"start"`           // byte span of the mention in the file
	End        int     `json:"end"`
	Confidence float64 `json:"confidence"`
	Provenance string  `json:"provenance"`     // wikilink, embed, markdown, tag, frontmatter, model
	Stem       string  `json:"stem,omitempty"` // tags, mentions: analysed name (see Record.Stems)
}

// Record is a note's part of the graph, stored by the index as its g/<doc>
// value.
type Record struct {
	Names []string `json:"names"` // normalised keys the note answers to
	// Stems are the analysed forms of the names a person would use for the
	// note (file name, title, aliases): how the graph channel finds it in
	// a query.
	Stems     []string   `json:"stems,omitempty"`
	Relations []Relation `json:"relations,omitempty"`
	// Facts are the subject–predicate–object statements a model found in
	// the note, between its typed entities (enrich.go).
	Facts []Fact `json:"facts,omitempty"`
}

// stemReplacer turns the separators of names and tags into spaces.
var stemReplacer = strings.NewReplacer("/", " ", "-", " ", "_", " ")

// stemKey is the analysed form of a name: its terms joined by spaces.
func stemKey(terms func(string) []string, name string) string {
	return strings.Join(terms(stemReplacer.Replace(name)), " ")
}

// NameKey normalises a note name, path or link target for lookup: slash
// path, no ".md", lower case, single spaces, no surrounding space or slash.
func NameKey(s string) string {
	t := s
	if hasMDSuffix(t) {
		t = t[:len(t)-3] // a path or file name: plain before its extension
	}
	if upper, ok := plainName(t); ok {
		if !upper {
			return t
		}
		return lowerASCII(t)
	}
	s = strings.TrimSpace(strings.ReplaceAll(s, "\\", "/"))
	if strings.HasSuffix(strings.ToLower(s), ".md") {
		s = s[:len(s)-3]
	}
	s = strings.Trim(s, "/ ")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// plainName reports whether s is its own name key but for its case: ASCII
// without backslashes, control characters or runs of spaces, no space or
// slash at either end, not ending in ".md" in any case. upper reports an
// upper-case letter in it. Most link targets are, and most paths but for
// their ".md"; NameKey then needs no more than one lower-casing copy.
func plainName(s string) (upper, ok bool) {
	if s == "" || s[0] == ' ' || s[0] == '/' || s[len(s)-1] == ' ' || s[len(s)-1] == '/' {
		return false, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80 || c < ' ' || c == 0x7f || c == '\\':
			return false, false
		case c == ' ' && s[i+1] == ' ':
			return false, false
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	if hasMDSuffix(s) {
		return false, false
	}
	return upper, true
}

// hasMDSuffix reports whether s ends in ".md" in any case.
func hasMDSuffix(s string) bool {
	n := len(s)
	return n >= 3 && s[n-3] == '.' && s[n-2]|0x20 == 'm' && s[n-1]|0x20 == 'd'
}

// lowerASCII lower-cases an ASCII string.
func lowerASCII(s string) string {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b)
}

// TagKey is the key of a tag entity: "#" and the lower-cased tag.
func TagKey(tag string) string {
	return "#" + strings.ToLower(strings.Trim(strings.TrimPrefix(strings.TrimSpace(tag), "#"), "/"))
}

// noteNames are the keys a note answers to: its path and file name
// without extension, and its aliases.
func noteNames(rel string, aliases []string) []string {
	names := []string{NameKey(rel), NameKey(path.Base(rel))}
	if ext := path.Ext(rel); ext != "" && !strings.EqualFold(ext, ".md") {
		// a .txt note is linked to with its extension
		names = append(names, NameKey(strings.TrimSuffix(rel, ext)), NameKey(strings.TrimSuffix(path.Base(rel), ext)))
	}
	for _, a := range aliases {
		if k := NameKey(a); k != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return compactStrings(names)
}

func compactStrings(xs []string) []string {
	out := xs[:0]
	for i, x := range xs {
		if x != "" && (i == 0 || x != xs[i-1]) {
			out = append(out, x)
		}
	}
	return out
}

// Build turns what the chunker found in the note at vault path rel (its
// links, tags and aliases) into the note's record; terms analyses a name
// the way queries are analysed, and title is the note's title.
func Build(terms func(string) []string, rel, title string, cd *chunk.Document) Record {
	g := Record{Names: noteNames(rel, cd.Aliases), Relations: relations(rel, cd)}
	spoken := append([]string{strings.TrimSuffix(path.Base(rel), path.Ext(rel)), title}, cd.Aliases...)
	for _, n := range spoken {
		if k := stemKey(terms, n); k != "" && !slices.Contains(g.Stems, k) {
			g.Stems = append(g.Stems, k)
		}
	}
	for i := range g.Relations {
		if r := &g.Relations[i]; r.Type == RelTagged {
			r.Stem = stemKey(terms, r.Target[1:])
		}
	}
	return g
}

func isMarkdownLinkPath(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".md") }

// locate finds the chunk holding byte offset off and the line of off.
func locate(chunks []chunk.Chunk, off int) (ord, line int) {
	for i, c := range chunks {
		if off >= c.Start && off < c.End {
			return i, c.LineStart + strings.Count(c.Text[:off-c.Start], "\n")
		}
	}
	return -1, 0
}

// isAttachment reports a target that names a non-note file (an image, a
// PDF): such links are kept in the graph but never listed as unresolved,
// since ragd does not index those files.
func isAttachment(target string) bool {
	ext := strings.ToLower(path.Ext(target))
	switch ext {
	case "", ".md", ".markdown", ".txt":
		return false
	}
	if len(ext) > 6 {
		return false
	}
	letter := false
	for _, c := range ext[1:] {
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}
