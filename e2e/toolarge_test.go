package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// A note too large to index in one transaction is skipped with its reason
// in ragctl status, unread: a 200 MB note under max_file_mb = 300 used to
// take the daemon to 735 MB of memory before failing at the commit. Nothing
// else is lost and the daemon keeps serving and indexing.
func TestNoteTooLargeIsSkippedWithItsReason(t *testing.T) {
	e := newEnv(t, notes, "max_file_mb = 300\n")
	// A real note of 4 MB of words: over the limit, under max_file_mb.
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		b.WriteString("entry " + strconv.Itoa(i) + " of the exported log\n")
	}
	e.Write("log export.md", b.String())
	// A 200 MB note, sparse so that it costs no disk: reading it would
	// cost the daemon its length in memory.
	huge := filepath.Join(e.Vault, "huge.md")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 200<<20); err != nil {
		t.Fatal(err)
	}
	d := e.start("")
	st := e.waitFor(d, "idle", idle)
	if v := st.Vaults[0]; v.Documents != len(notes) || v.Failed != 2 {
		t.Errorf("status: %d documents, %d failed; want %d and 2 (%+v)", v.Documents, v.Failed, len(notes), v.FailedFiles)
	}
	code, out, errOut := e.ragctl("status")
	if code != 0 {
		t.Fatalf("ragctl status: exit %d %s", code, errOut)
	}
	mustContain(t, "ragctl status", out,
		"skipped log export.md: too large to index in one transaction (4.0 MB of text",
		"skipped huge.md: too large to index in one transaction (200.0 MB of text")
	if peak := peakRSS(t, d.Cmd.Process.Pid); peak > 150<<20 {
		t.Errorf("daemon peak RSS %d MB with a 200 MB note refused: it was read", peak>>20)
	}

	// Nothing else lost; the daemon still indexes what is saved.
	code, out, _ = e.ragctl("search", "espresso ratio")
	if code != 0 || !strings.Contains(out, "Espresso Dialing In") {
		t.Errorf("search espresso ratio: exit %d\n%s", code, out)
	}
	e.Write("pastry.md", "# Pastry\n\nCroissants need cold butter.\n")
	e.waitFor(d, "pastry.md indexed", func(st *ipc.StatusResponse) bool { return st.Vaults[0].Documents == len(notes)+1 })
	if code, out, _ = e.ragctl("search", "croissants"); code != 0 || !strings.Contains(out, "pastry.md") {
		t.Errorf("search croissants: exit %d\n%s", code, out)
	}
	select {
	case <-d.Exited():
		t.Fatalf("ragd exited: %v", d.Err())
	default:
	}
	d.Stop(t)
}

// peakRSS is a process's peak resident set (VmHWM); the test skips where
// /proc does not say.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no peak RSS here: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				t.Logf("ragd peak RSS: %d MB", kb>>10)
				return kb << 10
			}
		}
	}
	t.Skip("no VmHWM in /proc status")
	return 0
}
