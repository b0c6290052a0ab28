package main

import (
	"context"
	"fmt"
	"io"
	"maps"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/builtin"
	"github.com/ragd/ragd/plugins/embed/httpembed"
	"github.com/ragd/ragd/plugins/embed/uselite"
	"github.com/ragd/ragd/plugins/extract/docx"
	"github.com/ragd/ragd/plugins/extract/html"
	"github.com/ragd/ragd/plugins/extract/llmentities"
	"github.com/ragd/ragd/plugins/extract/pdf"
	"github.com/ragd/ragd/plugins/rerank/heuristic"
	"github.com/ragd/ragd/plugins/rerank/httprerank"
)

// The backends built into ragd. Each runs in its own process, started by
// the daemon as `ragd plugin NAME`, except the heuristic reranker: it
// scores, in microseconds, the metadata ragd itself sends, so the daemon
// calls it in its own process and spares every search a round trip (a
// [[plugin]] with subprocess = true still runs it apart). The extractors
// parse untrusted files (a PDF, a DOCX zip that may inflate to 8× its
// size, an HTML page whose parse no context can stop), uselite holds a
// model and burns seconds of CPU, the others wait on servers: a crash, a
// hang or a memory spike of theirs stays in their process.
func init() {
	builtin.Register("pdf", plugins.KindExtractor, func() any { return pdf.New() })
	builtin.Register("docx", plugins.KindExtractor, func() any { return docx.New() })
	builtin.Register("html", plugins.KindExtractor, func() any { return html.New() })
	builtin.Register("llm-entities", plugins.KindExtractor, func() any { return llmentities.New() })
	builtin.Register("uselite", plugins.KindEmbedder, func() any { return uselite.New() })
	builtin.Register("ollama", plugins.KindEmbedder, func() any { return &presetProvider{httpembed.New(), "ollama"} })
	builtin.Register("openai", plugins.KindEmbedder, func() any { return &presetProvider{httpembed.New(), "openai"} })
	builtin.RegisterInProcess("heuristic", plugins.KindReranker, func() any { return heuristic.New() })
	builtin.Register("http-rerank", plugins.KindReranker, func() any { return httprerank.New() })
}

// presetProvider is the HTTP embedder with its provider option fixed by
// the built-in's name ("ollama", "openai").
type presetProvider struct {
	*httpembed.Embedder
	provider string
}

func (p *presetProvider) Configure(ctx context.Context, o plugins.Options) error {
	o = maps.Clone(o)
	if o == nil {
		o = plugins.Options{}
	}
	if _, set := o["provider"]; !set {
		o["provider"] = p.provider
	}
	return p.Embedder.Configure(ctx, o)
}

// pluginMain is `ragd plugin NAME`.
func pluginMain(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: ragd plugin NAME (started by the daemon; built in: %v)\n", builtin.Names())
		return 2
	}
	if err := builtin.Main(args[0]); err != nil {
		fmt.Fprintf(stderr, "ragd plugin: %v\n", err)
		return 1
	}
	return 0
}

// builtins lets the configuration check [[plugin]] entries naming a
// built-in backend (config.Builtins).
type builtins struct{}

func (builtins) Kind(name string) (string, bool) {
	kind, _, ok := builtin.Lookup(name)
	return kind, ok
}

func (builtins) Names() []string { return builtin.Names() }

func (builtins) Check(name string, opts map[string]any) error {
	return builtin.Check(name, plugins.Options(opts))
}
