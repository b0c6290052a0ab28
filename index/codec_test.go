package index

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/ragd/ragd/index/graph"
)

func sampleChunk() Chunk {
	return Chunk{Parent: 3, Heading: []string{"Title", "Sub ✓"}, Start: 120, End: 1320, LineStart: 7, LineEnd: 31,
		Tokens: 180, Hash: "00ff3a9c0d1e2f30405060708090a0b0", Text: "Some \"text\"\nwith\x00 bytes", Page: 2}
}

func sampleGraph() graph.Record {
	return graph.Record{
		Names: []string{"notes/a", "a"},
		Stems: []string{"a note"},
		Relations: []graph.Relation{
			{Type: graph.RelLinksTo, Target: "b", Raw: "B", Heading: "H", Block: "x1", Alias: "the b", Chunk: -1, Line: 0,
				Start: 10, End: 16, Confidence: 1, Provenance: "wikilink"},
			{Type: graph.RelTagged, Target: "#t/x", Raw: "t/x", Chunk: 0, Line: 3, Start: 40, End: 44, Confidence: 1,
				Provenance: "tag", Stem: "t x"},
			{Type: graph.RelMentions, Target: "@ada", Raw: "Ada", Field: "PERSON", Chunk: 2, Line: 9, Confidence: 0.75,
				Provenance: graph.ProvenanceModel, Stem: "ada"},
			{Type: "custom", Target: "c", Raw: "c", Confidence: math.Inf(1), Provenance: "elsewhere"},
		},
		Facts: []graph.Fact{{Subject: "@ada", Predicate: "wrote", Object: "@notes", Chunk: 2, Line: 9, Confidence: 0.5}},
	}
}

func TestRecordCodecsRoundTrip(t *testing.T) {
	chunks := []Chunk{sampleChunk(), {Hash: "not hex", Text: ""}, {Hash: "00FF3A9C0D1E2F30405060708090A0B0"}, {}}
	for _, c := range chunks {
		var got Chunk
		if err := decodeChunk(encodeChunk(&c), &got); err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("chunk %+v\ndecoded %+v, %v", c, got, err)
		}
	}
	for _, p := range []Parent{{Heading: []string{"A", ""}, Start: 5, End: 900, LineStart: 2, LineEnd: 40}, {}} {
		var got Parent
		if err := decodeParent(encodeParent(&p), &got); err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("parent %+v\ndecoded %+v, %v", p, got, err)
		}
	}
	parents := []Parent{{Heading: []string{"A", ""}, Start: 5, End: 900, LineStart: 2, LineEnd: 40}, {}}
	for _, tc := range []struct {
		cs []Chunk
		ps []Parent
	}{{chunks, parents}, {chunks, nil}, {nil, parents}, {chunks[:1], parents[:1]}} {
		cs, ps, err := decodeAllChunks(encodeChunks(tc.cs, tc.ps))
		if err != nil || len(cs) != len(tc.cs) || len(ps) != len(tc.ps) ||
			len(cs) > 0 && !reflect.DeepEqual(cs, tc.cs) || len(ps) > 0 && !reflect.DeepEqual(ps, tc.ps) {
			t.Errorf("chunks record of %d chunks and %d parents: decoded %d and %d, %v", len(tc.cs), len(tc.ps), len(cs), len(ps), err)
		}
		cr, _ := parseChunks(encodeChunks(tc.cs, tc.ps))
		var c Chunk
		var p Parent
		if ok, err := cr.chunk(uint32(len(tc.cs)), &c); ok || err != nil {
			t.Errorf("chunk %d of %d: %v %v", len(tc.cs), len(tc.cs), ok, err)
		}
		if ok, err := cr.parent(uint32(len(tc.ps)), &p); ok || err != nil {
			t.Errorf("parent %d of %d: %v %v", len(tc.ps), len(tc.ps), ok, err)
		}
	}
	for _, g := range []graph.Record{sampleGraph(), {}} {
		var got graph.Record
		if err := decodeGraph(encodeGraph(&g), &got); err != nil || !reflect.DeepEqual(got, g) {
			t.Errorf("graph %+v\ndecoded %+v, %v", g, got, err)
		}
	}
}

// Every truncation and many corruptions of a record are reported, never a
// panic.
func TestRecordDecodersRejectCorruptValues(t *testing.T) {
	c, g := sampleChunk(), sampleGraph()
	decoders := map[string]struct {
		enc    []byte
		decode func([]byte) error
		tail   bool // the value ends with free text: truncations may decode
	}{
		"chunk":  {encodeChunk(&c), func(v []byte) error { var c Chunk; return decodeChunk(v, &c) }, true},
		"parent": {encodeParent(&Parent{Heading: []string{"x"}, End: 3}), func(v []byte) error { var p Parent; return decodeParent(v, &p) }, false},
		"graph":  {encodeGraph(&g), func(v []byte) error { var g graph.Record; return decodeGraph(v, &g) }, false},
		"chunks": {encodeChunks([]Chunk{c, {Text: "two"}}, []Parent{{Heading: []string{"x"}, End: 3}}),
			func(v []byte) error { _, _, err := decodeAllChunks(v); return err }, false},
	}
	for name, d := range decoders {
		for n := 0; n < len(d.enc); n++ {
			if err := d.decode(d.enc[:n]); err == nil && !d.tail {
				t.Errorf("%s truncated to %d of %d bytes decoded", name, n, len(d.enc))
			} else if err != nil && !errors.Is(err, errCorrupt) {
				t.Errorf("%s truncated to %d: %v", name, n, err)
			}
		}
		for i := range d.enc {
			for _, b := range []byte{0, 0x7f, 0x80, 0xff} {
				v := append([]byte(nil), d.enc...)
				v[i] = b
				d.decode(v) // must not panic
			}
		}
	}
}

func FuzzDecodeRecords(f *testing.F) {
	c, g := sampleChunk(), sampleGraph()
	f.Add(encodeChunk(&c))
	f.Add(encodeGraph(&g))
	f.Add(encodeChunks([]Chunk{c}, []Parent{{Heading: []string{"x"}, End: 3}}))
	f.Fuzz(func(t *testing.T, v []byte) {
		var c Chunk
		var p Parent
		var g graph.Record
		decodeChunk(v, &c)
		decodeParent(v, &p)
		decodeGraph(v, &g)
		decodeAllChunks(v)
	})
}

// decodeAllChunks decodes every record of a chunks record.
func decodeAllChunks(v []byte) ([]Chunk, []Parent, error) {
	cr, err := parseChunks(v)
	if err != nil {
		return nil, nil, err
	}
	return cr.all()
}
