package daemon

import (
	"context"
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
	"github.com/ragd/ragd/plugins/builtin"
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

	extMu      sync.Mutex
	extByExt   map[string]string // extension → extractor plugin name
	extSpecs   map[string][]string
	extKnown   map[string]bool // extractors whose extensions are in extByExt
	extAsked   time.Time       // when the others were last asked
	embedName  string
	rerankName string
}

// pluginSpecs turns the configuration into host specs, adding the default
// built-ins.
func pluginSpecs(cfg *config.Config) ([]host.Spec, *backends) {
	b := &backends{extByExt: map[string]string{}, extSpecs: map[string][]string{}, extKnown: map[string]bool{},
		embedName: cfg.Search.Embedder}
	var specs []host.Spec
	taken := map[string]bool{}
	for _, p := range cfg.Plugins {
		s := host.Spec{Name: p.Name, Kind: p.Kind, Command: p.Command, Args: p.Args, Env: p.Env,
			Options: plugins.Options(p.Options), Timeout: p.Timeout, Concurrency: p.Concurrency}
		if p.Builtin != "" {
			s.Builtin, s.Command, s.Args = true, "", []string{"plugin", p.Builtin}
			if !p.Subprocess {
				s.InProcess = builtin.InProcess(p.Builtin)
			}
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
				Args: []string{"plugin", "heuristic"}, Timeout: 10 * time.Second, Concurrency: 4, InProcess: builtin.InProcess("heuristic")})
		}
		b.rerankName = config.DefaultReranker
	default:
		b.rerankName = r
	}
	return specs, b
}

// extInfoRetry is how often an extractor that could not say which files
// it takes (it was down) is asked again.
const extInfoRetry = 10 * time.Second

// extractorFor returns the extractor plugin taking a file, or "". An
// external extractor without configured extensions is asked which it
// takes; one that cannot answer (down, restarting) is asked again later
// rather than never used.
func (d *Daemon) extractorFor(rel string) string {
	b := d.backends
	var ask []string
	b.extMu.Lock()
	if b.extAsked.IsZero() || time.Since(b.extAsked) >= extInfoRetry {
		for name, exts := range b.extSpecs {
			switch {
			case b.extKnown[name]:
			case len(exts) > 0:
				b.register(name, exts)
			default:
				ask = append(ask, name)
			}
		}
		if len(ask) > 0 {
			b.extAsked = time.Now()
		}
	}
	b.extMu.Unlock()
	for _, name := range ask {
		ex, err := b.mgr.Extractor(name)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		info, err := ex.ExtractorInfo(ctx)
		cancel()
		if err != nil {
			d.log.Warn("extractor did not say which files it takes (asked again later); set extensions in its [[plugin]]", "plugin", name, "err", err)
			continue
		}
		b.extMu.Lock()
		b.register(name, info.Extensions)
		b.extMu.Unlock()
	}
	b.extMu.Lock()
	defer b.extMu.Unlock()
	return b.extByExt[strings.ToLower(path.Ext(rel))]
}

// register records the extensions an extractor takes; b.extMu is held.
func (b *backends) register(name string, exts []string) {
	for _, e := range exts {
		b.extByExt[strings.ToLower(e)] = name
	}
	b.extKnown[name] = true
}

// extractFunc is the index's ExtractFunc for one pass: it runs the file
// through its extractor plugin, with the result cached by content hash. A
// failure that says nothing about the file (host.Transient: the plugin
// crashed, timed out, was restarting) is marked transient, so the file is
// never recorded as done. With wait (a pass a user waits on) a plugin that
// is restarting after a crash is waited for instead of failing at once.
func (d *Daemon) extractFunc(ctx context.Context, wait bool) ingest.ExtractFunc {
	if wait {
		ctx = host.WaitForRestart(ctx)
	}
	return func(rel, sha string, data []byte) (*ingest.Extracted, bool, error) {
		return d.extract(ctx, rel, sha, data)
	}
}

func (d *Daemon) extract(ctx context.Context, rel, sha string, data []byte) (*ingest.Extracted, bool, error) {
	name := d.extractorFor(rel)
	if name == "" {
		return nil, false, nil
	}
	ex, err := d.backends.mgr.Extractor(name)
	if err != nil {
		if host.Transient(err) {
			err = fmt.Errorf("%w: %w", ingest.ErrTransient, err)
		}
		return nil, true, err
	}
	if x, ok := d.ingest.CachedExtraction(sha, name); ok {
		return x, true, nil
	}
	out, err := ex.Extract(ctx, plugins.ExtractRequest{Path: rel, MediaType: mediaType(rel), Data: data})
	if err != nil {
		if host.Transient(err) {
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
