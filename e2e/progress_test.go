package e2e

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

var backlogLine = regexp.MustCompile(`(?m)^embedding: \d+ chunks waiting for vectors$`)

// One notion of progress: while chunks wait for their vectors, ragctl
// status, status -watch on a terminal and status -watch into a pipe say
// embedding with the backlog, never idle; once the vectors land they say
// idle.
func TestStatusWatchEmbeddingBacklog(t *testing.T) {
	emb := ragdtest.NewEmbedder(t, true)
	e := newEnv(t, notes, "")
	e.WriteConfig("", "", emb.Plugin("emb"))
	d := e.start("")
	st := e.waitFor(d, "every file indexed, vectors held back", func(st *ipc.StatusResponse) bool {
		return ragdtest.Reconciled(st) && st.State == ipc.StateEmbedding && st.Vector != nil && st.Vector.Pending > 0
	})
	if st.Vector.LastError != "" {
		t.Errorf("a held embedder is not a failing one: last_error %q", st.Vector.LastError)
	}

	_, out, _ := e.ragctl("status")
	header, _, _ := strings.Cut(out, "\n")
	mustContain(t, "ragctl status", header, ": embedding, ", " chunks waiting for vectors")

	// On a terminal: full-screen frames.
	tm := e.startTerm(100, nil, "status", "-watch")
	tm.waitFor("a frame with the embedding backlog", func(out string) bool {
		fs := frames(out)
		return len(fs) > 0 && backlogLine.MatchString(fs[len(fs)-1])
	})
	// Into a pipe: one line per change.
	pipe := exec.Command(filepath.Join(bin, "ragctl"), "status", "-watch")
	pipe.Env = e.environ()
	stdout, err := pipe.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := pipe.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pipe.Process.Kill(); pipe.Wait() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !backlogLine.MatchString(lines.Text()) {
		t.Fatalf("status -watch into a pipe: first line %q, want the embedding backlog", lines.Text())
	}

	emb.Release()
	out = tm.waitFor("a frame saying idle", func(out string) bool {
		fs := frames(out)
		return len(fs) > 0 && strings.Contains(firstLine(fs[len(fs)-1]), ": idle")
	})
	var plain []string
	for lines.Scan() {
		plain = append(plain, lines.Text())
		if strings.HasPrefix(lines.Text(), "idle: ") {
			break
		}
	}
	if len(plain) == 0 || !strings.HasPrefix(plain[len(plain)-1], "idle: notes ") {
		t.Errorf("status -watch into a pipe never said idle: %q", plain)
	}

	// Every frame that says idle comes after the last one with a backlog,
	// and none says both.
	fs := frames(out)
	lastBacklog, firstIdle := -1, -1
	for i, f := range fs {
		idle := strings.Contains(firstLine(f), ": idle")
		if backlogLine.MatchString(f) || strings.Contains(firstLine(f), "waiting for vectors") {
			lastBacklog = i
			if idle {
				t.Errorf("frame %d says idle with a backlog:\n%s", i, f)
			}
		}
		if idle && firstIdle < 0 {
			firstIdle = i
		}
	}
	if lastBacklog < 0 || firstIdle < lastBacklog {
		t.Errorf("frames out of order: last with a backlog %d, first idle %d", lastBacklog, firstIdle)
	}
	if st := e.status(); st.Vector == nil || st.Vector.Pending != 0 || st.Vector.Vectors == 0 {
		t.Errorf("after the release: vector status %+v", st.Vector)
	}

	if code := tm.interrupt(); code != 0 {
		t.Errorf("status -watch on Ctrl-C: exit %d, want 0", code)
	}
	pipe.Process.Signal(syscall.SIGINT)
	if err := pipe.Wait(); err != nil {
		t.Errorf("status -watch into a pipe on SIGINT: %v", err)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
