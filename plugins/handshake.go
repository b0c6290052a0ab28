package plugins

import (
	"fmt"

	"github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the version of the ragd plugin protocol
// (plugins/proto/ragd/plugin/v1). It travels as the second field of the
// go-plugin handshake line; a plugin speaking another version is refused.
const ProtocolVersion = 1

// Handshake is the go-plugin handshake shared by ragd and its plugins. The
// magic cookie is not a secret: it only tells a plugin binary that it was
// started by ragd rather than by hand.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "RAGD_PLUGIN",
	MagicCookieValue: "5c0b3a9e-ragd-plugin",
}

// EnvLogLevel names the environment variable through which the host tells a
// plugin process the lowest log level it wants on stderr ("trace", "debug",
// "info", "warn", "error").
const EnvLogLevel = "RAGD_PLUGIN_LOG_LEVEL"

// PluginSet returns the go-plugin plugin set for one kind of backend, as a
// host dispenses it (the implementation is nil on the host side).
func PluginSet(kind string) (plugin.PluginSet, error) {
	p, err := grpcPlugin(kind, nil)
	if err != nil {
		return nil, err
	}
	return plugin.PluginSet{kind: p}, nil
}

// grpcOnlyPlugin is what the three *Plugin types are: gRPC plugins whose
// net/rpc methods refuse.
type grpcOnlyPlugin interface {
	plugin.Plugin
	plugin.GRPCPlugin
}

// grpcPlugin returns the go-plugin glue for kind, serving impl (nil on the
// host side).
func grpcPlugin(kind string, impl any) (grpcOnlyPlugin, error) {
	switch kind {
	case KindEmbedder:
		p := &EmbedderPlugin{}
		if impl != nil {
			e, ok := impl.(Embedder)
			if !ok {
				return nil, fmt.Errorf("%T does not implement plugins.Embedder", impl)
			}
			p.Impl = e
		}
		return p, nil
	case KindExtractor:
		p := &ExtractorPlugin{}
		if impl != nil {
			e, ok := impl.(Extractor)
			if !ok {
				return nil, fmt.Errorf("%T does not implement plugins.Extractor", impl)
			}
			p.Impl = e
		}
		return p, nil
	case KindReranker:
		p := &RerankerPlugin{}
		if impl != nil {
			r, ok := impl.(Reranker)
			if !ok {
				return nil, fmt.Errorf("%T does not implement plugins.Reranker", impl)
			}
			p.Impl = r
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown plugin kind %q (want %s, %s or %s)", kind, KindEmbedder, KindExtractor, KindReranker)
}
