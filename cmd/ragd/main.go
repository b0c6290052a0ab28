// Command ragd is the ragd daemon: it indexes the vaults named in
// ragd.toml and answers retrieval queries on a Unix socket.
//
//	ragd [run] [-config FILE]     start in the foreground (the default)
//	ragd check-config [-config FILE]
//	ragd version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/daemon/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		cmd, args = "version", nil
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	if cmd == "plugin" {
		return pluginMain(args, stderr)
	}
	fs := flag.NewFlagSet("ragd "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "configuration file (default $RAGD_CONFIG, then "+config.DefaultPath()+")")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ragd [run|check-config|version] [-config FILE]\n       ragd --version\n       ragd plugin NAME (started by the daemon)\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ragd %s: unexpected argument %q\n", cmd, fs.Arg(0))
		return 2
	}
	switch cmd {
	case "version":
		fmt.Fprintf(stdout, "ragd %s\n", daemon.Version)
		return 0
	case "check-config":
		cfg, err := loadConfig(*cfgPath)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: ok (%d vaults; socket %s; data dir %s)\n",
			cfg.File, len(cfg.Vaults), cfg.Daemon.Socket, cfg.Daemon.DataDir)
		return 0
	case "run":
		cfg, err := loadConfig(*cfgPath)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		log := newLogger(stderr, cfg.Daemon.LogLevel)
		if err := serve(cfg, log); err != nil {
			// Once, plainly: the log goes to the same stderr.
			fmt.Fprintf(stderr, "ragd: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "ragd: unknown command %q\n", cmd)
	fs.Usage()
	return 2
}

func loadConfig(path string) (*config.Config, error) {
	path, from := config.Locate(path)
	if from == config.FromDefault {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no configuration at %s: create it (the repository's ragd.toml is an example) or pass -config FILE", path)
		}
	}
	return config.LoadWith(path, builtins{})
}

// serve runs the daemon until SIGINT or SIGTERM; a second signal exits at
// once without waiting for the current batch.
func serve(cfg *config.Config, log *slog.Logger) error {
	spareProc()
	d, err := daemon.New(cfg, log)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		first := time.Now()
		log.Info("signal received; stopping (send it again to exit at once)", "signal", s.String())
		cancel()
		for range sigs {
			// A signal sent to the whole process group (timeout(1), a
			// supervisor) can arrive twice at once; only a later one is a
			// person asking to exit now.
			if time.Since(first) > 250*time.Millisecond {
				log.Warn("second signal: exiting now")
				os.Exit(1)
			}
		}
	}()
	return d.Run(ctx)
}

// spareProc gives the Go scheduler one P more than the CPUs it would use
// (unless GOMAXPROCS is set): the indexing workers are one per CPU, so
// while they run the extra P is often free, and a free P's thread waits
// in the network poller and runs a request the moment it arrives — a
// thread woken from sleep, which the kernel also schedules ahead of busy
// ones. With every P busy a request waits for a time slice of one of them
// (ipc.Listener.Polling). See docs/architecture.md, "Answering while
// indexing".
func spareProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
