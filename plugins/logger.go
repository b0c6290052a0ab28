package plugins

import (
	"log/slog"
	"os"
	"strings"
)

// stderr is the process's real standard error, captured before go-plugin's
// Serve replaces os.Stderr with its stdio pipe.
var stderr = os.Stderr

// Logger returns a logger for code running in a plugin process. It writes
// JSON lines in hclog's format ("@level", "@message", "@timestamp", then
// the attributes) to the real stderr, which the host parses and forwards
// to its own log tagged with the plugin's name.
func Logger() *slog.Logger {
	var lv slog.Level
	switch levelName(os.Getenv(EnvLogLevel)) {
	case "trace", "debug":
		lv = slog.LevelDebug
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	h := slog.NewJSONHandler(stderr, &slog.HandlerOptions{
		Level: lv,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.TimeKey:
				return slog.String("@timestamp", a.Value.Time().Format("2006-01-02T15:04:05.000000Z07:00"))
			case slog.LevelKey:
				return slog.String("@level", strings.ToLower(a.Value.String()))
			case slog.MessageKey:
				return slog.String("@message", a.Value.String())
			}
			return a
		},
	})
	return slog.New(h)
}
