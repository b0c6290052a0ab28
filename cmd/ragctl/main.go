// Command ragctl is the command-line client of ragd: it searches, shows
// status, asks for reindexing and measures retrieval quality, all through
// the daemon's Unix socket.
//
// Exit codes: 0 success (for search: hits found), 1 no hits or the command
// failed, 2 usage error, 3 the daemon is unreachable.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
)

// Exit codes.
const (
	exitOK          = 0
	exitFail        = 1
	exitUsage       = 2
	exitUnreachable = 3
)

// env is what every subcommand gets: its streams and the socket to use.
type env struct {
	stdout, stderr io.Writer
	socket         string
	// isTTY says stdout is a terminal: live views then redraw in place
	// with ANSI escape sequences instead of printing plain lines.
	isTTY bool
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) int
}

var commands = []command{
	{"search", "search the vaults: ragctl search [-k N] [-vault V] [-path P] [-mode hybrid|lexical|vector] [-explain] [-json] QUERY", runSearch},
	{"status", "show daemon and per-vault status: ragctl status [-watch | -json]", runStatus},
	{"reindex", "reconcile vaults with disk: ragctl reindex [-vault V] [-wait] [-json] [PATH]", runReindex},
	{"runs", "list recent ingestion runs: ragctl runs [-n N] [-json]", runRuns},
	{"events", "follow indexing events until interrupted: ragctl events [-json]", runEvents},
	{"context", "build a cited context block for a prompt: ragctl context [-k N] [-budget CHARS] [-summary] [-json] QUERY", runContext},
	{"similar", "notes related to a note: ragctl similar [-k N] [-vault V] [-json] PATH", runSimilar},
	{"plugins", "list plugins with state, restarts, calls and latency: ragctl plugins [-json]", runPlugins},
	{"graph", "query the entity graph: ragctl graph (backlinks NOTE | links NOTE | neighbors ENTITY | entities | unresolved) [-vault V] [-json]", runGraph},
	{"eval", "measure retrieval quality: ragctl eval (-beir DIR | -vault DIR -qrels FILE) [-json]", runEval},
	{"bench", "measure the daemon on a copy of a vault: ragctl bench -vault DIR [-trials N] [-idle 60s] [-json]", runBench},
	{"mcp", "serve MCP tools (search, documents, status, graph) on stdin/stdout: ragctl mcp", runMCP},
	{"doctor", "check the setup and say how to fix what is wrong: ragctl doctor [-json] [-config FILE]", runDoctor},
	{"completion", "print a shell completion script: ragctl completion bash|zsh|fish", runCompletion},
	{"version", "print ragctl's version", runVersion},
}

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stdout))
	cancel()
	os.Exit(code)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// run parses the global flags and runs the subcommand named in args; isTTY
// says whether stdout is a terminal.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, isTTY bool) int {
	global := flag.NewFlagSet("ragctl", flag.ContinueOnError)
	global.SetOutput(stderr)
	socket := global.String("socket", "", "ragd socket (default $RAGD_SOCKET, then the configured or default socket)")
	global.Usage = func() { usage(stderr) }
	if err := global.Parse(args); err != nil {
		return exitUsage
	}
	args = global.Args()
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	e := &env{stdout: stdout, stderr: stderr, socket: *socket, isTTY: isTTY}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	if args[0] == "help" || args[0] == "-h" {
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "ragctl: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ragctl [-socket PATH] COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 no hits or failure, 2 usage, 3 ragd unreachable")
}

// flags returns a FlagSet for a subcommand that also accepts -socket.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("ragctl "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&e.socket, "socket", e.socket, "ragd socket")
	return fs
}

// socketPath resolves the socket: the flag, $RAGD_SOCKET, the socket named
// in the configuration file if there is one, then the default.
func (e *env) socketPath() string {
	if e.socket != "" {
		return e.socket
	}
	if s := os.Getenv("RAGD_SOCKET"); s != "" {
		return s
	}
	path, _ := config.Locate("")
	if _, err := os.Stat(path); err == nil {
		cfg, err := config.Load(path)
		if err == nil {
			return cfg.Daemon.Socket
		}
		fmt.Fprintf(e.stderr, "ragctl: warning: cannot use the socket named in %s (%v); trying the default socket\n",
			path, firstLine(err.Error()))
	}
	return config.DefaultSocketPath()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func (e *env) client() *ipc.Client { return ipc.NewClient(e.socketPath()) }

// fail prints err and returns the matching exit code.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.stderr, "ragctl: %v\n", err)
	var nr *ipc.NotRunningError
	if errors.As(err, &nr) {
		return exitUnreachable
	}
	return exitFail
}

func runVersion(_ context.Context, e *env, _ []string) int {
	fmt.Fprintf(e.stdout, "ragctl (protocol %d)\n", ipc.ProtocolVersion)
	return exitOK
}
