// Package config loads, defaults and validates ragd.toml.
//
// A configuration file looks like this (every key except a vault's name and
// path is optional):
//
//	[daemon]
//	socket = "~/run/ragd.sock"   # default: DefaultSocketPath()
//	data_dir = ".ragd-data"      # default: DefaultDataDir()
//	log_level = "info"           # debug|info|warn|error
//
//	[index]
//	chunk_chars = 1200
//	chunk_overlap = 150
//	parent_chars = 4000
//	bm25_k1 = 1.2
//	bm25_b = 0.75
//	title_weight = 2.0
//	heading_weight = 1.5
//	alias_weight = 2.0           # note fields: frontmatter aliases,
//	property_weight = 1.0        #   frontmatter property values,
//	tag_weight = 1.0             #   tags,
//	anchor_weight = 0.5          #   the text of links to the note,
//	anchor_context_weight = 0.1  #   and the sentence around them
//	whole_note_weight = 0.3      # the whole note's BM25F added to its best passage's
//	proximity_weight = 0.3       # query words standing close together
//	properties = []              # frontmatter keys indexed (empty: all but ignore_properties)
//	ignore_properties = [...]    # default: bookkeeping keys (publish, cssclasses, created, …)
//	language = "en"              # en fr es ru sv no hu none, or auto (detect per note)
//	workers = 0                  # 0 = number of CPUs
//	entity_extractor = ""        # an extractor [[plugin]] enriching notes with typed entities
//
//	[[vault]]
//	name = "notes"               # unique, [A-Za-z0-9._-]+
//	path = "~/Notes"             # an existing directory
//	include = ["**/*.md", "**/*.markdown", "**/*.txt"]
//	exclude = ["drafts/**"]      # added to DefaultExclude
//	max_file_mb = 10
//
// "~" and "~/..." expand to the home directory, and relative paths are
// resolved against the directory holding the configuration file.
// Environment variables are not expanded.
//
// Every problem is reported as an *Error naming the file, line and key, and
// Load and Parse report all of them at once as Errors.
package config

import (
	"runtime"
	"slices"
	"time"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/segment"
)

// Config is a loaded, defaulted and validated configuration. All paths in
// it are absolute and cleaned.
type Config struct {
	File   string // absolute path of the file it was loaded from ("" for defaults)
	Daemon Daemon
	Index  Index
	Vaults []Vault
	// Plugins are the [[plugin]] entries; Search the [search] table.
	Plugins []Plugin
	Search  Search
}

// Daemon holds the [daemon] table.
type Daemon struct {
	Socket   string // absolute path of the unix socket the daemon listens on
	DataDir  string // absolute path of the directory holding the index data
	LogLevel string // one of LogLevels, lower case
	// Debounce is the quiet period after the last file event before the
	// changed files are reindexed (key debounce, default 100ms).
	Debounce time.Duration
	// RescanInterval is how often every vault is reconciled with disk even
	// without events, the watcher being a hint and the disk the truth (key
	// rescan_interval, default 10m; 0 turns it off).
	RescanInterval time.Duration
	// StartupWait is how long a query after a restart waits for the
	// start-up pass before it is answered from the index as it is, with
	// the results whose files changed since flagged stale (key
	// startup_wait, default 500ms; 0 answers at once).
	StartupWait time.Duration
}

// Index holds the [index] table: chunking, ranking and concurrency knobs.
type Index struct {
	ChunkChars    int     // child chunk target size in characters (> 0)
	ChunkOverlap  int     // overlap between neighbouring child chunks (>= 0, < ChunkChars/2)
	ParentChars   int     // parent chunk target size in characters (>= ChunkChars)
	K1            float64 // BM25 k1 (>= 0), key bm25_k1
	B             float64 // BM25 b (0..1), key bm25_b
	TitleWeight   float64 // BM25 weight of the title field (>= 0)
	HeadingWeight float64 // BM25 weight of heading text (>= 0)
	// Weights of the note fields and of the whole-note and proximity
	// evidence (>= 0; keys alias_weight, property_weight, tag_weight,
	// anchor_weight, anchor_context_weight, whole_note_weight,
	// proximity_weight). They apply at query time.
	AliasWeight, PropertyWeight, TagWeight float64
	AnchorWeight, AnchorContextWeight      float64
	WholeNoteWeight, ProximityWeight       float64
	// Properties are the frontmatter keys whose values are indexed (empty:
	// every key but IgnoreProperties). Changing them reindexes every note.
	Properties, IgnoreProperties []string
	// Language is the analysis language of notes that do not say (a
	// frontmatter lang or language), or "auto" to detect it per note
	// (key language, default "en").
	Language string
	Workers  int // indexing workers; a configured 0 is resolved to runtime.NumCPU()
	// EntityExtractor names an extractor [[plugin]] (such as the built-in
	// llm-entities) whose entities and relations enrich the entity graph
	// of Markdown and text notes (key entity_extractor; "" = off).
	EntityExtractor string
}

// Vault is one [[vault]] entry: a directory of notes to index.
type Vault struct {
	Name      string   // unique name, [A-Za-z0-9._-]+
	Path      string   // absolute path of the vault's root directory
	Include   []string // doublestar patterns of files to index, relative to Path
	Exclude   []string // doublestar patterns of files to skip: DefaultExclude plus the user's
	MaxFileMB float64  // files larger than this many MiB are skipped
	Watch     bool     // watch the vault for changes (key watch, default true)
}

// DefaultIgnoreProperties are the frontmatter keys not indexed as the
// property field by default (chunk.BookkeepingProperties).
var DefaultIgnoreProperties = chunk.BookkeepingProperties

// Defaults of the optional settings.
const (
	DefaultLogLevel       = "info"
	DefaultChunkChars     = 1200
	DefaultChunkOverlap   = 150
	DefaultParentChars    = 4000
	DefaultK1             = 1.2
	DefaultB              = 0.75
	DefaultTitleWeight    = 2.0
	DefaultHeadingWeight  = 1.5
	DefaultMaxFileMB      = 10
	DefaultDebounce       = 100 * time.Millisecond
	DefaultRescanInterval = 10 * time.Minute
	DefaultStartupWait    = 500 * time.Millisecond
)

// LogLevels lists the accepted values of daemon.log_level.
var LogLevels = []string{"debug", "info", "warn", "error"}

// DefaultInclude is used when a vault has no include key.
var DefaultInclude = []string{"**/*.md", "**/*.markdown", "**/*.txt", "**/*.pdf", "**/*.docx", "**/*.html", "**/*.htm"}

// DefaultExclude is always excluded; a vault's exclude list is added to it.
var DefaultExclude = []string{".obsidian/**", ".git/**", ".trash/**", "node_modules/**"}

// defaultExcludedDirs are skipped wherever they appear in a vault, not only
// at its root.
var defaultExcludedDirs = []string{".obsidian", ".git", ".trash", "node_modules"}

// Default returns the configuration used when there is no configuration
// file: default daemon and index settings and no vaults.
func Default() *Config {
	return &Config{
		Daemon: Daemon{
			Socket:         DefaultSocketPath(),
			DataDir:        DefaultDataDir(),
			LogLevel:       DefaultLogLevel,
			Debounce:       DefaultDebounce,
			RescanInterval: DefaultRescanInterval,
			StartupWait:    DefaultStartupWait,
		},
		Index: defaultIndex(),
	}
}

func defaultIndex() Index {
	return Index{
		ChunkChars:    DefaultChunkChars,
		ChunkOverlap:  DefaultChunkOverlap,
		ParentChars:   DefaultParentChars,
		K1:            DefaultK1,
		B:             DefaultB,
		TitleWeight:   DefaultTitleWeight,
		HeadingWeight: DefaultHeadingWeight,
		Workers:       runtime.NumCPU(),
		AliasWeight:   segment.DefaultParams.Alias, PropertyWeight: segment.DefaultParams.Props,
		TagWeight: segment.DefaultParams.Tags, AnchorWeight: segment.DefaultParams.Anchor,
		AnchorContextWeight: segment.DefaultParams.AnchorContext, WholeNoteWeight: segment.DefaultParams.NoteBM25,
		ProximityWeight:  segment.DefaultParams.Proximity,
		IgnoreProperties: slices.Clone(DefaultIgnoreProperties),
		Language:         "en",
	}
}

// Vault returns the vault with the given name.
func (c *Config) Vault(name string) (Vault, bool) {
	if c == nil {
		return Vault{}, false
	}
	i := slices.IndexFunc(c.Vaults, func(v Vault) bool { return v.Name == name })
	if i < 0 {
		return Vault{}, false
	}
	return c.Vaults[i], true
}

// MaxFileBytes is MaxFileMB in bytes (1 MB = 1 MiB). A Vault built by hand
// with MaxFileMB <= 0 gets the default of 10 MiB.
func (v Vault) MaxFileBytes() int64 {
	mb := v.MaxFileMB
	if !(mb > 0) { // also catches NaN
		mb = DefaultMaxFileMB
	}
	if mb > maxFileMB {
		mb = maxFileMB
	}
	return int64(mb * (1 << 20))
}
