package daemon

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/host"
)

// Built-in extractors run by default for the file types they take, unless
// a [[plugin]] takes those extensions; the heuristic reranker is the
// default reranker.
var defaultExtractors = []struct {
	name string
	exts []string
}{
	{"pdf", []string{".pdf"}},
	{"docx", []string{".docx"}},
	{"html", []string{".html", ".htm"}},
}

// backends are the plugins the daemon uses.
type backends struct {
	mgr *host.Manager

	extOnce    sync.Once
	extByExt   map[string]string // extension → extractor plugin name
	extSpecs   map[string][]string
	embedName  string
	rerankName string
}

// pluginSpecs turns the configuration into host specs, adding the default
// built-ins.
func pluginSpecs(cfg *config.Config) ([]host.Spec, *backends) {
	b := &backends{extByExt: map[string]string{}, extSpecs: map[string][]string{}, embedName: cfg.Search.Embedder}
	var specs []host.Spec
	taken := map[string]bool{}
	for _, p := range cfg.Plugins {
		s := host.Spec{Name: p.Name, Kind: p.Kind, Command: p.Command, Args: p.Args, Env: p.Env,
			Options: plugins.Options(p.Options), Timeout: p.Timeout, Concurrency: p.Concurrency}
		if p.Builtin != "" {
			s.Builtin, s.Command, s.Args = true, "", []string{"plugin", p.Builtin}
		} else {
			// Plugins not written with go-plugin (Node, Python) rarely speak
			// its automatic mTLS; the socket lives in a private directory.
			s.DisableAutoMTLS = true
		}
		specs = append(specs, s)
		if p.Kind == plugins.KindExtractor {
			exts := p.Extensions
			if len(exts) == 0 && p.Builtin != "" {
				for _, d := range defaultExtractors {
					if d.name == p.Builtin {
						exts = d.exts
					}
				}
			}
			b.extSpecs[p.Name] = exts
			for _, e := range exts {
				taken[e] = true
			}
		}
	}
	names := map[string]bool{}
	for _, s := range specs {
		names[s.Name] = true
	}
	for _, d := range defaultExtractors {
		if slices.ContainsFunc(d.exts, func(e string) bool { return taken[e] }) || names[d.name] {
			continue
		}
		specs = append(specs, host.Spec{Name: d.name, Kind: plugins.KindExtractor, Builtin: true, Lazy: true,
			Args: []string{"plugin", d.name}, Timeout: config.DefaultPluginTimeout, Concurrency: config.DefaultPluginConcurrency})
		b.extSpecs[d.name] = d.exts
	}
	switch r := cfg.Search.Reranker; r {
	case "none":
	case "", config.DefaultReranker:
		if !names[config.DefaultReranker] {
			specs = append(specs, host.Spec{Name: config.DefaultReranker, Kind: plugins.KindReranker, Builtin: true, Lazy: true,
				Args: []string{"plugin", "heuristic"}, Timeout: 10 * time.Second, Concurrency: 4})
		}
		b.rerankName = config.DefaultReranker
	default:
		b.rerankName = r
	}
	return specs, b
}

// extractorFor returns the extractor plugin taking a file, or "".
func (d *Daemon) extractorFor(rel string) string {
	b := d.backends
	b.extOnce.Do(func() {
		for name, exts := range b.extSpecs {
			if len(exts) == 0 {
				// An external extractor without configured extensions says
				// which it takes.
				ex, err := b.mgr.Extractor(name)
				if err != nil {
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				info, err := ex.ExtractorInfo(ctx)
				cancel()
				if err != nil {
					d.log.Warn("extractor did not say which files it takes; set extensions in its [[plugin]]", "plugin", name, "err", err)
					continue
				}
				exts = info.Extensions
			}
			for _, e := range exts {
				b.extByExt[strings.ToLower(e)] = name
			}
		}
	})
	return b.extByExt[strings.ToLower(path.Ext(rel))]
}

// extract is the index's ExtractFunc: it runs the file through its
// extractor plugin, with the result cached by content hash.
func (d *Daemon) extract(rel, sha string, data []byte) (*ingest.Extracted, bool, error) {
	name := d.extractorFor(rel)
	if name == "" {
		return nil, false, nil
	}
	ex, err := d.backends.mgr.Extractor(name)
	if err != nil {
		return nil, true, err
	}
	if x, ok := d.ingest.CachedExtraction(sha, name); ok {
		return x, true, nil
	}
	out, err := ex.Extract(context.Background(), plugins.ExtractRequest{Path: rel, MediaType: mediaType(rel), Data: data})
	if err != nil {
		if errors.Is(err, host.ErrTimeout) || errors.Is(err, host.ErrUnavailable) {
			err = fmt.Errorf("%w: %w", ingest.ErrTransient, err)
		}
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	x := &ingest.Extracted{Text: out.Text, Markdown: out.Format == plugins.FormatMarkdown, Title: out.Title, Extractor: name}
	for _, p := range out.Pages {
		x.Pages = append(x.Pages, p.StartLine)
	}
	d.ingest.CacheExtraction(sha, name, x)
	return x, true, nil
}

func mediaType(rel string) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".pdf":
		return "application/pdf"
	case ".docx":
		return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	case ".html", ".htm":
		return "text/html"
	}
	return ""
}

// Plugins implements ipc.Backend.
func (d *Daemon) Plugins(ctx context.Context) (*ipc.PluginsResponse, error) {
	return &ipc.PluginsResponse{Plugins: d.backends.mgr.Status()}, nil
}
