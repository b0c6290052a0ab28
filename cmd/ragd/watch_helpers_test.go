package main

// Helpers of the live-watching tests (watch_e2e_test.go).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// waitFor polls cond until it holds (ragdtest's Poll), failing the test
// with what if it never does.
func waitFor(t *testing.T, d *daemonProc, cond func() bool, what string) { d.Poll(t, what, cond) }

// writeConfigWith writes a config with extra [daemon] keys (writeConfig
// appends its text after the [[vault]] table, where daemon keys cannot go)
// and extra keys for the vault.
func (e *testEnv) writeConfigWith(daemonExtra, vaultExtra string) {
	e.WriteConfig(daemonExtra, vaultExtra, "")
}

// startWatching starts the daemon and waits until its watcher is up as
// well: start() returns once the start-up pass is done, and the watcher is
// set up concurrently with that pass, so a change made right after start()
// could land before any directory is watched.
func (e *testEnv) startWatching() *daemonProc {
	e.T.Helper()
	d := e.start()
	waitFor(e.T, d, func() bool { return d.vault(e.T).Watching == "watching" }, `status watching == "watching"`)
	return d
}

// vault returns the status of the test vault.
func (d *daemonProc) vault(t *testing.T) ipc.VaultStatus {
	t.Helper()
	st, err := d.Client.Status(context.Background())
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if len(st.Vaults) != 1 || st.Vaults[0].Name != "notes" {
		t.Fatalf("status vaults = %+v", st.Vaults)
	}
	return st.Vaults[0]
}

// found lists the distinct files a search returns, sorted.
func (d *daemonProc) found(t *testing.T, q string) string {
	t.Helper()
	ps := strings.Split(paths(d.search(t, q)), ",")
	sort.Strings(ps)
	return strings.Join(ps, ",")
}

// waitFound waits until searching q returns exactly the files want
// (sorted, comma-separated; "" for none).
func (d *daemonProc) waitFound(t *testing.T, q, want string) {
	t.Helper()
	var got string
	waitFor(t, d, func() bool { got = d.found(t, q); return got == want },
		fmt.Sprintf("search %q to return %q (last got %q)", q, want, got))
}

// wantDocs checks the vault's document and failure counts in status.
func (d *daemonProc) wantDocs(t *testing.T, docs int) ipc.VaultStatus {
	t.Helper()
	v := d.vault(t)
	if v.Documents != docs || v.Failed != 0 || len(v.FailedFiles) != 0 || !v.Online || v.LastError != "" {
		t.Errorf("status = %+v, want %d documents, none failed, online, no error", v, docs)
	}
	return v
}

func (e *testEnv) abs(rel string) string { return filepath.Join(e.Vault, filepath.FromSlash(rel)) }

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}
