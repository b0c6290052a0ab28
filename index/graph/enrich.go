package graph

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragd/ragd/index/chunk"
)

// Enrichment: a model (an entity extractor plugin, run by index/ingest)
// may read a note and name the typed entities it mentions (PERSON,
// ORGANIZATION, ...) and facts about them (subject, predicate, object).
// They are added to the note's Record — entity mentions as relations of
// type RelMentions to "@<name key>", facts in Record.Facts — so they are
// written and deleted in the same transaction as the note's chunks, like
// its links.

// ProvenanceModel is the provenance of relations found by a model.
const ProvenanceModel = "model"

// Enrichment is what a model found in a note. Lines are 1-based lines of
// the note (0: unknown).
type Enrichment struct {
	Entities []EnrichedEntity `json:"entities,omitempty"`
	Facts    []EnrichedFact   `json:"facts,omitempty"`
}

// EnrichedEntity is a typed entity a model found in a note.
type EnrichedEntity struct {
	Name       string   `json:"name"`
	Type       string   `json:"type"` // PERSON, ORGANIZATION, PRODUCT, PLACE, EVENT, CONCEPT, OTHER
	Aliases    []string `json:"aliases,omitempty"`
	Line       int      `json:"line"`
	Confidence float64  `json:"confidence"`
}

// EnrichedFact is a subject–predicate–object statement a model found in a
// note; subject and object name entities of the same Enrichment.
type EnrichedFact struct {
	Subject    string  `json:"subject"`
	Predicate  string  `json:"predicate"`
	Object     string  `json:"object"`
	Line       int     `json:"line"`
	Confidence float64 `json:"confidence"`
}

// Fact is a stored statement between two typed entities of a note.
type Fact struct {
	Subject    string  `json:"subject"` // "@" entity key
	Predicate  string  `json:"predicate"`
	Object     string  `json:"object"` // "@" entity key
	Chunk      int     `json:"chunk"`  // ordinal of the chunk stating it; -1 unknown
	Line       int     `json:"line"`
	Confidence float64 `json:"confidence"`
}

// EntityKey is the graph key of a typed entity: "@" and its name key ("" for
// a name without one).
func EntityKey(name string) string {
	if k := NameKey(name); k != "" {
		return "@" + k
	}
	return ""
}

// isTyped reports a typed entity key.
func isTyped(key string) bool { return strings.HasPrefix(key, "@") }

// AddEnrichment stores a note's typed entities as mention relations (one
// for the name and one per alias, each with the analysed form the graph
// channel finds it by) and its facts, mapping lines to the note's chunks.
// Facts whose subject or object is not one of the note's entities are
// dropped. terms analyses a name as Build's does.
func (g *Record) AddEnrichment(terms func(string) []string, e *Enrichment, chunks []chunk.Chunk) {
	canon := map[string]string{} // name key of a name or alias → entity key
	type mention struct {
		target, typ, alias string
		chunk              int
	}
	seen := map[mention]bool{}
	for _, en := range e.Entities {
		key := EntityKey(en.Name)
		if key == "" {
			continue
		}
		typ := strings.ToUpper(strings.TrimSpace(en.Type))
		if typ == "" {
			typ = "OTHER"
		}
		names := append([]string{strings.TrimSpace(en.Name)}, en.Aliases...)
		ord, line := mentionChunk(chunks, en.Line, names)
		for i, n := range names {
			n = strings.TrimSpace(n)
			nk := NameKey(n)
			if nk == "" || i > 0 && nk == key[1:] {
				continue
			}
			if _, ok := canon[nk]; !ok {
				canon[nk] = key
			}
			alias := ""
			if i > 0 {
				alias = n
			}
			if m := (mention{key, typ, nk, ord}); !seen[m] {
				seen[m] = true
				g.Relations = append(g.Relations, Relation{Type: RelMentions, Target: key, Raw: names[0], Alias: alias,
					Field: typ, Chunk: ord, Line: line, Confidence: unit(en.Confidence), Provenance: ProvenanceModel,
					Stem: stemKey(terms, n)})
			}
		}
	}
	type fact struct {
		s, p, o string
		chunk   int
	}
	seenFact := map[fact]bool{}
	for _, f := range e.Facts {
		sub, obj, pred := canon[NameKey(f.Subject)], canon[NameKey(f.Object)], strings.TrimSpace(f.Predicate)
		if sub == "" || obj == "" || pred == "" || sub == obj {
			continue
		}
		ord, line := mentionChunk(chunks, f.Line, []string{f.Subject, f.Object})
		if k := (fact{sub, strings.ToLower(pred), obj, ord}); !seenFact[k] {
			seenFact[k] = true
			g.Facts = append(g.Facts, Fact{Subject: sub, Predicate: pred, Object: obj, Chunk: ord, Line: line,
				Confidence: unit(f.Confidence)})
		}
	}
}

// mentionChunk maps a model's line to a chunk. A model reports the first
// line of the excerpt it read, which may be a few chunks before the
// mention itself, so the first chunk from the one holding line on whose
// text names one of names (as a whole word, ignoring case) wins, with the
// line of that occurrence; else the chunk holding line. -1 when the line
// is unknown or the note has no chunks.
func mentionChunk(chunks []chunk.Chunk, line int, names []string) (ord, at int) {
	if line <= 0 || len(chunks) == 0 {
		return -1, line
	}
	start := len(chunks) - 1
	for i, c := range chunks {
		if c.LineEnd >= line {
			start = i
			break
		}
	}
	for i := start; i < len(chunks); i++ {
		c := chunks[i]
		for _, n := range names {
			if off := indexWordFold(c.Text, strings.TrimSpace(n)); off >= 0 {
				return i, c.LineStart + strings.Count(c.Text[:off], "\n")
			}
		}
	}
	return start, line
}

// indexWordFold returns the byte offset of the first whole-word,
// case-insensitive occurrence of word in s, or -1.
func indexWordFold(s, word string) int {
	if word == "" {
		return -1
	}
	ls, lw := strings.ToLower(s), strings.ToLower(word)
	if len(ls) != len(s) {
		return -1 // lower-casing changed offsets: give up rather than misplace
	}
	for from := 0; from < len(ls); {
		i := strings.Index(ls[from:], lw)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(ls[:i])
		after, _ := utf8.DecodeRuneInString(ls[i+len(lw):])
		if !isWordRune(before) && !isWordRune(after) {
			return i
		}
		from = i + 1
	}
	return -1
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// unit clamps a confidence to [0, 1].
func unit(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(max(x, 0), 1)
}
