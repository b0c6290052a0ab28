package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clearXDG points HOME at a fresh directory and unsets the XDG variables.
func clearXDG(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	return home
}

func TestDefaults(t *testing.T) {
	home := clearXDG(t)
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	for _, src := range []string{"", "# nothing but a comment\n", "[daemon]\n[index]\n", "vault = []\n"} {
		cfg, err := Parse("ragd.toml", []byte(src), home)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		want := Config{
			File: cfg.File,
			Daemon: Daemon{
				Socket:   "/run/user/1000/ragd/ragd.sock",
				DataDir:  filepath.Join(home, ".local/share/ragd"),
				LogLevel: "info",
				Debounce: 100 * time.Millisecond, RescanInterval: 10 * time.Minute, StartupWait: 500 * time.Millisecond,
			},
			Index: Index{
				ChunkChars: 1200, ChunkOverlap: 150, ParentChars: 4000,
				K1: 1.2, B: 0.75, TitleWeight: 2, HeadingWeight: 1.5,
				Workers:     runtime.NumCPU(),
				AliasWeight: 2, PropertyWeight: 1, TagWeight: 1, AnchorWeight: 0.5, AnchorContextWeight: 0.1,
				WholeNoteWeight: 0.3, ProximityWeight: 0.3,
				IgnoreProperties: DefaultIgnoreProperties, Language: "en",
			},
		}
		if !reflect.DeepEqual(*cfg, want) {
			t.Errorf("Parse(%q) =\n%+v\nwant\n%+v", src, *cfg, want)
		}
		if !filepath.IsAbs(cfg.File) || filepath.Base(cfg.File) != "ragd.toml" {
			t.Errorf("File = %q, want an absolute path", cfg.File)
		}
	}
	if d := Default(); d.File != "" || d.Vaults != nil || d.Index.ChunkChars != DefaultChunkChars || d.Daemon.LogLevel != "info" {
		t.Errorf("Default() = %+v", d)
	}
}

func TestFullConfig(t *testing.T) {
	home := clearXDG(t)
	dir := filepath.Join(home, "conf")
	for _, d := range []string{"conf/docs/example-vault", "Notes"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := `[daemon]
socket = "~/run/ragd.sock"
data_dir = ".ragd-data"
log_level = "DEBUG"

[index]
chunk_chars = 800
chunk_overlap = 100
parent_chars = 3000
bm25_k1 = 2
bm25_b = 0
title_weight = 3.5
heading_weight = 0
workers = 3

[[vault]]
name = "notes"
path = "~/Notes"
exclude = ["drafts/**", ".git/**"]
max_file_mb = 0.5

[[vault]]
name = "example.vault-2_x"
path = "docs/example-vault"
include = ["**/*.md"]
`
	if err := os.WriteFile(filepath.Join(dir, "ragd.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(filepath.Join(dir, "ragd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		File: filepath.Join(dir, "ragd.toml"),
		Daemon: Daemon{
			Socket:   filepath.Join(home, "run/ragd.sock"),
			DataDir:  filepath.Join(dir, ".ragd-data"),
			LogLevel: "debug",
			Debounce: DefaultDebounce, RescanInterval: DefaultRescanInterval, StartupWait: DefaultStartupWait,
		},
		Index: func() Index {
			ix := defaultIndex()
			ix.ChunkChars, ix.ChunkOverlap, ix.ParentChars, ix.K1, ix.B, ix.TitleWeight, ix.HeadingWeight, ix.Workers = 800, 100, 3000, 2, 0, 3.5, 0, 3
			return ix
		}(),
		Vaults: []Vault{
			{
				Name:      "notes",
				Path:      filepath.Join(home, "Notes"),
				Include:   DefaultInclude,
				Exclude:   append(append([]string{}, DefaultExclude...), "drafts/**"),
				MaxFileMB: 0.5,
				Watch:     true,
			},
			{
				Name:      "example.vault-2_x",
				Path:      filepath.Join(dir, "docs/example-vault"),
				Include:   []string{"**/*.md"},
				Exclude:   DefaultExclude,
				MaxFileMB: 10,
				Watch:     true,
			},
		},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load =\n%+v\nwant\n%+v", cfg, want)
	}
	if v, ok := cfg.Vault("notes"); !ok || v.MaxFileBytes() != 512*1024 {
		t.Errorf("Vault(notes) = %+v, %v; MaxFileBytes %d", v, ok, v.MaxFileBytes())
	}
	if v, _ := cfg.Vault("example.vault-2_x"); v.MaxFileBytes() != 10<<20 {
		t.Errorf("MaxFileBytes = %d", v.MaxFileBytes())
	}
	if _, ok := cfg.Vault("nope"); ok {
		t.Error("Vault(nope) found")
	}
	if _, ok := (*Config)(nil).Vault("x"); ok {
		t.Error("nil Config has vaults")
	}
	if (Vault{}).MaxFileBytes() != DefaultMaxFileMB<<20 {
		t.Error("zero Vault does not get the default size limit")
	}
}

func TestLoadRelativeToFile(t *testing.T) {
	home := clearXDG(t)
	if err := os.MkdirAll(filepath.Join(home, "cfg", "v"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "cfg", "ragd.toml"), []byte("[[vault]]\nname = 'v'\npath = 'v'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)
	cfg, err := Load("cfg/ragd.toml") // relative config path, relative vault path
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Vaults[0].Path, filepath.Join(home, "cfg", "v"); got != want {
		t.Errorf("vault path = %q, want %q", got, want)
	}
	if got, want := cfg.File, filepath.Join(home, "cfg", "ragd.toml"); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}

	// Errors name the file as given.
	if err := os.WriteFile(filepath.Join(home, "cfg", "bad.toml"), []byte("\n[[vault]]\nname = 'v'\npath = 'nope'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load("cfg/bad.toml")
	if want := `cfg/bad.toml:4: vault[0].path: "nope" does not exist (resolved to "` + filepath.Join(home, "cfg", "nope") + `")`; err == nil || err.Error() != want {
		t.Errorf("Load error = %v\nwant %s", err, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("/nonexistent/ragd.toml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false for %v", err)
	}
	if want := "/nonexistent/ragd.toml: cannot read config file: no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "cannot read config file") {
		t.Errorf("Load(dir) = %v", err)
	}
}

func TestXDGPaths(t *testing.T) {
	home := clearXDG(t)
	uid := strconv.Itoa(os.Getuid())

	check := func(name, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// Fallbacks.
	check("DefaultPath", DefaultPath(), filepath.Join(home, ".config/ragd/ragd.toml"))
	check("DefaultDataDir", DefaultDataDir(), filepath.Join(home, ".local/share/ragd"))
	check("DefaultSocketPath", DefaultSocketPath(), "/tmp/ragd-"+uid+"/ragd.sock")

	// Relative XDG values are ignored, as the spec says.
	t.Setenv("XDG_CONFIG_HOME", "rel/config")
	t.Setenv("XDG_DATA_HOME", "rel/data")
	t.Setenv("XDG_RUNTIME_DIR", "rel/run")
	check("DefaultPath (relative XDG)", DefaultPath(), filepath.Join(home, ".config/ragd/ragd.toml"))
	check("DefaultDataDir (relative XDG)", DefaultDataDir(), filepath.Join(home, ".local/share/ragd"))
	check("DefaultSocketPath (relative XDG)", DefaultSocketPath(), "/tmp/ragd-"+uid+"/ragd.sock")

	// XDG set.
	t.Setenv("XDG_CONFIG_HOME", "/xdg/config/")
	t.Setenv("XDG_DATA_HOME", "/xdg/data")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/42")
	check("DefaultPath (XDG)", DefaultPath(), "/xdg/config/ragd/ragd.toml")
	check("DefaultDataDir (XDG)", DefaultDataDir(), "/xdg/data/ragd")
	check("DefaultSocketPath (XDG)", DefaultSocketPath(), "/run/user/42/ragd/ragd.sock")

	cfg, err := Parse("ragd.toml", nil, home)
	if err != nil {
		t.Fatal(err)
	}
	check("Daemon.Socket", cfg.Daemon.Socket, "/run/user/42/ragd/ragd.sock")
	check("Daemon.DataDir", cfg.Daemon.DataDir, "/xdg/data/ragd")
}

func TestDefaultSocketTooLong(t *testing.T) {
	clearXDG(t)
	t.Setenv("XDG_RUNTIME_DIR", "/"+strings.Repeat("r", 100))
	_, err := Parse("ragd.toml", []byte("[daemon]\nlog_level = 'info'\n"), t.TempDir())
	checkErrors(t, err, []want{{0, "daemon.socket", "default socket path"}})
	if !strings.HasPrefix(err.Error(), "ragd.toml: daemon.socket: default socket path ") {
		t.Errorf("err = %v", err)
	}
	// An unusable socket setting is reported once, not as a long default.
	_, err = Parse("ragd.toml", []byte("[daemon]\nsocket = '~bob/s'\n"), t.TempDir())
	checkErrors(t, err, []want{{2, "daemon.socket", `"~user" paths are not supported`}})
	// Setting daemon.socket fixes it.
	if _, err := Parse("ragd.toml", []byte("[daemon]\nsocket = '/tmp/r.sock'\n"), t.TempDir()); err != nil {
		t.Errorf("explicit socket: %v", err)
	}
}

func TestResolvePath(t *testing.T) {
	home := clearXDG(t)
	for _, tt := range []struct {
		in, want string
		err      bool
	}{
		{"~", home, false},
		{"~/", home, false},
		{"~/Notes/../Other", filepath.Join(home, "Other"), false},
		{"/abs//path/", "/abs/path", false},
		{"rel/dir", "/base/rel/dir", false},
		{"./x", "/base/x", false},
		{"$HOME/x", "/base/$HOME/x", false}, // no env expansion
		{"~bob", "", true},
	} {
		got, err := resolvePath(tt.in, "/base")
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("resolvePath(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
	os.Unsetenv("HOME")
	if _, err := resolvePath("~/x", "/base"); err == nil || !strings.Contains(err.Error(), "$HOME is not set") {
		t.Errorf("resolvePath without HOME: %v", err)
	}
}

// TestRepoConfig loads the repository's own ragd.toml, if there is one.
func TestRepoConfig(t *testing.T) {
	path := filepath.Join("..", "..", "ragd.toml")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no ragd.toml at the repository root")
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range cfg.Vaults {
		if fi, err := os.Stat(v.Path); err != nil || !fi.IsDir() {
			t.Errorf("vault %s: %v", v.Name, err)
		}
	}
}

func TestNoteFieldKeys(t *testing.T) {
	cfg, err := Parse("ragd.toml", []byte("[index]\nalias_weight = 3\nproximity_weight = 0\nproperties = [\"status\", \"project\"]\nlanguage = \"auto\"\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix := cfg.Index
	if ix.AliasWeight != 3 || ix.ProximityWeight != 0 || ix.TagWeight != 1 || !reflect.DeepEqual(ix.Properties, []string{"status", "project"}) || ix.Language != "auto" {
		t.Errorf("index = %+v", ix)
	}
	_, err = Parse("ragd.toml", []byte("[index]\nlanguage = \"klingon\"\ntag_weight = -1\n"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "ragd.toml:2: index.language") || !strings.Contains(err.Error(), "ragd.toml:3: index.tag_weight") {
		t.Errorf("bad values: %v", err)
	}
}
