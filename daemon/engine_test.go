package daemon

import (
	"testing"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query"
)

// With an embedder the vector channel earns weight by its margin above
// the noise floor, unless the user set its weight or chose RRF: then the
// configured weight is the weight.
func TestQueryOptionsTrust(t *testing.T) {
	for _, tc := range []struct {
		name   string
		search config.Search
		want   query.Trust
	}{
		{"no embedder", config.Search{}, query.Trust{}},
		{"embedder", config.Search{Embedder: "e"}, query.DefaultTrust},
		{"embedder, graph weight set", config.Search{Embedder: "e", Weights: map[string]float64{ipc.ChannelGraph: 0.2}}, query.DefaultTrust},
		{"embedder, vector weight set", config.Search{Embedder: "e", Weights: map[string]float64{ipc.ChannelVector: 0.3}}, query.Trust{}},
		{"embedder, rrf", config.Search{Embedder: "e", Fusion: query.FusionRRF}, query.Trust{}},
	} {
		d := &Daemon{cfg: &config.Config{Search: tc.search}}
		if got := d.queryOptions().Trust; got != tc.want {
			t.Errorf("%s: trust %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
