package config

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ragd/ragd/index/analyze"
)

// Upper bounds that keep numbers sane (and conversions exact).
const (
	maxChars   = 10_000_000 // chunk_chars, chunk_overlap, parent_chars
	maxWorkers = 1024
	maxFileMB  = 1 << 20 // 1 TiB
)

// Known keys per table, in the order they are documented.
var (
	rootKeys   = []string{"daemon", "index", "vault", "plugin", "search"}
	daemonKeys = []string{"socket", "data_dir", "log_level", "debounce", "rescan_interval", "startup_wait"}
	indexKeys  = []string{"chunk_chars", "chunk_overlap", "parent_chars", "bm25_k1", "bm25_b", "title_weight", "heading_weight", "workers", "entity_extractor",
		"alias_weight", "property_weight", "tag_weight", "anchor_weight", "anchor_context_weight", "whole_note_weight",
		"proximity_weight", "properties", "ignore_properties", "language"}
	vaultKeys = []string{"name", "path", "include", "exclude", "max_file_mb", "watch"}
)

// validator turns the decoded TOML tree into a Config, collecting every
// problem it finds.
type validator struct {
	errs     errList
	pos      positions
	baseDir  string
	builtins Builtins // nil: built-in plugins are not checked

	socketLine int  // line of daemon.socket, 0 when it is not set
	socketBad  bool // daemon.socket is set but unusable (already reported)
}

func (v *validator) add(line int, key, format string, args ...any) {
	v.errs.add(line, key, fmt.Sprintf(format, args...))
}

func (v *validator) config(raw map[string]any) *Config {
	cfg := Default()
	v.unknownKeys(raw, "", rootKeys, "at the top level")
	if t, ok := v.table(raw, "", "daemon"); ok {
		v.daemon(t, &cfg.Daemon)
	}
	if !v.socketBad {
		v.checkSocket(cfg.Daemon.Socket)
	}
	if t, ok := v.table(raw, "", "index"); ok {
		v.index(t, &cfg.Index)
	}
	cfg.Vaults = v.vaults(raw["vault"])
	cfg.Plugins = v.plugins(raw["plugin"])
	if t, ok := v.table(raw, "", "search"); ok {
		v.search(t, &cfg.Search)
	}
	v.crossCheck(cfg)
	v.checkEntityExtractor(cfg)
	return cfg
}

// table returns tbl[name] as a table, reporting a type error if it is
// something else.
func (v *validator) table(tbl map[string]any, prefix, name string) (map[string]any, bool) {
	val, ok := tbl[name]
	if !ok {
		return nil, false
	}
	t, ok := val.(map[string]any)
	if !ok {
		key := keyJoin(prefix, name)
		v.add(v.pos.line(key, prefix), key, "expected a table ([%s]), got %s", name, describe(val))
	}
	return t, ok
}

// unknownKeys reports the keys of tbl that are not in known, suggesting the
// closest known key.
func (v *validator) unknownKeys(tbl map[string]any, prefix string, known []string, where string) {
	var unknown []string
	for k := range tbl {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		key := keyJoin(prefix, k)
		msg := "unknown key"
		if s := suggest(k, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		} else {
			msg += fmt.Sprintf("; known keys %s: %s", where, strings.Join(known, ", "))
		}
		v.add(v.pos.line(key, prefix), key, "%s", msg)
	}
}

func (v *validator) daemon(t map[string]any, d *Daemon) {
	v.unknownKeys(t, "daemon", daemonKeys, "in [daemon]")
	if _, set := t["socket"]; set {
		v.socketBad = true
	}
	if s, line, ok := v.str(t, "daemon", "socket"); ok {
		if p, ok := v.path(line, "daemon.socket", s); ok {
			d.Socket, v.socketLine, v.socketBad = p, line, false
		}
	}
	if s, line, ok := v.str(t, "daemon", "data_dir"); ok {
		if p, ok := v.path(line, "daemon.data_dir", s); ok {
			d.DataDir = p
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				v.add(line, "daemon.data_dir", "%s is not a directory%s", quote(s), resolvedNote(s, p))
			}
		}
	}
	if s, line, ok := v.str(t, "daemon", "log_level"); ok {
		if l := strings.ToLower(s); slices.Contains(LogLevels, l) {
			d.LogLevel = l
		} else {
			v.add(line, "daemon.log_level", "%s is not a log level; use one of %s", quote(s), strings.Join(LogLevels, ", "))
		}
	}
	if dur, line, ok := v.duration(t, "daemon", "debounce"); ok {
		if dur < time.Millisecond || dur > time.Minute {
			v.add(line, "daemon.debounce", "%s is out of range: use 1ms to 1m", dur)
		} else {
			d.Debounce = dur
		}
	}
	if dur, line, ok := v.duration(t, "daemon", "rescan_interval"); ok {
		if dur != 0 && dur < time.Second {
			v.add(line, "daemon.rescan_interval", "%s is too short: use at least 1s, or 0 to turn periodic rescans off", dur)
		} else {
			d.RescanInterval = dur
		}
	}
	if dur, line, ok := v.duration(t, "daemon", "startup_wait"); ok {
		if dur < 0 || dur > 10*time.Minute {
			v.add(line, "daemon.startup_wait", "%s is out of range: use 0 to 10m", dur)
		} else {
			d.StartupWait = dur
		}
	}
}

// checkSocket reports a socket path too long for a unix socket, whether it
// was configured (v.socketLine > 0) or is the default.
func (v *validator) checkSocket(p string) {
	if len(p) <= MaxSocketPath {
		return
	}
	what := "socket path"
	if v.socketLine == 0 {
		what = "default socket path"
	}
	v.add(v.socketLine, "daemon.socket", "%s %s is %d bytes; unix sockets allow at most %d, so set a shorter daemon.socket", what, quote(p), len(p), MaxSocketPath)
}

func (v *validator) index(t map[string]any, ix *Index) {
	v.unknownKeys(t, "index", indexKeys, "in [index]")
	const p = "index"
	chunkLine, overlapLine, parentLine := 0, 0, 0
	chunkOK, overlapOK, parentOK := true, true, true
	if n, line, ok := v.int(t, p, "chunk_chars"); ok {
		chunkLine = line
		if chunkOK = v.inRange(line, "index.chunk_chars", float64(n), 0, true, maxChars); chunkOK {
			ix.ChunkChars = int(n)
		}
	}
	if n, line, ok := v.int(t, p, "chunk_overlap"); ok {
		overlapLine = line
		if overlapOK = v.inRange(line, "index.chunk_overlap", float64(n), 0, false, maxChars); overlapOK {
			ix.ChunkOverlap = int(n)
		}
	}
	if n, line, ok := v.int(t, p, "parent_chars"); ok {
		parentLine = line
		if parentOK = v.inRange(line, "index.parent_chars", float64(n), 0, true, maxChars); parentOK {
			ix.ParentChars = int(n)
		}
	}
	if chunkOK && overlapOK && 2*ix.ChunkOverlap >= ix.ChunkChars {
		if overlapLine > 0 || chunkLine == 0 {
			v.add(overlapLine, "index.chunk_overlap", "%d must be less than half of chunk_chars (%d)", ix.ChunkOverlap, ix.ChunkChars)
		} else {
			v.add(chunkLine, "index.chunk_chars", "%d is too small for the default chunk_overlap of %d (it must be more than twice the overlap); lower chunk_overlap too", ix.ChunkChars, ix.ChunkOverlap)
		}
	}
	if chunkOK && parentOK && ix.ParentChars < ix.ChunkChars {
		if parentLine > 0 || chunkLine == 0 {
			v.add(parentLine, "index.parent_chars", "%d must be at least chunk_chars (%d)", ix.ParentChars, ix.ChunkChars)
		} else {
			v.add(chunkLine, "index.chunk_chars", "%d is larger than the default parent_chars of %d; raise parent_chars too", ix.ChunkChars, ix.ParentChars)
		}
	}
	if f, line, ok := v.float(t, p, "bm25_k1"); ok && v.inRange(line, "index.bm25_k1", f, 0, false, math.Inf(1)) {
		ix.K1 = f
	}
	if f, line, ok := v.float(t, p, "bm25_b"); ok && v.inRange(line, "index.bm25_b", f, 0, false, 1) {
		ix.B = f
	}
	if f, line, ok := v.float(t, p, "title_weight"); ok && v.inRange(line, "index.title_weight", f, 0, false, math.Inf(1)) {
		ix.TitleWeight = f
	}
	if f, line, ok := v.float(t, p, "heading_weight"); ok && v.inRange(line, "index.heading_weight", f, 0, false, math.Inf(1)) {
		ix.HeadingWeight = f
	}
	for key, dst := range map[string]*float64{"alias_weight": &ix.AliasWeight, "property_weight": &ix.PropertyWeight,
		"tag_weight": &ix.TagWeight, "anchor_weight": &ix.AnchorWeight, "anchor_context_weight": &ix.AnchorContextWeight,
		"whole_note_weight": &ix.WholeNoteWeight, "proximity_weight": &ix.ProximityWeight} {
		if f, line, ok := v.float(t, p, key); ok && v.inRange(line, "index."+key, f, 0, false, math.Inf(1)) {
			*dst = f
		}
	}
	if ss, ok := v.strings(t, p, "properties"); ok {
		ix.Properties = ss
	}
	if ss, ok := v.strings(t, p, "ignore_properties"); ok {
		ix.IgnoreProperties = ss
	}
	if s, line, ok := v.str(t, p, "language"); ok {
		if _, err := analyze.ParseLang(s); err != nil && s != "auto" {
			v.add(line, "index.language", "unknown language %q (want %s, none or auto)", s, langList())
		} else {
			ix.Language = s
		}
	}
	if n, line, ok := v.int(t, p, "workers"); ok && v.inRange(line, "index.workers", float64(n), 0, false, maxWorkers) {
		ix.Workers = int(n)
		if n == 0 {
			ix.Workers = runtime.NumCPU()
		}
	}
	if s, _, ok := v.str(t, p, "entity_extractor"); ok {
		ix.EntityExtractor = s
	}
}

// checkEntityExtractor verifies that index.entity_extractor names an
// extractor plugin.
func (v *validator) checkEntityExtractor(cfg *Config) {
	n := cfg.Index.EntityExtractor
	if n == "" {
		return
	}
	const key = "index.entity_extractor"
	i := slices.IndexFunc(cfg.Plugins, func(p Plugin) bool { return p.Name == n })
	switch {
	case i < 0:
		v.add(v.pos.line(key, "index"), key, "no [[plugin]] is named %q (configure an extractor such as builtin = \"llm-entities\")", n)
	case cfg.Plugins[i].Kind != "extractor":
		v.add(v.pos.line(key, "index"), key, "plugin %q is a %s, not an extractor", n, cfg.Plugins[i].Kind)
	}
}

// inRange reports f outside lo..hi (lo itself excluded when open).
func (v *validator) inRange(line int, key string, f, lo float64, open bool, hi float64) bool {
	tooLow := f < lo || open && f == lo
	if !tooLow && f <= hi {
		return true
	}
	switch {
	case lo == 0 && hi == 1:
		v.add(line, key, "must be between 0 and 1, got %s", fmtNum(f))
	case tooLow && lo == 0 && open:
		v.add(line, key, "must be positive, got %s", fmtNum(f))
	case tooLow && lo == 0:
		v.add(line, key, "must not be negative, got %s", fmtNum(f))
	case tooLow:
		v.add(line, key, "must be at least %s, got %s", fmtNum(lo), fmtNum(f))
	default:
		v.add(line, key, "must be at most %s, got %s", fmtNum(hi), fmtNum(f))
	}
	return false
}

// langList names the analysis languages.
func langList() string {
	var out []string
	for _, l := range analyze.Langs() {
		if s := l.String(); s != "none" {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}
