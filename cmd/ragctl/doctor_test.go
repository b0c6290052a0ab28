package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// fakeHost is a doctorHost whose /proc holds the given inotify limits
// (none when watches is empty) and whose filesystems have free bytes free.
func fakeHost(t *testing.T, watches, instances string, free uint64) doctorHost {
	t.Helper()
	proc := t.TempDir()
	if watches != "" {
		dir := filepath.Join(proc, "sys", "fs", "inotify")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"max_user_watches": watches, "max_user_instances": instances} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return doctorHost{goos: "linux", procRoot: proc, freeSpace: func(string) (uint64, error) { return free, nil }}
}

// doctorConfig writes a valid ragd.toml with two vaults into a fresh
// directory and returns the directory and the file; daemonKeys are added
// to its [daemon] table.
func doctorConfig(t *testing.T, daemonKeys string) (dir, file string) {
	t.Helper()
	dir = isolate(t)
	for _, v := range []string{"notes", "journal"} {
		if err := os.Mkdir(filepath.Join(dir, v), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file = filepath.Join(dir, "ragd.toml")
	toml := "[daemon]\ndata_dir = \"data\"\n" + daemonKeys + "\n[[vault]]\nname = \"notes\"\npath = \"notes\"\n\n[[vault]]\nname = \"journal\"\npath = \"journal\"\n"
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// runDoctorWith runs ragctl doctor with args on host.
func runDoctorWith(t *testing.T, host doctorHost, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound, not an expectation
	defer cancel()
	var out, errb bytes.Buffer
	c, _ := lookup("doctor")
	c.new = func() subcommand { return &doctorCmd{host: host} }
	code = runCommand(ctx, &env{stdout: &out, stderr: &errb}, c, args)
	return code, out.String(), errb.String()
}

// healthyStatus is a daemon with nothing to complain about.
func healthyStatus() *ipc.StatusResponse {
	st := sampleStatus()
	st.Vaults = []ipc.VaultStatus{
		{Name: "notes", Path: "/home/u/notes", Online: true, Documents: 1234, Chunks: 56789,
			LastReconcile: ago(90 * time.Second), Watching: "watching"},
		{Name: "journal", Path: "/home/u/journal", Online: true, Documents: 1, Chunks: 3,
			LastReconcile: ago(time.Hour), Watching: "off"},
	}
	return st
}

func TestDoctorGolden(t *testing.T) {
	limited := healthyStatus()
	limited.Vaults[0].Failed = 5
	limited.Vaults[0].FailedFiles = []ipc.FailedFile{
		{Path: "big.md", Error: "file is 80 MB, over max_file_mb 50"},
		{Path: "bad.md", Error: "invalid UTF-8"},
		{Path: "locked.md", Error: "open: permission denied"},
		{Path: "fourth.md", Error: "not shown"},
	}
	limited.Vaults[1].Watching = "polling"

	tests := []struct {
		name     string
		status   *ipc.StatusResponse // nil: nothing listens
		watches  string
		wantCode int
	}{
		{name: "doctor-ok.golden", status: healthyStatus(), watches: "524288", wantCode: exitOK},
		{name: "doctor-unreachable.golden", watches: "524288", wantCode: exitFail},
		{name: "doctor-inotify-failed-files.golden", status: limited, watches: "8192", wantCode: exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, cfg := doctorConfig(t, "")
			sock := filepath.Join(dir, "nobody.sock")
			if tt.status != nil {
				sock = serveFake(t, &fakeBackend{statuses: []*ipc.StatusResponse{tt.status}})
			}
			host := fakeHost(t, tt.watches, "128", 42<<30)
			code, stdout, stderr := runDoctorWith(t, host, "-socket", sock, "-config", cfg)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			if stderr != "" {
				t.Errorf("stderr %q", stderr)
			}
			// Make the temporary paths stable.
			out := strings.ReplaceAll(stdout, sock, "/run/user/1000/ragd/ragd.sock")
			out = strings.ReplaceAll(out, dir, "/home/u/.config/ragd")
			golden(t, tt.name, []byte(out))
		})
	}
}

func TestDoctorJSON(t *testing.T) {
	_, cfg := doctorConfig(t, "")
	sock := serveFake(t, &fakeBackend{}) // sampleStatus: usb is offline
	code, stdout, _ := runDoctorWith(t, fakeHost(t, "524288", "128", 42<<30), "-json", "-socket", sock, "-config", cfg)
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name, Vault, Status, Detail, Fix string
			Notes                            []string
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor -json is not JSON: %v\n%s", err, stdout)
	}
	if rep.OK {
		t.Error("ok = true with an offline vault")
	}
	got := map[string]string{}
	for _, c := range rep.Checks {
		got[c.Name+"/"+c.Vault] = c.Status
	}
	want := map[string]string{
		"config/": "ok", "daemon/": "ok", "protocol/": "ok", "graph/": "ok", "inotify/": "ok", "disk/": "ok", "plugins/": "ok", "semantic/": "ok",
		"vault/notes": "ok", "failed_files/notes": "warn", "vault/usb": "fail", "vault/new": "warn",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("check %s: status %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("checks %v, want %v", got, want)
	}
}

func TestDoctorConfigProblems(t *testing.T) {
	host := fakeHost(t, "524288", "128", 42<<30)

	t.Run("invalid", func(t *testing.T) {
		dir := isolate(t)
		cfg := filepath.Join(dir, "bad.toml")
		body := "[daemon]\nlog_level = \"loud\"\n\n[[vault]]\nname = \"n\"\npath = \"" + filepath.Join(dir, "nope") + "\"\n"
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("RAGD_CONFIG", cfg)
		code, stdout, _ := runDoctorWith(t, host)
		if code != exitFail {
			t.Errorf("exit %d, want %d", code, exitFail)
		}
		for _, want := range []string{
			"✗ config: " + cfg + " is not valid (2 problems)\n",
			"    " + cfg + `:2: daemon.log_level: "loud" is not a log level`,
			"    " + cfg + ":6: vault[0].path: ",
			"`ragd check-config -config " + cfg + "`",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, stdout)
			}
		}
	})

	t.Run("syntax error", func(t *testing.T) {
		dir := isolate(t)
		cfg := filepath.Join(dir, "broken.toml")
		if err := os.WriteFile(cfg, []byte("[daemon\nsocket = 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, _ := runDoctorWith(t, host, "-config", cfg)
		if code != exitFail || !strings.Contains(stdout, "    "+cfg+":1: syntax error") {
			t.Errorf("exit %d:\n%s", code, stdout)
		}
	})

	t.Run("RAGD_CONFIG missing", func(t *testing.T) {
		dir := isolate(t) // RAGD_CONFIG names a missing file
		code, stdout, _ := runDoctorWith(t, host)
		want := "✗ config: " + filepath.Join(dir, "missing.toml") + " (from $RAGD_CONFIG) does not exist\n"
		if code != exitFail || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want output with %q:\n%s", code, want, stdout)
		}
	})

	t.Run("default path missing", func(t *testing.T) {
		dir := isolate(t)
		t.Setenv("RAGD_CONFIG", "")
		t.Setenv("XDG_CONFIG_HOME", dir)
		code, stdout, _ := runDoctorWith(t, host)
		want := "✗ config: no configuration at " + filepath.Join(dir, "ragd", "ragd.toml") + "\n"
		if code != exitFail || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want output with %q:\n%s", code, want, stdout)
		}
	})

	t.Run("default path found", func(t *testing.T) {
		dir := isolate(t)
		t.Setenv("RAGD_CONFIG", "")
		t.Setenv("XDG_CONFIG_HOME", dir)
		if err := os.Mkdir(filepath.Join(dir, "ragd"), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(dir, "ragd", "ragd.toml")
		if err := os.WriteFile(cfg, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, stdout, _ := runDoctorWith(t, host)
		if want := "✓ config: " + cfg + " (0 vaults)\n"; !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	})
}

// The socket named in the configuration file is used when neither -socket
// nor $RAGD_SOCKET is set.
func TestDoctorUsesConfiguredSocket(t *testing.T) {
	sock := serveFake(t, &fakeBackend{statuses: []*ipc.StatusResponse{healthyStatus()}})
	_, cfg := doctorConfig(t, "")
	_, cfgWithSocket := doctorConfig(t, fmt.Sprintf("socket = %q\n", sock))
	t.Setenv("RAGD_SOCKET", "")
	host := fakeHost(t, "524288", "128", 42<<30)

	code, stdout, _ := runDoctorWith(t, host, "-config", cfgWithSocket)
	if code != exitOK || !strings.Contains(stdout, "✓ daemon: ragd v0.1.0 (pid 4242) answers on "+sock+": idle\n") {
		t.Errorf("configured socket: exit %d\n%s", code, stdout)
	}
	// $RAGD_SOCKET wins over the configuration.
	t.Setenv("RAGD_SOCKET", sock)
	if code, stdout, _ := runDoctorWith(t, host, "-config", cfg); code != exitOK {
		t.Errorf("$RAGD_SOCKET: exit %d\n%s", code, stdout)
	}
}

func TestDoctorDaemonProblems(t *testing.T) {
	newer := healthyStatus()
	newer.Protocol = ipc.ProtocolVersion + 1
	older := healthyStatus()
	older.Protocol = 0
	broken := healthyStatus()
	broken.Graph = &ipc.GraphStatus{Notes: 3, Problem: "edge index and relations disagree"}
	noGraph := healthyStatus()
	noGraph.Graph = nil
	noVaults := healthyStatus()
	noVaults.Vaults = nil
	lastErr := healthyStatus()
	lastErr.Vaults[0].LastError = "reconcile: too many open files"

	tests := []struct {
		name     string
		st       *ipc.StatusResponse
		wantCode int
		want     []string
	}{
		{"newer daemon", newer, exitFail, []string{
			fmt.Sprintf("✗ protocol: ragd speaks protocol %d, this ragctl %d\n", ipc.ProtocolVersion+1, ipc.ProtocolVersion),
			"→ upgrade ragctl",
		}},
		{"older daemon", older, exitFail, []string{"✗ protocol: ragd speaks protocol 0", "→ upgrade ragd"}},
		{"inconsistent graph", broken, exitFail, []string{
			"✗ graph: inconsistent: edge index and relations disagree\n",
			"→ rebuild the index: stop ragd, delete /home/u/.local/share/ragd",
		}},
		{"no graph", noGraph, exitOK, []string{"- graph: not reported by this ragd\n"}},
		{"no vaults", noVaults, exitOK, []string{"! vaults: no vaults configured\n", "→ add a [[vault]] table"}},
		{"last error", lastErr, exitOK, []string{
			"! vault notes: online, watching, 1234 documents; last error: reconcile: too many open files\n",
			"→ `ragctl reindex -vault notes -wait` retries",
		}},
		{"sample", sampleStatus(), exitFail, []string{
			"✗ vault usb: offline: vault root is missing\n",
			"→ ragd waits for /media/usb/vault to come back",
			"! vault notes: 3 files could not be indexed\n    big.md: file is 80 MB, over max_file_mb 50\n    … and 2 more\n",
			"! vault new: online, but rescanned every 30s instead of watched",
		}},
	}
	host := fakeHost(t, "524288", "128", 42<<30)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, cfg := doctorConfig(t, "")
			sock := serveFake(t, &fakeBackend{statuses: []*ipc.StatusResponse{tt.st}})
			code, stdout, _ := runDoctorWith(t, host, "-socket", sock, "-config", cfg)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d", code, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// A daemon older than ragctl refuses its requests with 426.
func TestDoctorRefusedByOlderDaemon(t *testing.T) {
	_, cfg := doctorConfig(t, "")
	sock := filepath.Join(ipctest.ShortDir(t), "old.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUpgradeRequired)
		fmt.Fprintf(w, `{"error": "client speaks protocol \"%d\", this ragd speaks %d: upgrade ragd"}`, ipc.ProtocolVersion, ipc.ProtocolVersion-1)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	code, stdout, _ := runDoctorWith(t, fakeHost(t, "524288", "128", 42<<30), "-socket", sock, "-config", cfg)
	for _, want := range []string{
		"✓ daemon: answers on " + sock + " but refuses this ragctl\n",
		"✗ protocol: client speaks protocol",
		fmt.Sprintf("→ ragctl speaks protocol %d: upgrade ragd", ipc.ProtocolVersion),
		"- vaults: not checked (ragd refuses this ragctl)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
}

func TestDoctorUsageAndEndToEnd(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"doctor", "extra"}, {"doctor", "-verbose"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitUsage || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}

	// Through run, on the real machine: the result depends on it, the
	// shape does not.
	_, cfg := doctorConfig(t, "")
	sock := serveFake(t, &fakeBackend{statuses: []*ipc.StatusResponse{healthyStatus()}})
	code, stdout, stderr := runCmd(t, "-socket", sock, "doctor", "-json", "-config", cfg)
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not JSON (%v): %s; stderr %q", err, stdout, stderr)
	}
	if code != exitOK && code != exitFail || (code == exitOK) != rep.OK {
		t.Errorf("exit %d with ok = %v", code, rep.OK)
	}
	if len(rep.Checks) < 7 || rep.Checks[0].Name != "config" || rep.Checks[0].Status != checkOK || rep.Checks[1].Status != checkOK {
		t.Errorf("checks %+v", rep.Checks)
	}
}
