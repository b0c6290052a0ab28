package pdf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// maxText bounds the text read from pdftotext (a runaway file must not
// exhaust memory).
const maxText = 256 << 20

// poppler extracts with pdftotext (reading order, UTF-8, one form feed
// after every page) and reads the document information with pdfinfo. The
// PDF is passed on standard input, so no temporary file is written.
func (e *Extractor) poppler(ctx context.Context, data []byte) (*document, error) {
	out, err := run(ctx, e.pdftotext, data, maxText, "-enc", "UTF-8", "-eol", "unix", "-", "-")
	if err != nil {
		return nil, err
	}
	pages := strings.Split(string(out), "\f")
	if n := len(pages); n > 0 && strings.TrimSpace(pages[n-1]) == "" {
		pages = pages[:n-1] // after the last page's form feed
	}
	doc := &document{pages: pages, info: map[string]string{}, backend: "pdftotext"}
	if e.pdfinfo != "" {
		if info, err := run(ctx, e.pdfinfo, data, 1<<20, "-enc", "UTF-8", "-isodates", "-"); err == nil {
			doc.info = parseInfo(info)
		}
	}
	return doc, nil
}

// run runs a poppler tool with data on standard input and returns its
// standard output, at most limit bytes of it.
func run(ctx context.Context, bin string, data []byte, limit int, args ...string) ([]byte, error) {
	stdout := limitedBuffer{limit: limit}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if stdout.over {
		return nil, fmt.Errorf("%s: more than %d bytes of text", bin, limit)
	}
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	msg := firstErrorLine(stderr.String())
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return nil, fmt.Errorf("running %s: %w", bin, err)
	}
	if strings.Contains(strings.ToLower(stderr.String()), "password") {
		return nil, fmt.Errorf("%w: it needs a password (%s)", ErrEncrypted, msg)
	}
	if msg == "" {
		msg = exit.Error()
	}
	return nil, fmt.Errorf("%w: %s", ErrCorrupt, msg)
}

// firstErrorLine picks the most telling line of poppler's diagnostics.
func firstErrorLine(s string) string {
	var first string
	for l := range strings.SplitSeq(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if strings.Contains(l, "Error") {
			return l
		}
	}
	return first
}

// parseInfo reads pdfinfo's "Key:   value" lines.
func parseInfo(out []byte) map[string]string {
	info := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.Contains(k, " ") && k != "Custom Metadata" {
			continue
		}
		if v = strings.TrimSpace(v); v != "" {
			info[k] = v
		}
	}
	return info
}

// limitedBuffer is a bytes.Buffer that stops taking data past limit.
type limitedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		b.over = true
		return 0, errors.New("output limit reached")
	}
	return b.Buffer.Write(p)
}
