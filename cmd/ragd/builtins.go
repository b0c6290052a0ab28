package main

import (
	"context"
	"fmt"
	"io"
	"maps"

	"github.com/ragd/ragd/daemon/config"
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
// the daemon as `ragd plugin NAME`.
func init() {
	builtin.Register("pdf", plugins.KindExtractor, func() any { return pdf.New() })
	builtin.Register("docx", plugins.KindExtractor, func() any { return docx.New() })
	builtin.Register("html", plugins.KindExtractor, func() any { return html.New() })
	builtin.Register("llm-entities", plugins.KindExtractor, func() any { return llmentities.New() })
	builtin.Register("uselite", plugins.KindEmbedder, func() any { return uselite.New() })
	builtin.Register("ollama", plugins.KindEmbedder, func() any { return &presetProvider{httpembed.New(), "ollama"} })
	builtin.Register("openai", plugins.KindEmbedder, func() any { return &presetProvider{httpembed.New(), "openai"} })
	builtin.Register("heuristic", plugins.KindReranker, func() any { return heuristic.New() })
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

// checkBuiltins reports [[plugin]] entries naming an unknown built-in or
// one of another kind.
func checkBuiltins(cfg *config.Config) error {
	for _, p := range cfg.Plugins {
		if p.Builtin == "" {
			continue
		}
		kind, _, ok := builtin.Lookup(p.Builtin)
		if !ok {
			return fmt.Errorf("%s: plugin %q: unknown builtin %q (built in: %v)", cfg.File, p.Name, p.Builtin, builtin.Names())
		}
		if kind != p.Kind {
			return fmt.Errorf("%s: plugin %q: builtin %q is an %s, not an %s", cfg.File, p.Name, p.Builtin, kind, p.Kind)
		}
	}
	return nil
}
