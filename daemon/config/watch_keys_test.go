package config

import (
	"strings"
	"testing"
	"time"
)

func TestWatchKeys(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Parse("ragd.toml", []byte("[daemon]\ndebounce = \"250ms\"\nrescan_interval = \"1m\"\n\n[[vault]]\nname = \"a\"\npath = \""+dir+"\"\nwatch = false\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Daemon.Debounce != 250*time.Millisecond || cfg.Daemon.RescanInterval != time.Minute || cfg.Vaults[0].Watch {
		t.Fatalf("cfg = %+v %+v", cfg.Daemon, cfg.Vaults[0])
	}
	cfg, err = Parse("ragd.toml", []byte("[daemon]\nrescan_interval = 0\n[[vault]]\nname = \"a\"\npath = \""+dir+"\"\n"), dir)
	if err != nil || cfg.Daemon.RescanInterval != 0 || !cfg.Vaults[0].Watch || cfg.Daemon.Debounce != DefaultDebounce {
		t.Fatalf("cfg = %+v, %v", cfg, err)
	}
	for _, tt := range []struct{ body, want string }{
		{"[daemon]\ndebounce = \"soon\"\n", `ragd.toml:2: daemon.debounce: "soon" is not a duration`},
		{"[daemon]\ndebounce = 5\n", `ragd.toml:2: daemon.debounce: expected a duration string`},
		{"[daemon]\nrescan_interval = \"10ms\"\n", `ragd.toml:2: daemon.rescan_interval: 10ms is too short`},
		{"[[vault]]\nname = \"a\"\npath = \"" + dir + "\"\nwatch = \"yes\"\n", `ragd.toml:4: vault[0].watch: expected true or false`},
	} {
		_, err := Parse("ragd.toml", []byte(tt.body), dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.body, err, tt.want)
		}
	}
}

func TestStartupWait(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]time.Duration{"": DefaultStartupWait, "startup_wait = 0\n": 0, "startup_wait = \"2s\"\n": 2 * time.Second} {
		cfg, err := Parse("ragd.toml", []byte("[daemon]\n"+body), dir)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if cfg.Daemon.StartupWait != want {
			t.Errorf("%q: startup_wait %v, want %v", body, cfg.Daemon.StartupWait, want)
		}
	}
	_, err := Parse("ragd.toml", []byte("[daemon]\nstartup_wait = \"1h\"\n"), dir)
	if err == nil || !strings.Contains(err.Error(), `ragd.toml:2: daemon.startup_wait: 1h0m0s is out of range: use 0 to 10m`) {
		t.Errorf("startup_wait of an hour: %v", err)
	}
}
