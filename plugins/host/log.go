package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

// tailLines is how many recent output lines an instance keeps for error
// messages, and tailBytes the most of them an error message quotes.
const (
	tailLines   = 8
	tailBytes   = 1000
	maxLineSize = 64 << 10
)

// output receives a plugin process's stderr (and the stdout and stderr
// that go-plugin streams from a Go plugin after Serve), logs each line to
// the plugin's logger and keeps the last few plain lines and structured
// warnings and errors for error messages.
type output struct {
	log *slog.Logger

	mu   sync.Mutex
	last []string
}

func newOutput(log *slog.Logger) *output { return &output{log: log} }

// writer returns a line-splitting writer for one stream.
func (o *output) writer(stream string) io.Writer {
	return &lineWriter{o: o, stream: stream}
}

// tail is the last lines, oldest first, joined by " | ".
func (o *output) tail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := strings.Join(o.last, " | ")
	if len(s) > tailBytes {
		s = "…" + s[len(s)-tailBytes:]
	}
	return s
}

func (o *output) remember(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.last) == tailLines {
		copy(o.last, o.last[1:])
		o.last = o.last[:tailLines-1]
	}
	o.last = append(o.last, line)
}

type lineWriter struct {
	o       *output
	stream  string
	mu      sync.Mutex
	buf     []byte
	inPanic bool
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) > maxLineSize {
				w.line(string(w.buf))
				w.buf = w.buf[:0]
			}
			return len(b), nil
		}
		w.line(string(bytes.TrimRight(w.buf[:i], "\r")))
		w.buf = w.buf[i+1:]
	}
}

// line logs one line: hclog JSON keeps its level, message and fields;
// plain text is logged at info, or at the level its [LEVEL] prefix names,
// and a Go panic's trace at error.
func (w *lineWriter) line(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if level, msg, attrs, ok := parseHCLogJSON(line); ok {
		if level >= slog.LevelWarn { // routine messages would crowd out the cause
			w.o.remember(renderTail(level, msg, attrs))
		}
		w.o.log.LogAttrs(context.Background(), level, msg, attrs...)
		return
	}
	level := slog.LevelInfo
	switch {
	case strings.HasPrefix(line, "[TRACE]"), strings.HasPrefix(line, "[DEBUG]"):
		level = slog.LevelDebug
	case strings.HasPrefix(line, "[WARN]"):
		level = slog.LevelWarn
	case strings.HasPrefix(line, "[ERROR]"):
		level = slog.LevelError
	case strings.HasPrefix(line, "panic: "), strings.HasPrefix(line, "fatal error: "):
		w.inPanic = true
		level = slog.LevelError
	case w.inPanic:
		level = slog.LevelError
	}
	w.o.remember(line)
	w.o.log.LogAttrs(context.Background(), level, line, slog.String("stream", w.stream))
}

// parseHCLogJSON reads one hclog JSON line ({"@level", "@message",
// "@timestamp", fields...}).
func parseHCLogJSON(line string) (slog.Level, string, []slog.Attr, bool) {
	if !strings.HasPrefix(line, "{") {
		return 0, "", nil, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return 0, "", nil, false
	}
	msg, ok := m["@message"].(string)
	if !ok {
		return 0, "", nil, false
	}
	lv, _ := m["@level"].(string)
	var level slog.Level
	switch strings.ToLower(lv) {
	case "trace", "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error", "fatal":
		level = slog.LevelError
	default:
		level = slog.LevelInfo
	}
	var attrs []slog.Attr
	if mod, ok := m["@module"].(string); ok && mod != "" {
		attrs = append(attrs, slog.String("module", mod))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !strings.HasPrefix(k, "@") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		attrs = append(attrs, slog.Any(k, m[k]))
	}
	return level, msg, attrs, true
}

func renderTail(level slog.Level, msg string, attrs []slog.Attr) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(level.String()))
	b.WriteString(": ")
	b.WriteString(msg)
	for _, a := range attrs {
		if a.Key == "module" {
			continue
		}
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	return b.String()
}

// hclogAdapter gives go-plugin's own messages (process started, exited,
// ...) to the plugin's slog logger at debug level; the host logs the
// events that matter itself. The sub-logger go-plugin uses to relay the
// plugin's stderr is switched off, since output already logs every line.
type hclogAdapter struct {
	log     *slog.Logger
	name    string
	mute    string // Named(mute) returns a silent logger
	level   hclog.Level
	implied []any
}

func newHCLogger(log *slog.Logger, stderrName string) hclog.Logger {
	return &hclogAdapter{log: log, mute: stderrName, level: hclog.Debug}
}

func (a *hclogAdapter) Log(level hclog.Level, msg string, args ...any) {
	if a.level == hclog.Off || level < a.level {
		return
	}
	if !a.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	all := make([]any, 0, len(a.implied)+len(args)+2)
	all = append(all, "component", "go-plugin"+a.dotName())
	all = append(all, a.implied...)
	all = append(all, args...)
	a.log.Debug(msg, all...)
}

func (a *hclogAdapter) dotName() string {
	if a.name == "" {
		return ""
	}
	return "." + a.name
}

func (a *hclogAdapter) Trace(msg string, args ...any) { a.Log(hclog.Trace, msg, args...) }
func (a *hclogAdapter) Debug(msg string, args ...any) { a.Log(hclog.Debug, msg, args...) }
func (a *hclogAdapter) Info(msg string, args ...any)  { a.Log(hclog.Info, msg, args...) }
func (a *hclogAdapter) Warn(msg string, args ...any)  { a.Log(hclog.Warn, msg, args...) }
func (a *hclogAdapter) Error(msg string, args ...any) { a.Log(hclog.Error, msg, args...) }
func (a *hclogAdapter) IsTrace() bool                 { return a.level <= hclog.Trace }
func (a *hclogAdapter) IsDebug() bool                 { return a.level <= hclog.Debug }
func (a *hclogAdapter) IsInfo() bool                  { return a.level <= hclog.Info }
func (a *hclogAdapter) IsWarn() bool                  { return a.level <= hclog.Warn }
func (a *hclogAdapter) IsError() bool                 { return a.level <= hclog.Error }
func (a *hclogAdapter) ImpliedArgs() []any            { return a.implied }
func (a *hclogAdapter) Name() string                  { return a.name }
func (a *hclogAdapter) SetLevel(level hclog.Level)    { a.level = level }
func (a *hclogAdapter) GetLevel() hclog.Level         { return a.level }

func (a *hclogAdapter) With(args ...any) hclog.Logger {
	c := *a
	c.implied = append(append([]any(nil), a.implied...), args...)
	return &c
}

func (a *hclogAdapter) Named(name string) hclog.Logger {
	c := *a
	if name == a.mute && a.name == "" {
		c.level = hclog.Off
	}
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

func (a *hclogAdapter) ResetNamed(name string) hclog.Logger {
	c := *a
	c.name = name
	return &c
}

func (a *hclogAdapter) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(a.StandardWriter(opts), "", 0)
}

func (a *hclogAdapter) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return &lineWriter{o: newOutput(a.log), stream: "go-plugin"}
}

// quietHandler passes records on at debug level while quiet is set.
type quietHandler struct {
	slog.Handler
	quiet *atomic.Bool
}

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if h.quiet.Load() {
		l = min(l, slog.LevelDebug)
	}
	return h.Handler.Enabled(ctx, l)
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.quiet.Load() {
		r.Level = min(r.Level, slog.LevelDebug)
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{Handler: h.Handler.WithAttrs(attrs), quiet: h.quiet}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{Handler: h.Handler.WithGroup(name), quiet: h.quiet}
}
