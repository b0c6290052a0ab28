package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a config directory holding a vault directory "v" and a plain
// file "file.txt".
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "v"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir)
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	return dir
}

// want is one expected error: line, key and a fragment of the message.
type want struct {
	line int
	key  string
	msg  string
}

func checkErrors(t *testing.T, err error, wants []want) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d", len(wants))
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T is not Errors: %v", err, err)
	}
	if len(es) != len(wants) {
		t.Fatalf("got %d errors, want %d:\n%v", len(es), len(wants), err)
	}
	for i, w := range wants {
		e := es[i]
		if e.File != "ragd.toml" || e.Line != w.line || e.Key != w.key || !strings.Contains(e.Msg, w.msg) {
			t.Errorf("error %d = {%q %d %q %q}\nwant {ragd.toml %d %q ...%q...}", i, e.File, e.Line, e.Key, e.Msg, w.line, w.key, w.msg)
		}
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(wants) {
		t.Errorf("Error() has %d lines, want %d:\n%s", len(lines), len(wants), err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want []want
	}{
		// Syntax errors stop early with one error.
		{"syntax: unterminated table header", "[daemon]\nlog_level = 'info'\n[index\n",
			[]want{{3, "", "syntax error: expected '.' or ']' to end table name"}}},
		{"syntax: unterminated string", "[[vault]]\nname = \"notes\npath = 'v'\n",
			[]want{{2, "vault.name", "syntax error: strings cannot contain newlines"}}},
		{"syntax: duplicate key", "[daemon]\nlog_level = 'info'\nlog_level = 'debug'\n",
			[]want{{3, "daemon.log_level", "has already been defined"}}},
		{"syntax: duplicate table", "[index]\n[daemon]\n[index]\n",
			[]want{{3, "", "Key 'index' has already been defined"}}},

		// Unknown keys, with suggestions.
		{"unknown key in daemon", "[daemon]\nsoket = '/tmp/x.sock'\n",
			[]want{{2, "daemon.soket", `unknown key (did you mean "socket"?)`}}},
		{"unknown key in index", "[index]\nchunk_char = 10\nk1 = 1\n",
			[]want{{2, "index.chunk_char", `did you mean "chunk_chars"?`}, {3, "index.k1", `did you mean "bm25_k1"?`}}},
		{"unknown key in vault", "[[vault]]\nname = 'a'\npath = 'v'\n\n[[vault]]\nname = 'b'\npath = 'v'\nexlude = []\n",
			[]want{{8, "vault[1].exlude", `did you mean "exclude"?`}}},
		{"unknown key without suggestion", "[index]\nfrobnicate = true\n",
			[]want{{2, "index.frobnicate", "unknown key; known keys in [index]: chunk_chars, chunk_overlap"}}},
		{"unknown table", "[[vaults]]\nname = 'a'\n",
			[]want{{1, "vaults", `did you mean "vault"?`}}},
		{"unknown top-level dotted key", "\ndeamon.socket = '/x'\n",
			[]want{{2, "deamon", `did you mean "daemon"?`}}},
		{"unknown subtable of vault", "[[vault]]\nname = 'a'\npath = 'v'\n[vault.extra]\nx = 1\n",
			[]want{{4, "vault[0].extra", "unknown key"}}},

		// Wrong types.
		{"string for number", "[[vault]]\nname = 'a'\npath = 'v'\nmax_file_mb = \"ten\"\n",
			[]want{{4, "vault[0].max_file_mb", `expected a number, got string "ten"`}}},
		{"string for array", "[[vault]]\nname = 'a'\npath = 'v'\ninclude = \"*.md\"\n",
			[]want{{4, "vault[0].include", `expected an array of glob patterns, got string "*.md" (write include = ["*.md"])`}}},
		{"number in pattern array", "[[vault]]\nname = 'a'\npath = 'v'\nexclude = [\n  'a/**',\n  42,\n]\n",
			[]want{{6, "vault[0].exclude[1]", "expected a glob pattern string, got integer 42"}}},
		{"float for integer", "[index]\nchunk_chars = 1.5\n",
			[]want{{2, "index.chunk_chars", "expected a whole number, got float 1.5"}}},
		{"number for string", "[daemon]\nsocket = 7\n",
			[]want{{2, "daemon.socket", "expected a string, got integer 7"}}},
		{"bool for string", "[daemon]\nlog_level = true\n",
			[]want{{2, "daemon.log_level", "expected a string, got boolean true"}}},
		{"table expected", "daemon = 'x'\n",
			[]want{{1, "daemon", `expected a table ([daemon]), got string "x"`}}},
		{"vault as a single table", "[vault]\nname = 'a'\npath = 'v'\n",
			[]want{{1, "vault", "write [[vault]], not [vault]"}}},
		{"vault as a number", "vault = 1\n",
			[]want{{1, "vault", "expected [[vault]] tables, got integer 1"}}},
		{"vault array of non-tables", "vault = [\n  {name = 'a', path = 'v'},\n  'b',\n]\n",
			[]want{{3, "vault[1]", `expected a table, got string "b"`}}},
		{"datetime", "[daemon]\nlog_level = 2024-01-02\n",
			[]want{{2, "daemon.log_level", "expected a string, got date-time"}}},

		// Missing required keys point at the [[vault]] header.
		{"missing name", "[[vault]]\npath = 'v'\n\n[[vault]]\n# no name\npath = 'v'\n",
			[]want{{1, "vault[0].name", "required key is missing"}, {4, "vault[1].name", "required key is missing"}}},
		{"missing path", "[daemon]\n\n[[vault]]\nname = 'a'\n",
			[]want{{3, "vault[0].path", "required key is missing"}}},
		{"missing both in inline vault", "vault = [\n  {},\n]\n",
			[]want{{2, "vault[0].name", "required key is missing"}, {2, "vault[0].path", "required key is missing"}}},

		// Vault paths.
		{"path does not exist", "[[vault]]\nname = 'a'\npath = '/nope'\n",
			[]want{{3, "vault[0].path", `"/nope" does not exist`}}},
		{"relative path does not exist", "[[vault]]\nname = 'a'\npath = 'missing'\n",
			[]want{{3, "vault[0].path", `"missing" does not exist (resolved to "/`}}},
		{"env vars not expanded", "[[vault]]\nname = 'a'\npath = '$HOME/v'\n",
			[]want{{3, "vault[0].path", "environment variables are not expanded"}}},
		{"path is a file", "[[vault]]\nname = 'a'\npath = 'file.txt'\n",
			[]want{{3, "vault[0].path", "is not a directory"}}},
		{"empty path", "[[vault]]\nname = 'a'\npath = ''\n",
			[]want{{3, "vault[0].path", "must not be empty"}}},
		{"tilde user", "[[vault]]\nname = 'a'\npath = '~bob/notes'\n",
			[]want{{3, "vault[0].path", `"~user" paths are not supported`}}},

		// Names.
		{"duplicate names", "[[vault]]\nname = 'notes'\npath = 'v'\n\n[[vault]]\npath = 'v'\nname = 'notes'\n",
			[]want{{7, "vault[1].name", `duplicate vault name "notes" (already used by vault[0] at line 2)`}}},
		{"duplicate names inline", "vault = [\n  {name = 'a', path = 'v'},\n  {name = 'a', path = 'v'},\n]\n",
			[]want{{3, "vault[1].name", "already used by vault[0] at line 2"}}},
		{"invalid name", "[[vault]]\nname = 'my notes'\npath = 'v'\n",
			[]want{{2, "vault[0].name", `"my notes" is not a valid name: use only letters, digits`}}},
		{"dot name", "[[vault]]\nname = '..'\npath = 'v'\n",
			[]want{{2, "vault[0].name", `".." is not a usable name`}}},
		{"empty name", "[[vault]]\nname = ''\npath = 'v'\n",
			[]want{{2, "vault[0].name", "must not be empty"}}},

		// Globs.
		{"invalid include glob", "[[vault]]\nname = 'a'\npath = 'v'\ninclude = ['**/*.md', '[abc']\n",
			[]want{{4, "vault[0].include[1]", `invalid glob pattern "[abc"`}}},
		{"invalid exclude glob on its own line", "[[vault]]\nname = 'a'\npath = 'v'\nexclude = [\n  'ok/**',\n  '{a,b',\n]\n",
			[]want{{6, "vault[0].exclude[1]", `invalid glob pattern "{a,b"`}}},
		{"absolute glob", "[[vault]]\nname = 'a'\npath = 'v'\nexclude = ['/abs/**']\n",
			[]want{{4, "vault[0].exclude[0]", "must be relative to the vault root"}}},
		{"empty include", "[[vault]]\nname = 'a'\npath = 'v'\ninclude = []\n",
			[]want{{4, "vault[0].include", "an empty list matches no files"}}},

		// Values.
		{"bad log level", "[daemon]\nlog_level = 'verbose'\n",
			[]want{{2, "daemon.log_level", `"verbose" is not a log level; use one of debug, info, warn, error`}}},
		{"non-positive numbers", "[index]\nchunk_chars = 0\nparent_chars = -5\nworkers = -1\nchunk_overlap = -1\n\n[[vault]]\nname = 'a'\npath = 'v'\nmax_file_mb = 0\n",
			[]want{
				{2, "index.chunk_chars", "must be positive, got 0"},
				{3, "index.parent_chars", "must be positive, got -5"},
				{4, "index.workers", "must not be negative, got -1"},
				{5, "index.chunk_overlap", "must not be negative, got -1"},
				{10, "vault[0].max_file_mb", "must be positive, got 0"},
			}},
		{"bm25 out of range", "[index]\nbm25_k1 = -0.5\nbm25_b = 1.01\ntitle_weight = -1\n",
			[]want{
				{2, "index.bm25_k1", "must not be negative, got -0.5"},
				{3, "index.bm25_b", "must be between 0 and 1, got 1.01"},
				{4, "index.title_weight", "must not be negative"},
			}},
		{"negative b", "[index]\nbm25_b = -0.1\n",
			[]want{{2, "index.bm25_b", "must be between 0 and 1, got -0.1"}}},
		{"nan", "[index]\nbm25_k1 = nan\n",
			[]want{{2, "index.bm25_k1", "must be a finite number, got nan"}}},
		{"overlap too large", "[index]\nchunk_chars = 1000\nchunk_overlap = 500\n",
			[]want{{3, "index.chunk_overlap", "500 must be less than half of chunk_chars (1000)"}}},
		{"chunk too small for default overlap", "[index]\nchunk_chars = 300\n",
			[]want{{2, "index.chunk_chars", "too small for the default chunk_overlap of 150"}}},
		{"parent smaller than chunk", "[index]\nchunk_chars = 1000\nparent_chars = 500\n",
			[]want{{3, "index.parent_chars", "500 must be at least chunk_chars (1000)"}}},
		{"huge integer", "[index]\nworkers = 9999999999\n",
			[]want{{2, "index.workers", "must be at most 1024, got 9999999999"}}},
		{"huge float", "[[vault]]\nname = 'a'\npath = 'v'\nmax_file_mb = 1e300\n",
			[]want{{4, "vault[0].max_file_mb", "must be at most 1048576, got 1e+300"}}},
		{"dot-slash glob", "[[vault]]\nname = 'a'\npath = 'v'\ninclude = ['./notes/**']\n",
			[]want{{4, "vault[0].include[0]", `glob pattern "./notes/**" never matches`}}},
		{"bad socket does not also report the default", "[daemon]\nsocket = ''\n",
			[]want{{2, "daemon.socket", "must not be empty"}}},
		{"socket too long", "[daemon]\nsocket = '/" + strings.Repeat("s", 110) + "'\n",
			[]want{{2, "daemon.socket", "is 111 bytes; unix sockets allow at most 104"}}},
		{"data_dir is a file", "[daemon]\ndata_dir = 'file.txt'\n",
			[]want{{2, "daemon.data_dir", "is not a directory"}}},
		{"unknown channel weight", "[search]\nweights = { fulltext = 1 }\n",
			[]want{{2, "search.weights.fulltext", "unknown channel \"fulltext\": want lexical, vector, graph"}}},
		{"keyword vector scale over 1", "[search]\nkeyword_vector_scale = 1.5\n",
			[]want{{2, "search.keyword_vector_scale", "must be between 0 and 1, got 1.5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t)
			cfg, err := Parse("ragd.toml", []byte(tt.toml), dir)
			if cfg != nil {
				t.Errorf("got a config along with errors")
			}
			checkErrors(t, err, tt.want)
		})
	}
}

// TestParseCollectsAllErrors checks that one file with many problems
// reports all of them, in line order, each readable on its own line.
func TestParseCollectsAllErrors(t *testing.T) {
	dir := fixture(t)
	src := `[daemon]
log_level = "loud"
soket = "/tmp/x.sock"

[index]
chunk_chars = 1200
chunk_overlap = 700
bm25_b = 1.5

[[vault]]
name = "notes"
path = "v"
include = "*.md"

[[vault]]
name = "notes"
path = "/nope"
max_file_mb = "ten"

[[vault]]
path = "v"
exclude = ["[bad"]
`
	_, err := Parse("ragd.toml", []byte(src), dir)
	checkErrors(t, err, []want{
		{2, "daemon.log_level", "is not a log level"},
		{3, "daemon.soket", `did you mean "socket"?`},
		{7, "index.chunk_overlap", "less than half"},
		{8, "index.bm25_b", "between 0 and 1"},
		{13, "vault[0].include", "expected an array"},
		{16, "vault[1].name", "duplicate vault name \"notes\" (already used by vault[0] at line 11)"},
		{17, "vault[1].path", "does not exist"},
		{18, "vault[1].max_file_mb", "expected a number"},
		{20, "vault[2].name", "required key is missing"},
		{22, "vault[2].exclude[0]", "invalid glob pattern"},
	})
	first := strings.SplitN(err.Error(), "\n", 2)[0]
	if want := `ragd.toml:2: daemon.log_level: "loud" is not a log level; use one of debug, info, warn, error`; first != want {
		t.Errorf("first line = %q\nwant %q", first, want)
	}
}

func TestErrorFormat(t *testing.T) {
	for _, tt := range []struct {
		e    Error
		want string
	}{
		{Error{File: "ragd.toml", Line: 12, Key: "vault[1].path", Msg: `"/nope" does not exist`}, `ragd.toml:12: vault[1].path: "/nope" does not exist`},
		{Error{File: "ragd.toml", Key: "daemon.socket", Msg: "too long"}, "ragd.toml: daemon.socket: too long"},
		{Error{File: "ragd.toml", Line: 3, Msg: "syntax error: x"}, "ragd.toml:3: syntax error: x"},
		{Error{Line: 3, Key: "k", Msg: "m"}, "line 3: k: m"},
		{Error{}, "config: invalid configuration"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	es := Errors{{File: "a", Line: 1, Msg: "x"}, {File: "a", Line: 2, Msg: "y"}}
	if got := es.Error(); got != "a:1: x\na:2: y" {
		t.Errorf("Errors.Error() = %q", got)
	}
	var e *Error
	if !errors.As(es, &e) || e.Msg != "x" {
		t.Errorf("errors.As(Errors, *Error) = %v", e)
	}
	if got := AsErrors(es); len(got) != 2 {
		t.Errorf("AsErrors = %v", got)
	}
	if got := AsErrors(errors.New("x")); got != nil {
		t.Errorf("AsErrors(plain) = %v", got)
	}
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"chunk_charz", "chunk_chars"},
		{"Chunk_Chars", "chunk_chars"},
		{"k1", "bm25_k1"},
		{"b", "bm25_b"},
		{"overlap", "chunk_overlap"},
		{"worker", "workers"},
		{"zzzzzz", ""},
	} {
		if got := suggest(tt.in, indexKeys); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// keyword_vector_scale is read as the share of the vector weight a keyword
// query keeps; unset, ragd picks it per embedder.
func TestSearchKeywordVectorScale(t *testing.T) {
	dir := fixture(t)
	cfg, err := Parse("ragd.toml", []byte("[search]\nkeyword_vector_scale = 0.25\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Search.KeywordVectorScale; s == nil || *s != 0.25 {
		t.Errorf("keyword_vector_scale = %v", s)
	}
	if cfg, err = Parse("ragd.toml", []byte("[search]\n"), dir); err != nil || cfg.Search.KeywordVectorScale != nil {
		t.Errorf("unset: %v, %v", cfg.Search.KeywordVectorScale, err)
	}
}

// The lexical channel's weight may be written under its old name, bm25.
func TestSearchWeightsOldChannelName(t *testing.T) {
	dir := fixture(t)
	cfg, err := Parse("ragd.toml", []byte("[search]\nweights = { bm25 = 1, vector = 0.2 }\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Search.Weights; len(w) != 2 || w["lexical"] != 1 || w["vector"] != 0.2 {
		t.Errorf("weights = %v", w)
	}
}
