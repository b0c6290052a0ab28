package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Source says what a peer indexes: exactly one of Vault (a folder of
// notes) and BEIR (a corpus.jsonl file).
type Source struct {
	Vault string
	BEIR  string
}

// Args returns ragd-peer's arguments for engine, indexing src into (or
// opening it from) indexDir.
func Args(engine, indexDir string, src Source) []string {
	args := []string{"-engine", engine, "-index", indexDir}
	if src.Vault != "" {
		args = append(args, "-vault", src.Vault)
	}
	if src.BEIR != "" {
		args = append(args, "-beir", src.BEIR)
	}
	return args
}

// Proc is a running ragd-peer.
type Proc struct {
	Ready Ready
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	errb  *tailBuffer
	mu    sync.Mutex // one request at a time
	once  sync.Once  // wait
	werr  error
}

// Start runs bin with args and waits for its ready line: the index has
// been built or opened. The process's stderr is kept for error messages.
func Start(bin string, args []string) (*Proc, error) {
	p, err := Spawn(bin, args)
	if err != nil {
		return nil, err
	}
	if err := p.WaitReady(); err != nil {
		return nil, err
	}
	return p, nil
}

// Spawn starts bin without waiting for it to be ready, so a caller can
// watch the process (its memory, say) while it indexes; WaitReady then
// waits.
func Spawn(bin string, args []string) (*Proc, error) {
	p := &Proc{cmd: exec.Command(bin, args...), errb: &tailBuffer{max: 4096}}
	p.cmd.Stderr = p.errb
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.in, p.out = in, bufio.NewReaderSize(out, 1<<16)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	return p, nil
}

// WaitReady reads the ready line.
func (p *Proc) WaitReady() error {
	if err := p.read(&p.Ready); err != nil {
		p.Kill()
		return err
	}
	if p.Ready.Error != "" {
		p.Kill()
		return fmt.Errorf("ragd-peer: %s", p.Ready.Error)
	}
	return nil
}

// PID returns the process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Search asks for the k best documents.
func (p *Proc) Search(q string, k int) ([]string, error) {
	resp, err := p.call(Request{Op: OpSearch, Query: q, K: k})
	if err != nil {
		return nil, err
	}
	return resp.IDs, nil
}

// Update makes the peer re-read one vault file (or forget it if it is
// gone); the change is searchable when it returns.
func (p *Proc) Update(path string) error {
	_, err := p.call(Request{Op: OpUpdate, Path: path})
	return err
}

func (p *Proc) call(req Request) (*Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return nil, p.exitError(err)
	}
	var resp Response
	if err := p.read(&resp); err != nil {
		return nil, err
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("ragd-peer: %s", resp.Error)
	}
	return &resp, nil
}

func (p *Proc) read(v any) error {
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return p.exitError(err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("ragd-peer: bad line %.200q: %w", line, err)
	}
	return nil
}

func (p *Proc) exitError(err error) error {
	msg := strings.TrimSpace(p.errb.String())
	if msg == "" {
		return fmt.Errorf("ragd-peer: %w", err)
	}
	return fmt.Errorf("ragd-peer: %w: %s", err, msg)
}

// wait waits for the process once, whoever asks first.
func (p *Proc) wait() error {
	p.once.Do(func() { p.werr = p.cmd.Wait() })
	return p.werr
}

// Close ends the peer by closing its stdin and waits for it; it returns
// the process state (for its peak memory, from wait4's rusage).
func (p *Proc) Close() (*os.ProcessState, error) {
	p.in.Close()
	err := p.wait()
	if err != nil {
		if msg := strings.TrimSpace(p.errb.String()); msg != "" {
			err = fmt.Errorf("ragd-peer: %w: %s", err, msg)
		}
	}
	return p.cmd.ProcessState, err
}

// Kill ends the peer at once (if it has not ended) and waits for it.
func (p *Proc) Kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.in.Close()
	p.wait()
}

// Find locates the ragd-peer binary: the flagged path, else next to the
// running program, else on $PATH.
func Find(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "ragd-peer")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("ragd-peer")
	if err != nil {
		return "", errors.New("cannot find the ragd-peer binary: build it (make build) or pass -peer-bin PATH")
	}
	return p, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(b)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
