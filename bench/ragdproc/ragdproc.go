// Package ragdproc starts a throwaway ragd for measurements: a config
// indexing one vault with its data dir and socket in a directory of the
// caller's, the daemon's output appended to a log there, and a client on
// its socket. ragctl eval and bench and the scale benchmark use it.
package ragdproc

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ragd/ragd/ipc"
)

// Daemon is a running ragd.
type Daemon struct {
	Client *ipc.Client
	dir    string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	err    error // Wait's, once exited is closed
	once   sync.Once
}

// WriteConfig writes dir/ragd.toml: the vault at vaultDir (read only; ragd
// never writes into a vault), data in dir/data, the socket dir/ragd.sock;
// extra is appended ([[plugin]], [search] …).
func WriteConfig(dir, vaultDir, extra string) error {
	abs, err := filepath.Abs(vaultDir)
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"info\"\n\n[[vault]]\nname = \"eval\"\npath = %q\nmax_file_mb = 50\n",
		filepath.Join(dir, "ragd.sock"), DataDir(dir), abs)
	return os.WriteFile(filepath.Join(dir, "ragd.toml"), []byte(cfg+extra), 0o600)
}

// DataDir is where the daemon of dir keeps its index.
func DataDir(dir string) string { return filepath.Join(dir, "data") }

// Start runs bin on dir/ragd.toml (see WriteConfig), appending its output
// to dir/ragd.log.
func Start(bin, dir string) (*Daemon, error) {
	d := &Daemon{dir: dir, log: filepath.Join(dir, "ragd.log"), exited: make(chan struct{})}
	logFile, err := os.OpenFile(d.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	d.cmd = exec.Command(bin, "run", "-config", filepath.Join(dir, "ragd.toml"))
	d.cmd.Stdout, d.cmd.Stderr = logFile, logFile
	if err := d.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start ragd: %w", err)
	}
	go func() {
		d.err = d.cmd.Wait()
		logFile.Close()
		close(d.exited)
	}()
	d.Client = ipc.NewClient(filepath.Join(dir, "ragd.sock"))
	return d, nil
}

// PID is the daemon's process id.
func (d *Daemon) PID() int { return d.cmd.Process.Pid }

// Exited is closed when the process has ended.
func (d *Daemon) Exited() <-chan struct{} { return d.exited }

// Observer sees every status call WaitIdle makes: how long it took and
// what it returned.
type Observer func(took time.Duration, st *ipc.StatusResponse, err error)

// StatusTimeout bounds one status call of WaitIdle.
const StatusTimeout = 10 * time.Second

// WaitIdle polls the status until every vault has been reconciled, nothing
// is queued and no chunk waits for its vector. It polls every 10 ms at
// first, backing off to maxPoll (status costs the daemon work, which must
// not compete with indexing for the CPU). observe, if set, sees each call;
// a call unanswered after StatusTimeout is an error it sees. An embedder
// failing for a minute is an error.
func (d *Daemon) WaitIdle(ctx context.Context, maxPoll time.Duration, observe Observer) error {
	var errSince time.Time
	poll := 10 * time.Millisecond
	for {
		t0 := time.Now()
		cctx, cancel := context.WithTimeout(ctx, StatusTimeout)
		st, err := d.Client.Status(cctx)
		cancel()
		if observe != nil {
			observe(time.Since(t0), st, err)
		}
		if err == nil && Idle(st) {
			return nil
		}
		if err == nil && st.Vector != nil && st.Vector.LastError != "" {
			if errSince.IsZero() {
				errSince = time.Now()
			} else if time.Since(errSince) > time.Minute {
				return fmt.Errorf("embedding failed: %s", st.Vector.LastError)
			}
		} else {
			errSince = time.Time{}
		}
		select {
		case <-d.exited:
			return fmt.Errorf("ragd exited early (%v): %s", d.err, d.Tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
		poll = min(poll*3/2, max(maxPoll, 10*time.Millisecond))
	}
}

// Idle reports whether a status says the daemon has nothing left to do:
// every vault reconciled, nothing indexing, every chunk embedded.
func Idle(st *ipc.StatusResponse) bool {
	if st.State != ipc.StateIdle {
		return false
	}
	for _, v := range st.Vaults {
		if v.LastReconcile == nil {
			return false
		}
	}
	return st.Vector == nil || st.Vector.Pending == 0 && st.Vector.Signature != ""
}

// Stop ends the daemon with SIGTERM (SIGKILL after 10 s) and returns its
// final state (wait4's rusage gives the peak RSS); later calls return the
// same.
func (d *Daemon) Stop() *os.ProcessState {
	d.once.Do(func() {
		d.Client.Close()
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.exited:
		case <-time.After(10 * time.Second):
			d.cmd.Process.Kill()
			<-d.exited
		}
	})
	return d.cmd.ProcessState
}

// Tail returns the end of the daemon's log.
func (d *Daemon) Tail() string {
	b, _ := os.ReadFile(d.log)
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// CopyTree copies the regular files and directories under src to dst
// (a vault to measure on, since measuring writes into it) and returns how
// many files and bytes it copied.
func CopyTree(src, dst string) (files int, bytes int64, err error) {
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		bytes += int64(len(b))
		return os.WriteFile(out, b, 0o644)
	})
	return files, bytes, err
}
