package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
)

// Plugin is one [[plugin]] entry: a backend run as a subprocess (or, for
// some built-ins, in ragd's process).
//
//	[[plugin]]
//	name = "embed"            # unique; what [search] refers to
//	kind = "embedder"         # embedder | extractor | reranker
//	builtin = "ollama"        # a backend built into ragd, or:
//	command = "node"          # an executable (PATH is searched)
//	subprocess = true         # built-ins: never in ragd's process
//	args = ["org-extractor/index.js"]
//	env = { KEY = "value" }
//	timeout = "30s"           # per call; a call past it kills and restarts the plugin
//	concurrency = 2           # calls in flight at once
//	extensions = [".org"]     # extractors: the files it takes (default: what it announces)
//	[plugin.options]          # handed to the plugin as JSON at start
//	model = "nomic-embed-text"
type Plugin struct {
	Name        string
	Kind        string
	Builtin     string // "" for an external command
	Command     string
	Args        []string
	Env         map[string]string
	Timeout     time.Duration
	Concurrency int
	Extensions  []string
	Options     map[string]any
	// Subprocess runs a built-in that ragd would call in its own process
	// (the heuristic reranker) as `ragd plugin NAME`, like the others.
	Subprocess bool
}

// Search holds the [search] table: which plugins serve queries and how the
// channels are fused.
type Search struct {
	// Embedder names the embedder plugin of the vector channel; "" means
	// no semantic search (lexical + graph).
	Embedder string
	// Reranker names a reranker plugin; "heuristic" (also when empty) is
	// the built-in one, "none" turns reranking off.
	Reranker string
	// Fusion is "convex" or "rrf"; "" lets ragd pick per embedder.
	Fusion string
	// Weights overrides channel weights (bm25, vector, graph).
	Weights map[string]float64
	// MinBM25 and MinSimilarity are the safety floor: a query is grounded
	// when its best BM25 score or vector similarity reaches its floor.
	MinBM25, MinSimilarity float64
	// Alpha drops candidates scoring under alpha × the best (denoising).
	Alpha float64
	// KeywordVectorScale multiplies the vector weight for a query typed as
	// a few keywords; nil lets ragd pick per embedder.
	KeywordVectorScale *float64
}

// Plugin kinds.
var pluginKinds = []string{"embedder", "extractor", "reranker"}

var (
	pluginKeys = []string{"name", "kind", "builtin", "subprocess", "command", "args", "env", "timeout", "concurrency", "extensions", "options"}
	searchKeys = []string{"embedder", "reranker", "fusion", "weights", "min_bm25", "min_similarity", "alpha", "keyword_vector_scale"}
)

// Defaults of plugin and search settings.
const (
	DefaultPluginTimeout     = 60 * time.Second
	DefaultPluginConcurrency = 2
	DefaultReranker          = "heuristic"
)

func (v *validator) plugins(raw any) []Plugin {
	elems, ok := v.arrayOfTables(raw, "plugin")
	if !ok {
		return nil
	}
	var out []Plugin
	names := map[string]bool{}
	for i, e := range elems {
		key := keyIndex("plugin", i)
		t, ok := e.(map[string]any)
		if !ok {
			v.add(v.pos.line(key, "plugin"), key, "expected a table, got %s", describe(e))
			continue
		}
		p := v.plugin(t, key)
		if p.Name == "" {
			continue
		}
		if names[p.Name] {
			v.add(v.pos.line(key+".name", key), key+".name", "duplicate plugin name %q", p.Name)
			continue
		}
		names[p.Name] = true
		out = append(out, p)
	}
	return out
}

func (v *validator) plugin(t map[string]any, key string) Plugin {
	p := Plugin{Timeout: DefaultPluginTimeout, Concurrency: DefaultPluginConcurrency}
	header := v.pos.line(key, "plugin")
	v.unknownKeys(t, key, pluginKeys, "in [[plugin]]")
	if _, ok := t["name"]; !ok {
		v.add(header, key+".name", "required key is missing from this plugin")
	} else if s, line, ok := v.str(t, key, "name"); ok {
		if s == "" || strings.Trim(s, "._-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			v.add(line, key+".name", "%s is not a valid name: use only letters, digits, '.', '_' and '-'", quote(s))
		} else {
			p.Name = s
		}
	}
	if _, ok := t["kind"]; !ok {
		v.add(header, key+".kind", "required key is missing from this plugin (one of %s)", strings.Join(pluginKinds, ", "))
	} else if s, line, ok := v.str(t, key, "kind"); ok {
		if !slices.Contains(pluginKinds, s) {
			v.add(line, key+".kind", "unknown kind %s: want one of %s", quote(s), strings.Join(pluginKinds, ", "))
		} else {
			p.Kind = s
		}
	}
	b, bline, hasB := v.str(t, key, "builtin")
	c, cline, hasC := v.str(t, key, "command")
	switch {
	case hasB && hasC:
		v.add(cline, key+".command", "set either builtin or command, not both")
	case hasB:
		if b == "" {
			v.add(bline, key+".builtin", "must not be empty")
		}
		p.Builtin = b
	case hasC:
		if c == "" {
			v.add(cline, key+".command", "must not be empty")
		}
		p.Command = c
	default:
		if _, present := t["builtin"]; !present {
			if _, present := t["command"]; !present {
				v.add(header, key+".command", "a plugin needs a command to run, or builtin = \"NAME\" for one built into ragd")
			}
		}
	}
	if sub, line, ok := v.bool(t, key, "subprocess"); ok {
		if sub && !hasB {
			v.add(line, key+".subprocess", "only for a built-in: a command always runs as a subprocess")
		}
		p.Subprocess = sub
	}
	if args, ok := v.strings(t, key, "args"); ok {
		p.Args = args
	}
	if exts, ok := v.strings(t, key, "extensions"); ok {
		for i, e := range exts {
			if !strings.HasPrefix(e, ".") {
				ek := keyIndex(key+".extensions", i)
				v.add(v.pos.line(ek, key+".extensions", key), ek, "extension %s must start with a dot (\".%s\")", quote(e), e)
				continue
			}
			p.Extensions = append(p.Extensions, strings.ToLower(e))
		}
	}
	if env, ok := t["env"]; ok {
		m, isMap := env.(map[string]any)
		if !isMap {
			v.add(v.pos.line(key+".env", key), key+".env", "expected a table of strings (env = { NAME = \"value\" }), got %s", describe(env))
		}
		for k, val := range m {
			s, isStr := val.(string)
			if !isStr {
				ek := key + ".env." + fmtSeg(k)
				v.add(v.pos.line(ek, key+".env", key), ek, "expected a string, got %s", describe(val))
				continue
			}
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env[k] = s
		}
	}
	if d, line, ok := v.duration(t, key, "timeout"); ok {
		if d <= 0 {
			v.add(line, key+".timeout", "must be more than 0")
		} else {
			p.Timeout = d
		}
	}
	if n, line, ok := v.int(t, key, "concurrency"); ok && v.inRange(line, key+".concurrency", float64(n), 0, true, 256) {
		p.Concurrency = int(n)
	}
	if o, ok := t["options"]; ok {
		m, isMap := o.(map[string]any)
		if !isMap {
			v.add(v.pos.line(key+".options", key), key+".options", "expected a table ([plugin.options]), got %s", describe(o))
		}
		p.Options = m
	}
	v.checkBuiltin(p, key, bline)
	return p
}

// strings reads an optional array of strings.
func (v *validator) strings(t map[string]any, prefix, name string) ([]string, bool) {
	key := keyJoin(prefix, name)
	val, ok := t[name]
	if !ok {
		return nil, false
	}
	arr, isArr := val.([]any)
	if !isArr {
		v.add(v.pos.line(key, prefix), key, "expected an array of strings, got %s", describe(val))
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, isStr := e.(string)
		if !isStr {
			ek := keyIndex(key, i)
			v.add(v.pos.line(ek, key, prefix), ek, "expected a string, got %s", describe(e))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// arrayOfTables returns the elements of a [[name]] array.
func (v *validator) arrayOfTables(raw any, name string) ([]any, bool) {
	switch val := raw.(type) {
	case nil:
		return nil, false
	case []map[string]any:
		out := make([]any, len(val))
		for i, m := range val {
			out[i] = m
		}
		return out, true
	case []any:
		return val, true
	case map[string]any:
		v.add(v.pos.line(name), name, "%ss are an array of tables: write [[%s]], not [%s]", name, name, name)
	default:
		v.add(v.pos.line(name), name, "expected [[%s]] tables, got %s", name, describe(val))
	}
	return nil, false
}

func (v *validator) search(t map[string]any, s *Search) {
	const p = "search"
	v.unknownKeys(t, p, searchKeys, "in [search]")
	if x, _, ok := v.str(t, p, "embedder"); ok {
		s.Embedder = x
	}
	if x, _, ok := v.str(t, p, "reranker"); ok {
		s.Reranker = x
	}
	if x, line, ok := v.str(t, p, "fusion"); ok {
		if !ipc.ValidFusion(x) {
			v.add(line, "search.fusion", "unknown fusion %s: want \"convex\" or \"rrf\"", quote(x))
		} else {
			s.Fusion = x
		}
	}
	if w, ok := t["weights"]; ok {
		m, isMap := w.(map[string]any)
		if !isMap {
			v.add(v.pos.line("search.weights", p), "search.weights", "expected a table like { lexical = 1.0, vector = 0.3 }, got %s", describe(w))
		}
		for k := range m {
			wk := "search.weights." + fmtSeg(k)
			ch, known := ipc.CanonicalChannel(k) // "bm25", the old name, is "lexical"
			if !known {
				v.add(v.pos.line(wk, "search.weights", p), wk, "unknown channel %s: want %s", quote(k), strings.Join(ipc.Channels, ", "))
				continue
			}
			if f, line, ok := v.float(m, "search.weights", k); ok && v.inRange(line, wk, f, 0, false, ipc.MaxWeight) {
				if s.Weights == nil {
					s.Weights = map[string]float64{}
				}
				s.Weights[ch] = f
			}
		}
	}
	if f, line, ok := v.float(t, p, "min_bm25"); ok && v.inRange(line, "search.min_bm25", f, 0, false, 1e9) {
		s.MinBM25 = f
	}
	if f, line, ok := v.float(t, p, "min_similarity"); ok && v.inRange(line, "search.min_similarity", f, -1, false, 1) {
		s.MinSimilarity = f
	}
	if f, line, ok := v.float(t, p, "alpha"); ok && v.inRange(line, "search.alpha", f, 0, false, 1) {
		s.Alpha = f
	}
	if f, line, ok := v.float(t, p, "keyword_vector_scale"); ok && v.inRange(line, "search.keyword_vector_scale", f, 0, false, 1) {
		s.KeywordVectorScale = &f
	}
}

// crossCheck verifies references between tables: [search] names plugins
// of the right kind.
func (v *validator) crossCheck(cfg *Config) {
	find := func(name string) *Plugin {
		for i := range cfg.Plugins {
			if cfg.Plugins[i].Name == name {
				return &cfg.Plugins[i]
			}
		}
		return nil
	}
	if n := cfg.Search.Embedder; n != "" {
		if p := find(n); p == nil {
			v.add(v.pos.line("search.embedder", "search"), "search.embedder", "no [[plugin]] is named %q", n)
		} else if p.Kind != "embedder" {
			v.add(v.pos.line("search.embedder", "search"), "search.embedder", "plugin %q is a %s, not an embedder", n, p.Kind)
		}
	}
	if n := cfg.Search.Reranker; n != "" && n != "none" && n != DefaultReranker {
		if p := find(n); p == nil {
			v.add(v.pos.line("search.reranker", "search"), "search.reranker", "no [[plugin]] is named %q (use \"heuristic\", \"none\" or a reranker plugin)", n)
		} else if p.Kind != "reranker" {
			v.add(v.pos.line("search.reranker", "search"), "search.reranker", "plugin %q is a %s, not a reranker", n, p.Kind)
		}
	}
}

// String names a plugin for messages.
func (p Plugin) String() string {
	if p.Builtin != "" {
		return fmt.Sprintf("%s (%s, built-in %s)", p.Name, p.Kind, p.Builtin)
	}
	return fmt.Sprintf("%s (%s, %s)", p.Name, p.Kind, p.Command)
}
