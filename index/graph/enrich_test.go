package graph

import (
	"testing"

	"github.com/ragd/ragd/index/chunk"
)

func TestMentionChunk(t *testing.T) {
	chunks := []chunk.Chunk{
		{Span: chunk.Span{LineStart: 1, LineEnd: 3}, Text: "# A\n\nAlpha team.\n"},
		{Span: chunk.Span{LineStart: 5, LineEnd: 7}, Text: "## B\n\nthe alphabet and Bob.\n"},
	}
	tests := []struct {
		line       int
		names      []string
		ord, where int
	}{
		{2, nil, 0, 2},
		{4, nil, 1, 4},
		{9, nil, 1, 9},
		{0, []string{"Bob"}, -1, 0},
		{1, []string{"bob"}, 1, 7},
		{1, []string{"alpha"}, 0, 3},
		{4, []string{"alpha"}, 1, 4}, // "alphabet" is not the word
	}
	for _, tc := range tests {
		if ord, at := mentionChunk(chunks, tc.line, tc.names); ord != tc.ord || at != tc.where {
			t.Errorf("mentionChunk(%d, %v) = %d, %d; want %d, %d", tc.line, tc.names, ord, at, tc.ord, tc.where)
		}
	}
}
