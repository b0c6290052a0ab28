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
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/internal/version"
	"github.com/ragd/ragd/ipc"
)

// Exit codes.
const (
	exitOK          = 0
	exitFail        = 1
	exitUsage       = 2
	exitUnreachable = 3
)

// terminal describes stdout: whether it is a terminal, and its width in
// columns (0 when unknown or not a terminal).
type terminal struct {
	tty   bool
	width int
}

// env is what every subcommand gets: its streams and the socket to use.
type env struct {
	stdout, stderr io.Writer
	socket         string
	// isTTY says stdout is a terminal: live views then redraw in place
	// with ANSI escape sequences instead of printing plain lines.
	isTTY bool
	// width is the terminal's width in columns; 0 when stdout is not a
	// terminal (output is then not fitted to a width).
	width int
}

var commands = []command{
	{name: "search", args: "QUERY", summary: "search the vaults", new: func() subcommand { return &searchCmd{} }},
	{name: "get", args: "PATH[:L10-L40]", summary: "print a file's indexed text (for PDF, DOCX and HTML the extracted text), with the line numbers citations use", new: func() subcommand { return &getCmd{} }},
	{name: "status", summary: "show daemon and per-vault status", new: func() subcommand { return &statusCmd{} }},
	{name: "reindex", args: "[PATH]", summary: "reconcile vaults with disk", new: func() subcommand { return &reindexCmd{} }},
	{name: "runs", summary: "list recent ingestion runs", new: func() subcommand { return &runsCmd{} }},
	{name: "events", summary: "follow indexing events until interrupted", new: func() subcommand { return &eventsCmd{} }},
	{name: "context", args: "QUERY", summary: "build a cited context block for a prompt", new: func() subcommand { return &contextCmd{} }},
	{name: "similar", args: "NOTE", summary: "notes related to a note (a path, file name, title or alias)", new: func() subcommand { return &similarCmd{} }},
	{name: "plugins", summary: "list plugins with state, restarts, calls and latency", new: func() subcommand { return &pluginsCmd{} }},
	{name: "graph", args: "backlinks NOTE | links NOTE | neighbors ENTITY | entities | unresolved", summary: "query the entity graph", new: func() subcommand { return &graphCmd{} }},
	{name: "eval", summary: "measure retrieval quality: -beir DIR, or -vault DIR with -qrels FILE or -pseudo", new: func() subcommand { return &evalCmd{} }},
	{name: "bench", summary: "measure the daemon on a copy of a vault", new: func() subcommand { return &benchCmd{} }},
	{name: "mcp", summary: "serve MCP tools (search, documents, status, graph) on stdin/stdout", new: func() subcommand { return &mcpCmd{} }},
	{name: "doctor", summary: "check the setup and say how to fix what is wrong", new: func() subcommand { return &doctorCmd{host: realHost} }},
	{name: "completion", args: "bash|zsh|fish", summary: "print a shell completion script", new: func() subcommand { return &completionCmd{} }},
	{name: "version", summary: "print the versions of ragctl and of the running ragd", new: func() subcommand { return &versionCmd{} }},
	{name: completeCommand, summary: "complete a command line (used by the completion scripts)", new: func() subcommand { return &completeCmd{} }, hidden: true, raw: true},
}

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, terminalOf(os.Stdout))
	cancel()
	os.Exit(code)
}

// terminalOf reports whether f is a terminal (/dev/null is not) and its
// width.
func terminalOf(f *os.File) terminal {
	fd := int(f.Fd())
	if !term.IsTerminal(fd) {
		return terminal{}
	}
	w, _, err := term.GetSize(fd)
	if err != nil {
		w = 0
	}
	return terminal{tty: true, width: w}
}

// run parses the global flags and runs the subcommand named in args.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, t terminal) int {
	e := &env{stdout: stdout, stderr: stderr, isTTY: t.tty, width: t.width}
	global := flag.NewFlagSet("ragctl", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	global.Var(&pathFlag{p: &e.socket}, "socket", "ragd socket `PATH` (default $RAGD_SOCKET, then the configured or default socket)")
	showVersion := global.Bool("version", false, "print ragctl's version")
	err := global.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout, global)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "ragctl: %v\n", err)
		usage(stderr, global)
		return exitUsage
	case *showVersion:
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	args = global.Args()
	if len(args) == 0 {
		usage(stderr, global)
		return exitUsage
	}
	if args[0] == "help" {
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				c.help(e, stdout)
				return exitOK
			}
			fmt.Fprintf(stderr, "ragctl help: unknown command %q\n", args[1])
			return exitUsage
		}
		usage(stdout, global)
		return exitOK
	}
	if c, ok := lookup(args[0]); ok {
		return runCommand(ctx, e, c, args[1:])
	}
	fmt.Fprintf(stderr, "ragctl: unknown command %q\n", args[0])
	usage(stderr, global)
	return exitUsage
}

func usage(w io.Writer, global *flag.FlagSet) {
	fmt.Fprintln(w, "usage: ragctl [-socket PATH] COMMAND [flags] [args]   (ragctl help COMMAND, or COMMAND -h, for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		if !c.hidden {
			fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintln(w, "\nglobal flags:")
	global.SetOutput(w)
	global.PrintDefaults()
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 no hits or failure, 2 usage, 3 ragd unreachable")
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

// client is a client of the daemon that says, once, when the daemon
// speaks a newer protocol than this ragctl (which keeps working).
func (e *env) client() *ipc.Client {
	c := ipc.NewClient(e.socketPath())
	c.OnNewerServer = func(server int) {
		fmt.Fprintf(e.stderr, "ragctl: ragd speaks protocol %d, this ragctl %d: upgrade ragctl to ragd's release for what is new\n",
			server, ipc.ProtocolVersion)
	}
	return c
}

// fail prints err and returns the matching exit code: 3 when the daemon
// is unreachable, 2 when it refused the request as invalid (a usage
// error), else 1.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.stderr, "ragctl: %v\n", err)
	var nr *ipc.NotRunningError
	if errors.As(err, &nr) || errors.Is(err, ipc.ErrUnsafeSocket) {
		return exitUnreachable
	}
	var ie *ipc.Error
	if errors.As(err, &ie) && ie.Status == http.StatusBadRequest {
		return exitUsage
	}
	return exitFail
}

// versionLine is ragctl's version and protocol.
func versionLine() string {
	return fmt.Sprintf("ragctl %s (protocol %d)", version.String(), ipc.ProtocolVersion)
}

// versionCmd prints ragctl's version and, when it answers, the daemon's.
type versionCmd struct{}

func (c *versionCmd) flags(*FlagSet) {}

func (c *versionCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("version", "no arguments expected")
	}
	fmt.Fprintln(e.stdout, versionLine())
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cl := e.client()
	defer cl.Close()
	if st, err := cl.Status(ctx); err == nil {
		fmt.Fprintf(e.stdout, "ragd %s (protocol %d) on %s\n", st.Version, st.Protocol, cl.Socket)
	} else {
		fmt.Fprintf(e.stdout, "ragd: not reachable on %s\n", cl.Socket)
	}
	return exitOK
}
