package index

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"github.com/ragd/ragd/index/graph"
)

// The graph record (g/): names, stems, then per relation its type, target
// and raw target, a flags byte saying which of heading, block, alias,
// field and stem follow (and whether the confidence differs from 1), chunk,
// line, start and length (varints), the provenance; then per fact subject,
// predicate, object, chunk, line and confidence. Types and provenances are
// one byte when they are the usual ones.

// graphWords are the relation types and provenances written as one byte
// (their index + 1; 0 means the string follows). Append only: the index is
// stored.
var graphWords = []string{graph.RelLinksTo, graph.RelEmbeds, graph.RelTagged, graph.RelMentions,
	"wikilink", "embed", "markdown", "tag", "frontmatter", graph.ProvenanceModel}

const (
	relHeading = 1 << iota
	relBlock
	relAlias
	relField
	relStem
	relConfidence // a confidence other than 1 follows
)

func appendWord(b []byte, s string) []byte {
	for i, w := range graphWords {
		if s == w {
			return append(b, byte(i+1))
		}
	}
	return appendString(append(b, 0), s)
}

func (r *reader) word() string {
	c := r.byte()
	switch {
	case c == 0:
		return r.string()
	case int(c) <= len(graphWords):
		return graphWords[c-1]
	}
	r.bad = true
	return ""
}

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

func (r *reader) float() float64 {
	if v := r.bytes(8); v != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(v))
	}
	return 0
}

func encodeGraph(g *graph.Record) []byte {
	b := make([]byte, 0, 64+len(g.Relations)*48)
	b = appendStrings(b, g.Names)
	b = appendStrings(b, g.Stems)
	b = binary.AppendUvarint(b, uint64(len(g.Relations)))
	for i := range g.Relations {
		r := &g.Relations[i]
		b = appendWord(b, r.Type)
		b = appendString(b, r.Target)
		b = appendString(b, r.Raw)
		var flags byte
		for bit, s := range [...]string{r.Heading, r.Block, r.Alias, r.Field, r.Stem} {
			if s != "" {
				flags |= 1 << bit
			}
		}
		if r.Confidence != 1 {
			flags |= relConfidence
		}
		b = append(b, flags)
		for _, s := range [...]string{r.Heading, r.Block, r.Alias, r.Field, r.Stem} {
			if s != "" {
				b = appendString(b, s)
			}
		}
		if r.Confidence != 1 {
			b = appendFloat(b, r.Confidence)
		}
		b = appendInts(b, r.Chunk, r.Line, r.Start, r.End-r.Start)
		b = appendWord(b, r.Provenance)
	}
	b = binary.AppendUvarint(b, uint64(len(g.Facts)))
	for _, f := range g.Facts {
		b = appendString(b, f.Subject)
		b = appendString(b, f.Predicate)
		b = appendString(b, f.Object)
		b = appendInts(b, f.Chunk, f.Line)
		b = appendFloat(b, f.Confidence)
	}
	return b
}

func decodeGraph(v []byte, g *graph.Record) error {
	return decodeGraphWith(&reader{b: v}, g, (*reader).string)
}

// view is the next string without a copy: it shares the value's bytes, so
// it is good only while they are (decodeGraphShared).
func (r *reader) view() string {
	b := r.bytes(r.count())
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// decodeGraphShared decodes v into g reusing g's slices, with strings that
// share v's bytes: for the graph's load, which copies what it keeps.
func decodeGraphShared(v []byte, g *graph.Record) error {
	return decodeGraphWith(&reader{b: v}, g, (*reader).view)
}

func decodeGraphWith(r *reader, g *graph.Record, str func(*reader) string) error {
	strs := func(ss []string) []string {
		n := r.count()
		if n == 0 {
			return nil
		}
		ss = slices.Grow(ss[:0], n)[:n]
		for i := range ss {
			ss[i] = str(r)
		}
		return ss
	}
	g.Names = strs(g.Names)
	g.Stems = strs(g.Stems)
	g.Relations = g.Relations[:0]
	if n := r.count(); n > 0 {
		g.Relations = slices.Grow(g.Relations, n)[:n]
	}
	for i := range g.Relations {
		rel := &g.Relations[i]
		*rel = graph.Relation{}
		rel.Type = r.word()
		rel.Target = str(r)
		rel.Raw = str(r)
		flags := r.byte()
		for bit, s := range [...]*string{&rel.Heading, &rel.Block, &rel.Alias, &rel.Field, &rel.Stem} {
			if flags&(1<<bit) != 0 {
				*s = str(r)
			}
		}
		rel.Confidence = 1
		if flags&relConfidence != 0 {
			rel.Confidence = r.float()
		}
		rel.Chunk, rel.Line, rel.Start = r.int(), r.int(), r.int()
		rel.End = rel.Start + r.int()
		rel.Provenance = r.word()
		if r.bad {
			return errCorrupt
		}
	}
	g.Facts = g.Facts[:0]
	if n := r.count(); n > 0 {
		g.Facts = slices.Grow(g.Facts, n)[:n]
	}
	for i := range g.Facts {
		f := &g.Facts[i]
		f.Subject, f.Predicate, f.Object = str(r), str(r), str(r)
		f.Chunk, f.Line = r.int(), r.int()
		f.Confidence = r.float()
	}
	return r.done()
}
