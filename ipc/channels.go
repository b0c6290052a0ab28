package ipc

import (
	"slices"
	"strings"
)

// Search modes (SearchRequest.Mode, and mode: written in a query).
const (
	ModeHybrid  = "hybrid"  // every available channel, fused (default)
	ModeLexical = "lexical" // the lexical (BM25) channel only
	ModeVector  = "vector"  // the vector channel only
)

// Modes are the search modes, the default first.
var Modes = []string{ModeHybrid, ModeLexical, ModeVector}

// ValidMode reports whether m is a search mode or "" (the default).
func ValidMode(m string) bool { return m == "" || slices.Contains(Modes, m) }

// Fusion functions (SearchRequest.Fusion, [search] fusion); query
// implements them.
const (
	FusionConvex = "convex" // Σ weight × the channel's absolute 0–1 score, over Σ weight
	FusionRRF    = "rrf"    // Σ weight / (RRFK + rank)
)

// Fusions are the fusion functions.
var Fusions = []string{FusionConvex, FusionRRF}

// ValidFusion reports whether f is a fusion function or "" (the
// daemon's choice).
func ValidFusion(f string) bool { return f == "" || slices.Contains(Fusions, f) }

// Retrieval channels: SearchRequest.Channels, the keys of
// SearchRequest.Weights and of [search] weights, ChannelScore.Channel and
// the names in Degraded. Each is spelled like the mode that runs it alone.
const (
	ChannelLexical = "lexical" // BM25 over the chunks' words, titles and headings
	ChannelVector  = "vector"  // nearest chunk embeddings
	ChannelGraph   = "graph"   // the entity graph
)

// Channels are the retrieval channels.
var Channels = []string{ChannelLexical, ChannelVector, ChannelGraph}

// channelBM25 is what protocol 1 called the lexical channel; it is still
// accepted on input.
const channelBM25 = "bm25"

// CanonicalChannel returns the name of the channel a client wrote, reading
// the old name "bm25" as ChannelLexical, and whether it names a channel.
func CanonicalChannel(name string) (string, bool) {
	if name == channelBM25 {
		return ChannelLexical, true
	}
	return name, slices.Contains(Channels, name)
}

// MaxWeight is the largest channel weight a request may set.
const MaxWeight = 100

// canonicalChannels checks the channels and weights of a search and
// spells them as Channels does.
func canonicalChannels(req *SearchRequest) error {
	want := strings.Join(Channels, ", ")
	for i, ch := range req.Channels {
		c, ok := CanonicalChannel(ch)
		if !ok {
			return BadRequest("unknown channel %q: use %s", ch, want)
		}
		req.Channels[i] = c
	}
	if len(req.Weights) == 0 {
		return nil
	}
	ws := make(map[string]float64, len(req.Weights))
	for ch, w := range req.Weights {
		c, ok := CanonicalChannel(ch)
		if !ok || w < 0 || w > MaxWeight || w != w {
			return BadRequest("bad weight %s=%v: channels are %s, weights 0 to %d", ch, w, want, MaxWeight)
		}
		ws[c] = w
	}
	req.Weights = ws
	return nil
}
