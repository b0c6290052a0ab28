package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ragd/ragd/internal/ragdtest"
)

// term is ragctl running on a pseudo-terminal, its output collected as it
// comes.
type term struct {
	t    *testing.T
	cmd  *exec.Cmd
	f    *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	more chan struct{} // closed and replaced whenever output arrives
	eof  chan struct{} // closed when the terminal has nothing more to read
}

// startTerm runs ragctl args on a terminal of cols columns.
func (e *env) startTerm(cols uint16, extraEnv []string, args ...string) *term {
	e.T.Helper()
	cmd := exec.Command(filepath.Join(bin, "ragctl"), args...)
	cmd.Env = e.environ(extraEnv...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		e.T.Fatal(err)
	}
	tm := &term{t: e.T, cmd: cmd, f: f, more: make(chan struct{}), eof: make(chan struct{})}
	go tm.read()
	e.T.Cleanup(func() {
		cmd.Process.Kill()
		<-tm.eof
		cmd.Wait()
		f.Close()
	})
	return tm
}

func (tm *term) read() {
	defer close(tm.eof)
	buf := make([]byte, 4096)
	for {
		n, err := tm.f.Read(buf)
		tm.mu.Lock()
		tm.out.Write(buf[:n])
		close(tm.more)
		tm.more = make(chan struct{})
		tm.mu.Unlock()
		if err != nil { // EIO once the child has exited
			return
		}
	}
}

// output is everything written so far, with CR LF as LF.
func (tm *term) output() (string, <-chan struct{}) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return strings.ReplaceAll(tm.out.String(), "\r\n", "\n"), tm.more
}

// waitFor waits until ok holds for the output, woken by each write.
func (tm *term) waitFor(what string, ok func(out string) bool) string {
	tm.t.Helper()
	deadline := time.After(ragdtest.WaitTimeout)
	for {
		out, more := tm.output()
		if ok(out) {
			return out
		}
		select {
		case <-more:
		case <-tm.eof:
			if out, _ := tm.output(); ok(out) {
				return out
			}
			tm.t.Fatalf("ragctl %s ended before %s:\n%s", strings.Join(tm.cmd.Args[1:], " "), what, out)
		case <-deadline:
			tm.t.Fatalf("gave up waiting for %s:\n%s", what, out)
		}
	}
}

// wait waits for ragctl to exit and returns its output and exit code.
func (tm *term) wait() (string, int) {
	tm.t.Helper()
	<-tm.eof
	err := tm.cmd.Wait()
	out, _ := tm.output()
	if ee, ok := err.(*exec.ExitError); ok {
		return out, ee.ExitCode()
	} else if err != nil {
		tm.t.Fatal(err)
	}
	return out, 0
}

// interrupt sends SIGINT, as Ctrl-C does, and returns the exit code.
func (tm *term) interrupt() int {
	tm.t.Helper()
	tm.cmd.Process.Signal(syscall.SIGINT)
	_, code := tm.wait()
	return code
}

// frames splits a full-screen view's output into the frames drawn, each
// without escape sequences.
func frames(out string) []string {
	var fs []string
	for _, f := range strings.Split(out, "\x1b[H")[1:] {
		fs = append(fs, stripANSI(f))
	}
	return fs
}

// runTerm runs ragctl args to the end on a terminal of cols columns.
func (e *env) runTerm(cols uint16, extraEnv []string, args ...string) string {
	e.T.Helper()
	out, _ := e.startTerm(cols, extraEnv, args...).wait()
	return out
}
