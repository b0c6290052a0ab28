package index

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// Fields is what the index takes from a note beyond its body text: which
// frontmatter properties become the note's property field. It is part of
// the settings that force a reindex (the pipeline string).
type Fields struct {
	// Properties are the frontmatter keys whose values are indexed; empty
	// means every key but IgnoreProperties.
	Properties []string
	// IgnoreProperties are keys never indexed as properties (when
	// Properties is empty).
	IgnoreProperties []string
	// Lang is the language notes are analysed in unless their frontmatter
	// says otherwise (`lang` or `language`); Detect guesses it from the
	// note's text instead.
	Lang   analyze.Lang
	Detect bool
}

// DefaultFields index every frontmatter property except those that have a
// field of their own (title, aliases, tags) and bookkeeping that is not
// about the note's content.
var DefaultFields = Fields{IgnoreProperties: chunk.BookkeepingProperties}

// FolderProperty is the property a note's folder is indexed as: the name
// of the folder the note is in ("Japanese" for Recipes/Japanese/Ramen.md).
// Folders name what a vault's notes are about ("Publish", "Plugins by
// Category"), and a query often says which one it means. Indexed unless
// Fields leaves the key out. Measured on the vault question sets
// (docs/architecture.md, "Measurements"): MRR@10 up on all four, most on
// questions about category pages. Only the innermost folder: the whole
// path gave the same figures (its outer folders added nothing the inner
// one did not), and every note under a top-level folder holding its words
// made those words' note postings, which a query reads in full, as long
// as a large share of the vault (query p95 on the 50× scale vault 18.8 →
// 21.1 ms).
const FolderProperty = "folder"

// signature is a short description of f for the pipeline string.
func (f Fields) signature() string {
	lang := f.Lang.String()
	if f.Detect {
		lang = "auto"
	}
	if len(f.Properties) > 0 {
		return "lang=" + lang + ";props=" + strings.Join(f.Properties, ",")
	}
	if slices.Equal(f.IgnoreProperties, DefaultFields.IgnoreProperties) {
		return "lang=" + lang + ";props=default"
	}
	return "lang=" + lang + ";props=-" + strings.Join(f.IgnoreProperties, ",")
}

// langOf is the language a note is analysed in.
func (f Fields) langOf(meta map[string]any, body func() string) analyze.Lang {
	for _, k := range [...]string{"lang", "language"} {
		if v, ok := meta[k].(string); ok {
			if l, err := analyze.ParseLang(v); err == nil {
				return l
			}
		}
	}
	if f.Detect {
		return analyze.Detect(body())
	}
	return f.Lang
}

func (f Fields) wants(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	if len(f.Properties) > 0 {
		return slices.ContainsFunc(f.Properties, func(p string) bool { return strings.EqualFold(p, k) })
	}
	return !slices.ContainsFunc(f.IgnoreProperties, func(p string) bool { return strings.EqualFold(p, k) })
}

// properties returns the values of the wanted frontmatter properties.
func (f Fields) properties(props []chunk.Property) []string {
	var out []string
	for _, p := range props {
		if f.wants(p.Key) {
			out = append(out, p.Values...)
		}
	}
	return out
}

// noteBuilder collects a note's terms: per term its note-field
// frequencies, and every chunk occurrence as one entry of a flat token
// list, which terms groups into postings with positions at the end (a few
// allocations per note instead of a slice per posting and per term).
// Builders are pooled: their map and lists are reused.
type noteBuilder struct {
	an      *analyze.Analyzer
	lang    analyze.Lang
	byID    []int32                      // analyze term ID → term number + 1
	idx     map[string]int32             // term → term number, for terms without an ID
	texts   []string                     // by term number
	ids     []uint32                     // by term number
	fields  [][segment.NoteFields]uint32 // by term number
	toks    []noteTok
	grouped []noteTok
	ord     uint32

	anchorAt    []int32  // analyze term ID → anchor term number + 1, for anchorTerms
	anchorIDs   []uint32 // the IDs set in anchorAt
	start, next []int32  // encode's scratch
	order       []termOrder
	sorted      []termOrder
	pos         []uint32
	enc         segment.NoteEncoder
	// rec is the buffer records are encoded in before each is copied out
	// at its size (NoteEncoder.EndOwned); kept up to maxRecScratch.
	rec []byte
}

// maxRecScratch bounds the record buffer a pooled builder keeps: a record
// larger than this (a note of hundreds of kilobytes) leaves none behind.
const maxRecScratch = 1 << 20

// noteTok is one occurrence of a term in chunk ord: at body position pos,
// or in the chunk's headings (headTok).
type noteTok struct {
	term int32
	ord  uint32
	pos  uint32
}

const headTok = ^uint32(0)

var noteBuilders = sync.Pool{New: func() any { return &noteBuilder{idx: make(map[string]int32, 256)} }}

func getNoteBuilder(an *analyze.Analyzer, lang analyze.Lang) *noteBuilder {
	b := noteBuilders.Get().(*noteBuilder)
	b.an, b.lang, b.ord = an, lang, 0
	return b
}

func (b *noteBuilder) release() {
	for _, id := range b.ids {
		if id != 0 {
			b.byID[id] = 0
		}
	}
	clear(b.idx)
	clear(b.texts)
	b.an, b.texts, b.ids, b.fields, b.toks, b.grouped = nil, b.texts[:0], b.ids[:0], b.fields[:0], b.toks[:0], b.grouped[:0]
	noteBuilders.Put(b)
}

// term returns the term number of an analysed token's term, adding it if
// new. A term with an ID is found by it (analyze.TermID: a term has always
// the same ID, or always none), one without by its text.
func (b *noteBuilder) term(t *analyze.Token) int32 {
	if t.ID != 0 {
		if int(t.ID) >= len(b.byID) {
			b.byID = append(b.byID, make([]int32, max(analyze.TermIDs(), int(t.ID)+1)-len(b.byID))...)
		}
		if i := b.byID[t.ID]; i != 0 {
			return i - 1
		}
		i := b.add(t.Term, t.ID)
		b.byID[t.ID] = i + 1
		return i
	}
	i, ok := b.idx[t.Term]
	if !ok {
		i = b.add(t.Term, 0)
		b.idx[t.Term] = i
	}
	return i
}

func (b *noteBuilder) add(text string, id uint32) int32 {
	i := int32(len(b.texts))
	b.texts = append(b.texts, text)
	b.ids = append(b.ids, id)
	b.fields = append(b.fields, [segment.NoteFields]uint32{})
	return i
}

// field adds text to note field f and returns its length in terms.
func (b *noteBuilder) field(f int, text string) uint32 {
	n := uint32(0)
	b.an.Analyze(text, b.lang, func(t analyze.Token) {
		b.fields[b.term(&t)][f]++
		n++
	})
	return n
}

// buildNote makes the segment record of a prepared document: the note
// (its terms in TermRecord) and its encoding (segment.EncodeNote's bytes).
func buildNote(an *analyze.Analyzer, f Fields, doc *Document, cd *chunk.Document, chunks []Chunk, rels []graph.Relation) (*segment.Note, []byte) {
	n := &segment.Note{Vault: doc.Vault, Path: doc.Path, Title: doc.Title, Tags: doc.Tags, Aliases: doc.Aliases, MTime: doc.ModTime.Unix()}
	lang := f.langOf(cd.Meta, func() string {
		var sb strings.Builder
		for i := 0; i < len(chunks) && sb.Len() < 4096; i++ {
			sb.WriteString(chunks[i].Text)
		}
		return sb.String()
	})
	n.Lang = uint8(lang)
	b := getNoteBuilder(an, lang)
	defer b.release()
	n.FieldLen[segment.FieldTitle] = b.field(segment.FieldTitle, doc.Title)
	if file := strings.TrimSuffix(path.Base(doc.Path), path.Ext(doc.Path)); !b.sameTerms(file, doc.Title) {
		n.FieldLen[segment.FieldTitle] += b.field(segment.FieldTitle, file)
	}
	for _, a := range doc.Aliases {
		n.FieldLen[segment.FieldAlias] += b.field(segment.FieldAlias, a)
	}
	for _, p := range f.properties(cd.Properties) {
		n.FieldLen[segment.FieldProps] += b.field(segment.FieldProps, stripLinks(p))
	}
	if dir := path.Dir(doc.Path); dir != "." && dir != "/" && f.wants(FolderProperty) {
		n.FieldLen[segment.FieldProps] += b.field(segment.FieldProps, path.Base(dir))
	}
	for _, t := range doc.Tags {
		n.FieldLen[segment.FieldTags] += b.field(segment.FieldTags, t)
	}
	n.Headings = make([][]string, len(cd.Parents))
	for i, par := range cd.Parents {
		n.Headings[i] = par.Heading
	}
	n.Chunks = make([]segment.Chunk, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		b.ord = uint32(i)
		sc := &n.Chunks[i]
		sc.Parent, sc.LineStart, sc.LineEnd = c.Parent, uint32(c.LineStart), uint32(c.LineEnd)
		sc.Hash = c.textKey()
		for _, h := range chunkHeadings(cd.Chunks[i], doc.Title) {
			an.Analyze(h, lang, func(t analyze.Token) {
				b.toks = append(b.toks, noteTok{b.term(&t), b.ord, headTok})
				sc.Head++
			})
		}
		an.Analyze(c.Text, lang, func(t analyze.Token) {
			b.toks = append(b.toks, noteTok{b.term(&t), b.ord, uint32(t.Pos)})
			sc.Body++
		})
	}
	n.Anchors = b.anchors(doc.Vault, rels, chunks)
	rec := b.encode(n)
	return n, rec
}

// chunkHeadings are the distinct heading texts of the sections a chunk
// covers, without a leading heading that only repeats the note's title (it
// is counted as the title).
func chunkHeadings(c chunk.Chunk, title string) []string {
	paths := c.Headings
	if len(paths) == 0 {
		paths = [][]string{c.Heading}
	}
	var out []string
	for _, p := range paths {
		for _, h := range headingsBelowTitle(p, title) {
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// sameTerms reports whether two texts analyse to the same terms.
func (b *noteBuilder) sameTerms(x, y string) bool {
	var tx, ty []string
	b.an.Analyze(x, b.lang, func(t analyze.Token) { tx = append(tx, t.Term) })
	b.an.Analyze(y, b.lang, func(t analyze.Token) { ty = append(ty, t.Term) })
	return slices.Equal(tx, ty)
}

// maxContext bounds the context taken on each side of a link, in bytes.
const maxContext = 240

// sentenceAround returns the sentence of text holding [s, e): from after
// the previous sentence end or line break to the next one, at most
// maxContext bytes on each side.
func sentenceAround(text string, s, e int) (int, int) {
	ls := s
	for ls > 0 && s-ls < maxContext {
		c := text[ls-1]
		if c == '\n' || (c == '.' || c == '!' || c == '?') && ls < len(text) && (text[ls] == ' ' || text[ls] == '\n') {
			break
		}
		ls--
	}
	le := e
	for le < len(text) && le-e < maxContext {
		c := text[le]
		if c == '\n' || (c == '.' || c == '!' || c == '?') && (le+1 == len(text) || text[le+1] == ' ' || text[le+1] == '\n') {
			break
		}
		le++
	}
	for ls < s && ls < len(text) && text[ls]&0xC0 == 0x80 {
		ls++ // never start inside a UTF-8 sequence
	}
	for le > e && le < len(text) && text[le]&0xC0 == 0x80 {
		le--
	}
	return ls, le
}

// stripLinks rewrites "[[target|alias]]" to its words.
func stripLinks(s string) string {
	if !strings.Contains(s, "[[") {
		return s
	}
	return strings.NewReplacer("[[", " ", "]]", " ", "|", " ").Replace(s)
}
