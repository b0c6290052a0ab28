package scale

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/peer/fts5"
	"github.com/ragd/ragd/bench/peer/peertest"
	"github.com/ragd/ragd/bench/vaultgen"
	"github.com/ragd/ragd/ipc"
)

func TestMain(m *testing.M) {
	peertest.MainIfChild(func(engine, dir string) (peer.Engine, bool, error) {
		return fts5.Open(dir, fts5.Porter)
	})
	os.Exit(m.Run())
}

// genVault generates a small vault from the generator's test sources.
func genVault(t *testing.T, notes int) string {
	t.Helper()
	src, err := vaultgen.LoadSource(filepath.Join("..", "vaultgen", "testdata", "hub"), filepath.Join("..", "vaultgen", "testdata", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vaultgen.Generate(dir, src, vaultgen.Options{Notes: notes, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestQueries(t *testing.T) {
	vault := genVault(t, 40)
	qs, err := Queries(vault, 30, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Queries(vault, 30, 1)
	if len(qs) != 30 || strings.Join(qs, "|") != strings.Join(again, "|") {
		t.Fatalf("queries %q, then %q: want the same 30", qs, again)
	}
	seen := map[string]bool{}
	for _, q := range qs {
		words := strings.Fields(q)
		if len(words) < 1 || len(words) > 3 || seen[q] {
			t.Errorf("query %q: want 1–3 words, each query once", q)
		}
		seen[q] = true
		for _, w := range words {
			if len(w) < 4 || stopWords[w] || strings.ToLower(w) != w {
				t.Errorf("query %q has the word %q", q, w)
			}
		}
	}
}

// TestMeasurePeer runs the whole measurement with a real FTS5 peer (the
// test binary re-executed as ragd-peer) on a generated vault.
func TestMeasurePeer(t *testing.T) {
	vault := genVault(t, 30)
	qs, err := Queries(vault, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGD_PEERTEST_CHILD", "1")
	e := &peerEngine{bin: self, engine: peer.EngineFTS5, vault: vault}
	smp, err := measure(context.Background(), e, t.TempDir(), settings{vault: vault, queries: qs, timeout: time.Minute, saves: 3})
	if err != nil {
		t.Fatal(err)
	}
	checkSample(t, smp)
	if _, err := os.Stat(filepath.Join(vault, probeDir)); err == nil {
		t.Error("the probe folder was left in the vault")
	}
}

// TestMeasureRagd builds ragd and measures it on a generated vault.
func TestMeasureRagd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ragd")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ragd")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/ragd")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ragd: %v\n%s", err, out)
	}
	vault := genVault(t, 60)
	qs, err := Queries(vault, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	// A short socket path: the work directory is under a short temp dir.
	work, err := os.MkdirTemp("", "rb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	e := &ragdEngine{bin: bin, vault: vault, pollEvery: 50 * time.Millisecond}
	t0 := time.Now()
	smp, err := measure(context.Background(), e, filepath.Join(work, "r"), settings{vault: vault, queries: qs, timeout: time.Minute, saves: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The cold time is ragd's own end of the pass, within the run.
	if smp.ColdS > time.Since(t0).Seconds() {
		t.Errorf("cold index %.3f s, longer than the whole run", smp.ColdS)
	}
	checkSample(t, smp)
	if smp.StatusCalls == 0 || smp.StatusMaxMS <= 0 || smp.StatusFailed != 0 || smp.Chunks < 60 || smp.RestartIdleS < smp.RestartS {
		t.Errorf("ragd figures: %+v", smp)
	}
}

func checkSample(t *testing.T, s sample) {
	t.Helper()
	if s.Failed != "" || s.ColdS <= 0 || s.PeakMB <= 0 || s.IdleMB <= 0 || s.IdleTreeMB < s.IdleMB || s.DiskMB <= 0 ||
		s.RestartS <= 0 || s.QueryP50MS <= 0 || s.QueryP95MS < s.QueryP50MS || s.SaveP50MS <= 0 {
		t.Errorf("sample %+v", s)
	}
}

// TestTimeout checks that a cold index past the timeout is recorded as
// stopped, with what was measured until then.
func TestTimeout(t *testing.T) {
	vault := genVault(t, 20)
	e := &peerEngine{bin: "/bin/sh", engine: "sleeper", vault: vault}
	// A "peer" that never says it is ready.
	e.bin = writeScript(t, "#!/bin/sh\nexec sleep 30\n")
	smp, err := measure(context.Background(), e, t.TempDir(), settings{vault: vault, queries: []string{"x"}, timeout: 200 * time.Millisecond, saves: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(smp.Failed, "cold index stopped after 200ms") || smp.ColdS < 0.2 {
		t.Errorf("sample %+v", smp)
	}
}

func writeScript(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "peer.sh")
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReport(t *testing.T) {
	mk := func(cold, idle, disk float64) sample {
		return sample{ColdS: cold, ColdCPUS: cold / 2, IdleMB: idle, DiskMB: disk, PeakMB: 2 * idle, QueryP50MS: 1, QueryP95MS: 2, SaveP50MS: 100, RestartS: 0.5}
	}
	rs := []*scaleResult{
		{Scale: 1, Notes: 1000, VaultMB: 2.5, Queries: 10, Engines: []engineResult{
			{Engine: "ragd", Median: func() sample {
				s := mk(1, 100, 10)
				s.StatusSlow, s.StatusCalls, s.StatusEarly, s.StatusFailed = 3, 7, 2, 1
				return s
			}(), Samples: []sample{mk(1, 100, 10)}},
			{Engine: "fts5", Median: mk(0.5, 20, 12), Samples: []sample{mk(0.5, 20, 12)}},
		}},
		{Scale: 10, Notes: 10000, VaultMB: 25, Queries: 10, Engines: []engineResult{
			{Engine: "ragd", Median: sample{Failed: "cold index stopped after 1m0s: 5,000 notes indexed", ColdS: 60, PeakMB: 900, StatusMaxMS: 40}},
			{Engine: "fts5", Median: mk(5, 25, 120), Samples: []sample{mk(5, 25, 120)}},
		}},
	}
	var b bytes.Buffer
	printScale(&b, rs[0])
	printScale(&b, rs[1])
	printGrowth(&b, rs)
	out := b.String()
	for _, want := range []string{
		"== 1x: 1,000 notes, 2.5 MB",
		fmt.Sprintf("%-34s %12s %12s %12s", "cold index to idle, s", "1.00", "0.50", "2.00"),
		fmt.Sprintf("%-34s %12s %12s %12s", "idle RSS, MB", "100", "20", "5.00"),
		fmt.Sprintf("%-34s %12s %12s", "status while indexing max, ms", "0.0", "—"),
		fmt.Sprintf("%-34s %12s %12s", "  answers over 50 ms / calls", "3 / 7", "—"),
		fmt.Sprintf("%-34s %12s %12s", "  failed: before listening / after", "2 / 1", "—"),
		fmt.Sprintf("%-34s %12s %12s", "idle RSS, MB", "stopped", "25"),
		fmt.Sprintf("%-34s %12s %12s", "peak RSS, MB", "900", "50"),
		"ragd: cold index stopped after 1m0s: 5,000 notes indexed",
		"fts5         10x    10,000         0.500     1.00        0.250     1.00             2.50     0.12         12.00     1.00",
		"ragd         10x    10,000       stopped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestMedian(t *testing.T) {
	m := median([]sample{{ColdS: 3}, {ColdS: 1, Failed: "x"}, {ColdS: 2}, {ColdS: 9}})
	if m.ColdS != 3 || m.Failed != "" {
		t.Errorf("median %+v, want 3 from the finished runs", m)
	}
	m = median([]sample{{ColdS: 3, Failed: "a"}, {ColdS: 5, Failed: "b"}})
	if m.ColdS != 4 || m.Failed != "a" {
		t.Errorf("all failed: %+v, want 4 (the mean of the middle two)", m)
	}
	m = median([]sample{{ColdS: 6, Chunks: 10}, {ColdS: 2, Chunks: 13}})
	if m.ColdS != 4 || m.Chunks != 12 {
		t.Errorf("two runs: %+v, want cold 4 and chunks 12 (the mean of the two, not the lower)", m)
	}
}

func TestProcfs(t *testing.T) {
	if procKB(os.Getpid(), "VmRSS") <= 0 || procKB(os.Getpid(), "VmHWM") < procKB(os.Getpid(), "VmRSS")/2 {
		t.Skip("no /proc here")
	}
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	found := false
	for _, p := range descendants(os.Getpid()) {
		found = found || p == cmd.Process.Pid
	}
	if !found || childrenRSSKB(os.Getpid()) <= 0 {
		t.Errorf("child %d not among descendants %v", cmd.Process.Pid, descendants(os.Getpid()))
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), make([]byte, 10000), 0o644)
	if n := diskBytes(dir); n < 10000 {
		t.Errorf("diskBytes = %d", n)
	}
	if got := formatCount(1234567); got != "1,234,567" {
		t.Errorf("formatCount = %s", got)
	}
}

// TestMainVault runs ragd-bench scale on an existing vault with one peer
// (the test binary as ragd-peer) and checks the table and that the vault
// itself was not written to.
func TestMainVault(t *testing.T) {
	vault := genVault(t, 20)
	before := treeFiles(t, vault)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGD_PEERTEST_CHILD", "1")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"-scales", "", "-vault", vault, "-engines", "fts5", "-runs", "2",
		"-queries", "5", "-saves", "1", "-settle", "0s", "-peer-bin", self}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"== vault: 20 notes", "medians of 2 runs per engine", "cold index to idle, s", "save → searchable p50, ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if after := treeFiles(t, vault); after != before {
		t.Errorf("the vault changed: %s, then %s", before, after)
	}
	for _, args := range [][]string{{"-scales", "x"}, {"-engines", "lucene"}, {"-runs", "0"}, {"-scales", ""}, {"extra"}} {
		if code := Main(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// treeFiles lists the files under dir with their sizes.
func treeFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			fmt.Fprintf(&b, "%s %d\n", p, fi.Size())
		}
		return nil
	})
	return b.String()
}

func TestStatusAt(t *testing.T) {
	st := &ipc.StatusResponse{State: ipc.StateIndexing, Progress: &ipc.Progress{Total: 328550, Done: 4096}}
	if got, want := statusAt(41234*time.Millisecond, st), "41.2 s in, 4096 of 328550 files"; got != want {
		t.Errorf("statusAt = %q, want %q", got, want)
	}
	st.Progress = nil
	if got, want := statusAt(time.Second, st), "1.0 s in, "+ipc.StateIndexing; got != want {
		t.Errorf("statusAt without progress = %q, want %q", got, want)
	}
}
