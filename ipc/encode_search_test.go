package ipc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// appendSearch writes exactly what json.Marshal writes, and declines what
// it leaves to json.Marshal.
func TestAppendSearchIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		r := randResponse(rng)
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendSearch(nil, &r)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("appendSearch (ok %v):\n%s\njson.Marshal:\n%s", ok, got, want)
		}
	}
	for _, r := range []SearchResponse{
		{Results: []Result{{Explain: &Explain{Fused: 1}}}},
		{Results: []Result{{Score: math.NaN()}}},
		{TookMS: math.Inf(1)},
	} {
		if _, ok := appendSearch(nil, &r); ok {
			t.Errorf("%+v: encoded by appendSearch", r)
		}
	}
}

func FuzzAppendSearch(f *testing.F) {
	f.Add("q", "Settings > Filters", "text\x01\u2028\xff", 1.075, 3)
	f.Fuzz(func(t *testing.T, q, heading, text string, score float64, line int) {
		r := SearchResponse{Query: q, Results: []Result{{Heading: heading, Text: text, Score: score, LineStart: line,
			Headings: []string{heading}, Parent: &Parent{Heading: heading, Text: text}, Snippet: &Snippet{Text: text, Matches: [][2]int{{line, -line}}}}},
			TookMS: score}
		want, err := json.Marshal(&r)
		got, ok := appendSearch(nil, &r)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Fatalf("appendSearch (ok %v):\n%s\njson.Marshal (%v):\n%s", ok, got, err, want)
		}
	})
}

// BenchmarkEncodeSearch encodes a default search's answer with
// appendSearch and with json.Marshal, in the same run.
func BenchmarkEncodeSearch(b *testing.B) {
	r := benchAnswer()
	b.Run("appendSearch", func(b *testing.B) {
		for b.Loop() {
			if _, ok := appendSearch(make([]byte, 0, 16<<10), r); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
