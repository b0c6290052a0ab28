package daemon

import (
	"testing"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query"
)

// The vector channel's default weight is the one measured for the offline
// embedder when that is the embedder, and the larger general one for any
// other; a weight the user sets wins.
func TestQueryOptionsVectorWeight(t *testing.T) {
	plugins := []config.Plugin{
		{Name: "lite", Kind: "embedder", Builtin: "uselite"},
		{Name: "ollama", Kind: "embedder", Builtin: "ollama"},
		{Name: "mine", Kind: "embedder", Command: "my-embedder"},
	}
	for _, tc := range []struct {
		name   string
		search config.Search
		want   float64
	}{
		{"no embedder", config.Search{}, 0},
		{"offline embedder", config.Search{Embedder: "lite"}, query.VectorWeightUseLite},
		{"ollama", config.Search{Embedder: "ollama"}, query.VectorWeight},
		{"plugin", config.Search{Embedder: "mine"}, query.VectorWeight},
		{"set by the user", config.Search{Embedder: "lite", Weights: map[string]float64{ipc.ChannelVector: 0.7}}, 0.7},
	} {
		d := &Daemon{cfg: &config.Config{Plugins: plugins, Search: tc.search}}
		if got := d.queryOptions().Weights[ipc.ChannelVector]; got != tc.want {
			t.Errorf("%s: vector weight %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A keyword query's share of the vector weight is the one measured for the
// offline embedder, half for any other, or what [search]
// keyword_vector_scale says.
func TestQueryOptionsKeywordVectorScale(t *testing.T) {
	plugins := []config.Plugin{
		{Name: "lite", Kind: "embedder", Builtin: "uselite"},
		{Name: "ollama", Kind: "embedder", Builtin: "ollama"},
	}
	one := 1.0
	for _, tc := range []struct {
		name   string
		search config.Search
		want   float64
	}{
		{"offline embedder", config.Search{Embedder: "lite"}, query.KeywordVectorScaleUseLite},
		{"ollama", config.Search{Embedder: "ollama"}, query.KeywordVectorScale},
		{"set by the user", config.Search{Embedder: "lite", KeywordVectorScale: &one}, 1},
	} {
		d := &Daemon{cfg: &config.Config{Plugins: plugins, Search: tc.search}}
		if got := 1 - d.queryOptions().KeywordVectorCut; got != tc.want {
			t.Errorf("%s: keyword vector scale %v, want %v", tc.name, got, tc.want)
		}
	}
}
