package llmentities

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/httpx"
)

// Version of this backend, reported in ExtractorInfo.
const Version = "1"

// Extractor is the llmentities backend; unusable until Configure.
type Extractor struct {
	mu     sync.RWMutex
	cfg    *Config
	client *httpx.Client
	cache  *cache
}

var (
	_ plugins.Extractor    = (*Extractor)(nil)
	_ plugins.Configurable = (*Extractor)(nil)
)

// New returns an unconfigured Extractor.
func New() *Extractor { return &Extractor{} }

// Configure decodes opts and creates cache_dir; it does not contact the
// server.
func (e *Extractor) Configure(_ context.Context, opts plugins.Options) error {
	cfg, err := parseConfig(opts)
	if err != nil {
		return fmt.Errorf("llmentities: %w", err)
	}
	client, err := cfg.Client("llmentities")
	if err != nil {
		return fmt.Errorf("llmentities: %w", err)
	}
	if cfg.CacheDir != "" {
		if err := mkdirAll(cfg.CacheDir); err != nil {
			return fmt.Errorf(`llmentities: option "cache_dir": %w`, err)
		}
	}
	e.mu.Lock()
	e.cfg, e.client, e.cache = &cfg, client, newCache(cfg.CacheDir, cfg.CacheEntries)
	e.mu.Unlock()
	return nil
}

func (e *Extractor) state() (*Config, *httpx.Client, *cache, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.cfg == nil {
		return nil, nil, nil, errNotConfigured
	}
	return e.cfg, e.client, e.cache, nil
}

// ExtractorInfo lists the configured extensions.
func (e *Extractor) ExtractorInfo(context.Context) (plugins.ExtractorInfo, error) {
	cfg, _, _, err := e.state()
	if err != nil {
		return plugins.ExtractorInfo{}, err
	}
	info := plugins.ExtractorInfo{Name: "llmentities", Version: Version, Extensions: slices.Clone(cfg.Extensions)}
	for _, x := range cfg.Extensions {
		if x == ".md" || x == ".markdown" {
			info.MediaTypes = []string{"text/markdown"}
		}
	}
	return info, nil
}

// Extract returns the note unchanged with the entities and relations the
// model finds in it.
func (e *Extractor) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	cfg, client, cache, err := e.state()
	if err != nil {
		return plugins.Extraction{}, err
	}
	// Text is the note unchanged; invalid UTF-8 (never in a real note) is
	// replaced (each bad run by U+FFFD), which keeps the line numbers.
	text := strings.ToValidUTF8(string(req.Data), "\uFFFD")
	ext := plugins.Extraction{Text: text, Format: plugins.FormatMarkdown}
	if x := strings.ToLower(path.Ext(req.Path)); x != "" && x != ".md" && x != ".markdown" {
		ext.Format = plugins.FormatText
	}
	chunks := slices.DeleteFunc(split(text, cfg.MaxChars), func(c chunk) bool { return !hasLetter(c.Text) })
	replies, err := e.replies(ctx, cfg, client, cache, chunks)
	if err != nil {
		return plugins.Extraction{}, fmt.Errorf("llmentities: %s: %w", req.Path, err)
	}
	for i, ch := range chunks {
		ents, rels := clean(replies[i], cfg.MinConfidence)
		for _, en := range ents {
			en.Line = ch.Line
			ext.Entities = append(ext.Entities, en)
		}
		for _, r := range rels {
			r.Line = ch.Line
			ext.Relations = append(ext.Relations, r)
		}
	}
	return ext, nil
}

// replies returns the reply for each chunk, from the cache or the model,
// asking at most concurrency chunks at once and each distinct text once.
func (e *Extractor) replies(ctx context.Context, cfg *Config, client *httpx.Client, c *cache, chunks []chunk) ([]reply, error) {
	keys := make([]string, len(chunks))
	got := map[string]reply{}
	var todo []int // first chunk of each missing key
	for i, ch := range chunks {
		keys[i] = cacheKey(cfg.Model, ch.Text)
		if _, seen := got[keys[i]]; seen || slices.ContainsFunc(todo, func(j int) bool { return keys[j] == keys[i] }) {
			continue
		}
		if r, ok := c.get(keys[i]); ok {
			got[keys[i]] = r
		} else {
			todo = append(todo, i)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, cfg.Concurrency)
	)
	for _, i := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				return
			}
			r, err := ask(ctx, client, cfg, chunks[i].Text)
			if err == nil {
				err = c.put(keys[i], cfg.Model, r)
				if err != nil {
					err = fmt.Errorf("cache: %w", err)
				}
			}
			if err != nil {
				cancel(fmt.Errorf("chunk at line %d: %w", chunks[i].Line, err))
				return
			}
			mu.Lock()
			got[keys[i]] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	out := make([]reply, len(chunks))
	for i, k := range keys {
		out[i] = got[k]
	}
	return out, nil
}

// clean validates one reply: drops nameless entities, incomplete
// relations and anything below minConf; clamps confidences to [0, 1];
// maps unknown types to OTHER; merges repeated (name, type) pairs.
func clean(r reply, minConf float64) ([]plugins.Entity, []plugins.Relation) {
	var ents []plugins.Entity
	index := map[string]int{}
	for _, x := range r.Entities {
		name := strings.TrimSpace(x.Name)
		conf := clamp(x.Confidence)
		if name == "" || conf < minConf {
			continue
		}
		typ := strings.ToUpper(strings.TrimSpace(x.Type))
		if !slices.Contains(EntityTypes, typ) {
			typ = "OTHER"
		}
		k := strings.ToLower(name) + "\x00" + typ
		i, seen := index[k]
		if !seen {
			i = len(ents)
			index[k] = i
			ents = append(ents, plugins.Entity{Name: name, Type: typ})
		}
		en := &ents[i]
		en.Confidence = max(en.Confidence, conf)
		for _, a := range x.Aliases {
			a = strings.TrimSpace(a)
			if a != "" && !strings.EqualFold(a, en.Name) && !slices.ContainsFunc(en.Aliases, func(b string) bool { return strings.EqualFold(a, b) }) {
				en.Aliases = append(en.Aliases, a)
			}
		}
	}
	var rels []plugins.Relation
	for _, x := range r.Relations {
		rel := plugins.Relation{Subject: strings.TrimSpace(x.Subject), Predicate: strings.TrimSpace(x.Predicate),
			Object: strings.TrimSpace(x.Object), Confidence: clamp(x.Confidence)}
		if rel.Subject == "" || rel.Predicate == "" || rel.Object == "" || rel.Confidence < minConf {
			continue
		}
		rels = append(rels, rel)
	}
	return ents, rels
}

// hasLetter reports whether s has a letter: chunks without one (rules,
// numbers, binary junk) name nothing and are not sent.
func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

func clamp(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(max(x, 0), 1)
}
