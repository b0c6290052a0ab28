package plugins

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// maxMessageBytes bounds one gRPC message either way: an extractor
// receives whole files.
const maxMessageBytes = 512 << 20

// parentPollInterval is how often a plugin process checks that the host
// that started it is still its parent.
const parentPollInterval = 500 * time.Millisecond

// Serve serves impl, a backend of the given kind (KindEmbedder,
// KindExtractor or KindReranker), as a ragd plugin: it is the main
// function of a plugin process, built in (`ragd plugin NAME`) or out of
// tree. It returns when the host shuts the plugin down, and exits the
// process when impl does not implement the kind's interface, when the
// process was not started by a ragd host, or when the host process dies.
//
// Log with Logger (or hclog JSON on stderr): anything written to
// os.Stdout or os.Stderr after Serve has started travels to the host
// through go-plugin's stdio stream instead.
func Serve(kind string, impl any) {
	p, err := grpcPlugin(kind, impl)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ragd plugin: %v\n", err)
		os.Exit(1)
	}
	// The logger must hold the real stderr before plugin.Serve replaces
	// os.Stderr with its stdio pipe.
	level := hclog.LevelFromString(os.Getenv(EnvLogLevel))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       kind,
		Level:      level,
		Output:     stderr,
		JSONFormat: true,
	})

	if ppid := os.Getppid(); ppid > 1 {
		go watchParent(ppid, parentPollInterval, os.Getppid, func() {
			logger.Warn("host process is gone; exiting", "parent_pid", ppid)
			os.Exit(0)
		})
	}

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{kind: p},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(maxMessageBytes), grpc.MaxSendMsgSize(maxMessageBytes))
			return grpc.NewServer(opts...)
		},
		Logger: logger,
	})
}

// watchParent calls gone once the process's parent is no longer ppid: a
// host killed with SIGKILL leaves its plugins to init (or a subreaper),
// and they must not live on.
func watchParent(ppid int, every time.Duration, getppid func() int, gone func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		if getppid() != ppid {
			gone()
			return
		}
	}
}

// IsPluginProcess reports whether this process was started by a ragd
// host as a plugin (the handshake cookie is in its environment).
func IsPluginProcess() bool {
	return os.Getenv(Handshake.MagicCookieKey) == Handshake.MagicCookieValue
}

func levelName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
