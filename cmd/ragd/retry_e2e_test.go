package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// TestCrashedExtractionIsRetried is the third failure of the fault
// campaign: a file whose extractor died in the middle of the call, and
// again on the restarted process, was stored as failed with its hash, so
// every later pass counted it "unchanged" and it stayed failed for good.
// Now it is never recorded as done: it is retried as soon as the extractor
// is healthy again, without an edit or a pass of the user's.
func TestCrashedExtractionIsRetried(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, map[string]string{
		"a.md":        "# A\n\nRhubarb crumble.\n",
		"crashy.hang": "CRASH2: damson gin\n",
		"fine.hang":   "medlar cheese\n",
	})
	markers := t.TempDir()
	e.writeConfigTail("rescan_interval = 0", "watch = false\ninclude = [\"**/*.md\", \"**/*.hang\"]", fmt.Sprintf(`
[[plugin]]
name = "hang"
kind = "extractor"
command = %q
env = { %s = %q, %s = %q }
timeout = "5s"
extensions = [".hang"]
`, exe, envTestPlugin, hangExtractor, envTestPluginDir, markers))
	d := e.ragd("run", "-config", e.Config)
	d.Poll(t, func() string { return "damson to be found after the extractor recovered" }, func() bool {
		st, err := d.Client.Status(context.Background())
		return err == nil && st.State == ipc.StateIdle && paths(d.search(t, "damson gin")) == "crashy.hang"
	})
	if reasons := d.failedReasons(t); len(reasons) != 0 {
		t.Errorf("failed files: %v", reasons)
	}
	runs, err := d.Client.Runs(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	var retried bool
	for _, r := range runs.Runs {
		retried = retried || r.Trigger == "retry" && r.Indexed >= 1
	}
	if !retried {
		t.Errorf("no retry run indexed the file: %+v", runs.Runs)
	}
	if out := d.Output(); !strings.Contains(out, "retrying files whose extraction failed") {
		t.Errorf("the retry is not logged")
	}
	d.Stop(t)
}
