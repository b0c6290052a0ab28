package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
)

// Check statuses, as in doctor -json.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
	checkSkip = "skip" // could not be checked (daemon unreachable, not Linux, …)
	checkInfo = "info" // neither good nor bad: a choice of the configuration (semantic search off)
)

// Thresholds of the doctor's checks.
const (
	doctorTimeout     = 5 * time.Second // how long the daemon may take to answer
	minWatches        = 65536           // fs.inotify.max_user_watches ragd wants at least
	watchesPerVault   = 8192            // … and at least this many per vault
	suggestedWatches  = 524288          // what the fix sets it to
	diskWarnBytes     = 1 << 30         // warn under 1 GiB free
	diskFailBytes     = 100 << 20       // fail under 100 MiB free
	failedFilesListed = 3               // skipped files named in a warning
)

// check is the outcome of one doctor check.
type check struct {
	Name   string `json:"name"`            // config, daemon, protocol, vaults, vault, failed_files, graph, inotify, disk
	Vault  string `json:"vault,omitempty"` // for vault and failed_files
	Status string `json:"status"`          // one of the check* constants
	Detail string `json:"detail"`
	// Notes are more lines of detail: configuration errors, skipped files.
	Notes []string `json:"notes,omitempty"`
	// Fix says what to do about a failure or warning.
	Fix string `json:"fix,omitempty"`
}

// label is how the check is named in human output.
func (c check) label() string {
	if c.Vault != "" {
		return "vault " + c.Vault
	}
	return strings.ReplaceAll(c.Name, "_", " ")
}

// doctorReport is the output of doctor -json.
type doctorReport struct {
	OK     bool    `json:"ok"` // no check failed
	Checks []check `json:"checks"`
}

// doctorHost is what doctor reads from the machine rather than from the
// daemon, replaceable in tests.
type doctorHost struct {
	goos     string // runtime.GOOS: the inotify check runs only on Linux
	procRoot string // "/proc"
	// freeSpace returns the bytes available to an unprivileged user on the
	// filesystem holding path.
	freeSpace func(path string) (uint64, error)
}

var realHost = doctorHost{goos: runtime.GOOS, procRoot: "/proc", freeSpace: statfsFree}

// doctorCmd is ragctl doctor: it checks the configuration, the daemon and
// the machine, prints one line per check and says how to fix what is
// wrong. It exits 1 if any check failed; warnings alone exit 0.
type doctorCmd struct {
	json   bool
	config string
	host   doctorHost
}

func (c *doctorCmd) flags(fs *FlagSet) {
	fs.jsonFlag(&c.json)
	fs.path(&c.config, "config", false, "ragd's configuration `file` (default $RAGD_CONFIG, then "+config.DefaultPath()+")")
}

func (c *doctorCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("doctor", "no arguments expected")
	}
	rep := diagnose(ctx, e, c.config, c.host)
	if c.json {
		writeJSON(e.stdout, rep)
	} else {
		printDoctor(e.stdout, rep, e.colors())
	}
	if !rep.OK {
		return exitFail
	}
	return exitOK
}

// diagnose runs every check.
func diagnose(ctx context.Context, e *env, cfgFlag string, host doctorHost) *doctorReport {
	var checks []check
	cfgCheck, cfg := checkConfig(cfgFlag)
	checks = append(checks, cfgCheck)

	// The socket: -socket, $RAGD_SOCKET, the configuration's, the default.
	socket := e.socket
	if socket == "" {
		socket = os.Getenv("RAGD_SOCKET")
	}
	if socket == "" && cfg != nil {
		socket = cfg.Daemon.Socket
	}
	if socket == "" {
		socket = config.DefaultSocketPath()
	}
	st, daemonChecks := checkDaemon(ctx, socket)
	unchecked := "not checked (ragd is not reachable)"
	if daemonChecks[0].Status == checkOK {
		unchecked = "not checked (ragd refuses this ragctl)"
	}
	checks = append(checks, daemonChecks...)

	vaults, dataDir := 0, config.DefaultDataDir()
	if cfg != nil {
		vaults, dataDir = len(cfg.Vaults), cfg.Daemon.DataDir
	}
	if st != nil && st.DiskFull != "" {
		checks = append(checks, check{Name: "indexing", Status: checkFail, Detail: "paused: " + st.DiskFull,
			Fix: "free some space on that file system, or move the index elsewhere (daemon.data_dir in ragd.toml) " +
				"and restart ragd; indexing resumes by itself when room returns"})
	}
	if st != nil {
		checks = append(checks, checkVaults(st)...)
		checks = append(checks, checkGraph(st))
		checks = append(checks, checkPlugins(st)...)
		vaults = len(st.Vaults)
		if st.DataDir != "" {
			dataDir = st.DataDir
		}
	} else {
		checks = append(checks,
			check{Name: "vaults", Status: checkSkip, Detail: unchecked},
			check{Name: "graph", Status: checkSkip, Detail: unchecked},
			check{Name: "plugins", Status: checkSkip, Detail: unchecked})
	}
	checks = append(checks, checkInotify(host, vaults), checkDisk(host, dataDir))

	rep := &doctorReport{OK: true, Checks: checks}
	for _, c := range checks {
		if c.Status == checkFail {
			rep.OK = false
		}
	}
	return rep
}

// checkConfig finds the configuration file the way ragd does (-config,
// $RAGD_CONFIG, the default path) and loads it; cfg is nil unless it is
// valid.
func checkConfig(flagPath string) (c check, cfg *config.Config) {
	c = check{Name: "config"}
	path, from := config.Locate(flagPath)
	if from == config.FromDefault {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			c.Status = checkFail
			c.Detail = "no configuration at " + path
			c.Fix = "create it (the repository's ragd.toml is an example; docs/config.md lists every key), " +
				"or, if ragd runs with -config FILE, run `ragctl doctor -config FILE`"
			return c, nil
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		c.Status = checkFail
		if errors.Is(err, fs.ErrNotExist) {
			c.Detail = fmt.Sprintf("%s (from %s) does not exist", path, from)
			c.Fix = "create it, or point " + from.String() + " at ragd's configuration file"
			return c, nil
		}
		errs := config.AsErrors(err)
		if len(errs) == 0 {
			c.Notes = strings.Split(err.Error(), "\n")
		}
		for _, e := range errs {
			c.Notes = append(c.Notes, e.Error())
		}
		// ragd also checks what ragctl cannot (the built-in backends, their
		// options and models): its list, when it gives one, has them all.
		if notes := ragdCheckConfig(path); len(notes) > len(c.Notes) {
			c.Notes = notes
		}
		c.Detail = fmt.Sprintf("%s is not valid (%s)", path, plural(len(c.Notes), "problem"))
		c.Fix = fmt.Sprintf("correct it and check it with `ragd check-config -config %s`; ragd reads it only at start, so restart ragd afterwards", path)
		return c, nil
	}
	c.Status = checkOK
	c.Detail = fmt.Sprintf("%s (%s)", cfg.File, plural(len(cfg.Vaults), "vault"))
	if notes := ragdCheckConfig(cfg.File); len(notes) > 0 {
		// ragctl does not link ragd's built-in backends; ragd itself
		// checks them: a misspelt builtin, options, a missing model.
		c.Status = checkFail
		c.Notes = notes
		c.Detail = fmt.Sprintf("%s is not valid for ragd (%s)", cfg.File, plural(len(notes), "problem"))
		c.Fix = "correct it (`make install` installs the offline model with ragd) and check it with " +
			"`ragd check-config -config " + cfg.File + "`; then restart ragd"
	}
	return c, cfg
}

// ragdCheckConfig runs `ragd check-config` on file, with the ragd found
// next to ragctl or on $PATH, and returns the problems it reports; nil when
// the file is valid or no ragd is found.
func ragdCheckConfig(file string) []string {
	bin, err := findRagd("")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out strings.Builder
	cmd := exec.CommandContext(ctx, bin, "check-config", "-config", file)
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		return nil // valid, or ragd could not say
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// checkDaemon asks the daemon on socket for its status and checks that it
// answers and speaks this ragctl's protocol; st is nil if it did not
// answer usably.
func checkDaemon(ctx context.Context, socket string) (st *ipc.StatusResponse, checks []check) {
	daemon := check{Name: "daemon"}
	proto := check{Name: "protocol"}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	c := ipc.NewClient(socket)
	defer c.Close()
	st, err := c.Status(ctx)
	var nr *ipc.NotRunningError
	var ie *ipc.Error
	switch {
	case err == nil:
	case errors.As(err, &nr):
		daemon.Status, daemon.Detail = checkFail, "not running (no answer on "+socket+")"
		daemon.Fix = "start it with `ragd` or `systemctl --user start ragd`"
		proto.Status, proto.Detail = checkSkip, "not checked (ragd is not reachable)"
		return nil, []check{daemon, proto}
	case errors.Is(err, ipc.ErrUnsafeSocket):
		daemon.Status, daemon.Detail = checkFail, err.Error()
		daemon.Fix = "the socket or its directory could be another user's: remove it (as its owner or root), " +
			"then restart ragd, which makes its own private directory"
		proto.Status, proto.Detail = checkSkip, "not checked (the socket is not safe to use)"
		return nil, []check{daemon, proto}
	case errors.As(err, &ie) && ie.Status == http.StatusUpgradeRequired:
		// The daemon refuses a client newer than itself.
		daemon.Status, daemon.Detail = checkOK, "answers on "+socket+" but refuses this ragctl"
		proto.Status, proto.Detail = checkFail, ie.Message
		proto.Fix = fmt.Sprintf("ragctl speaks protocol %d: upgrade ragd to the release of this ragctl and restart it (`systemctl --user restart ragd`)", ipc.ProtocolVersion)
		return nil, []check{daemon, proto}
	default:
		daemon.Status, daemon.Detail = checkFail, fmt.Sprintf("no usable answer on %s: %v", socket, err)
		daemon.Fix = "look at ragd's log (`journalctl --user -u ragd`) and restart it (`systemctl --user restart ragd`)"
		proto.Status, proto.Detail = checkSkip, "not checked (ragd did not answer)"
		return nil, []check{daemon, proto}
	}
	daemon.Status = checkOK
	daemon.Detail = fmt.Sprintf("ragd %s (pid %d) answers on %s: %s", st.Version, st.PID, socket, st.State)
	switch {
	case st.Protocol == ipc.ProtocolVersion:
		proto.Status, proto.Detail = checkOK, fmt.Sprintf("ragd and ragctl speak protocol %d", st.Protocol)
	case st.Protocol > ipc.ProtocolVersion:
		proto.Status = checkFail
		proto.Detail = fmt.Sprintf("ragd speaks protocol %d, this ragctl %d", st.Protocol, ipc.ProtocolVersion)
		proto.Fix = "upgrade ragctl: install ragd and ragctl from the same release"
	default:
		proto.Status = checkFail
		proto.Detail = fmt.Sprintf("ragd speaks protocol %d, this ragctl %d", st.Protocol, ipc.ProtocolVersion)
		proto.Fix = "upgrade ragd to the release of this ragctl and restart it (`systemctl --user restart ragd`)"
	}
	return st, []check{daemon, proto}
}

// checkVaults reports, for each vault, whether it is online and watched,
// and warns about files that could not be indexed.
func checkVaults(st *ipc.StatusResponse) []check {
	if len(st.Vaults) == 0 {
		return []check{{Name: "vaults", Status: checkWarn, Detail: "no vaults configured",
			Fix: "add a [[vault]] table to ragd.toml (see docs/config.md) and restart ragd"}}
	}
	var checks []check
	for _, v := range st.Vaults {
		c := check{Name: "vault", Vault: v.Name, Status: checkOK}
		switch {
		case !v.Online || v.Watching == "offline":
			c.Status = checkFail
			c.Detail = "offline: " + v.Path
			if v.LastError != "" {
				c.Detail = "offline: " + v.LastError
			}
			c.Fix = fmt.Sprintf("ragd waits for %s to come back (mount the drive or restore the folder); "+
				"if its notes are gone for good, `ragctl reindex -confirm-deletions -vault %s` removes them, "+
				"or remove its [[vault]] table from ragd.toml and restart ragd", v.Path, v.Name)
		case v.HeldDeletions != nil:
			c.Status = checkFail
			c.Detail = fmt.Sprintf("%d of %d documents are no longer on disk; their removal is held",
				v.HeldDeletions.Missing, v.HeldDeletions.Documents)
			c.Fix = fmt.Sprintf("restore the files (a sync client or an unmounted folder?), or confirm with "+
				"`ragctl reindex -confirm-deletions -vault %s -wait`", v.Name)
		case v.Watching == "polling":
			c.Status = checkWarn
			c.Detail = "online, but rescanned every 30s instead of watched: the watch limit was reached"
			c.Fix = "raise the watch limit (on Linux, see the inotify check) and restart ragd (`systemctl --user restart ragd`)"
		case v.Watching == "off":
			c.Detail = fmt.Sprintf("online, not watched (watch = false; periodic rescans only), %s", plural(v.Documents, "document"))
		case v.Watching == "watching":
			c.Detail = fmt.Sprintf("online, watching, %s", plural(v.Documents, "document"))
		case v.Watching == "":
			c.Detail = fmt.Sprintf("online, %s", plural(v.Documents, "document"))
		default:
			c.Detail = fmt.Sprintf("online, %s, %s", v.Watching, plural(v.Documents, "document"))
		}
		if c.Status == checkOK && len(v.Unreadable) > 0 {
			c.Status = checkWarn
			c.Detail += fmt.Sprintf("; unreadable and skipped: %s (first: %s/, %s)",
				plural(len(v.Unreadable), "folder"), v.Unreadable[0].Path, v.Unreadable[0].Reason)
			c.Fix = "give ragd's user read and search permission on them (chmod u+rx), or exclude them in the vault's exclude"
		}
		if c.Status == checkOK && v.LastError != "" {
			c.Status = checkWarn
			c.Detail += "; last error: " + v.LastError
			c.Fix = fmt.Sprintf("`ragctl reindex -vault %s -wait` retries; ragd's log has the details", v.Name)
		}
		checks = append(checks, c)
		if v.Failed == 0 {
			continue
		}
		f := check{Name: "failed_files", Vault: v.Name, Status: checkWarn,
			Detail: plural(v.Failed, "file") + " could not be indexed"}
		for i, ff := range v.FailedFiles {
			if i == failedFilesListed {
				break
			}
			f.Notes = append(f.Notes, ff.Path+": "+ff.Error)
		}
		if more := v.Failed - len(f.Notes); more > 0 {
			f.Notes = append(f.Notes, fmt.Sprintf("… and %d more", more))
		}
		f.Fix = fmt.Sprintf("`ragctl status -json` lists them all; fix them or add them to the vault's exclude in ragd.toml, "+
			"then `ragctl reindex -vault %s`", v.Name)
		checks = append(checks, f)
	}
	return checks
}

// checkGraph reports the daemon's consistency check of the entity graph.
func checkGraph(st *ipc.StatusResponse) check {
	c := check{Name: "graph"}
	g := st.Graph
	switch {
	case g == nil:
		c.Status, c.Detail = checkSkip, "not reported by this ragd"
	case g.Consistent:
		c.Status = checkOK
		c.Detail = fmt.Sprintf("consistent (%d notes, %d tags, %d links, %d unresolved)", g.Notes, g.Tags, g.Relations, g.Unresolved)
	default:
		c.Status = checkFail
		c.Detail = "inconsistent: " + g.Problem
		dir := st.DataDir
		if dir == "" {
			dir = "ragd's data dir"
		}
		c.Fix = fmt.Sprintf("rebuild the index: stop ragd, delete %s (the vaults are untouched) and start ragd again", dir)
	}
	return c
}

// Symbols of the check statuses in human output.
var checkSymbols = map[string]string{checkOK: "✓", checkWarn: "!", checkFail: "✗", checkSkip: "-", checkInfo: "i"}

// symbol is the check's status symbol, coloured on a terminal.
func (c check) symbol(p palette) string {
	s := checkSymbols[c.Status]
	switch c.Status {
	case checkOK:
		return p.ok(s)
	case checkWarn:
		return p.caution(s)
	case checkFail:
		return p.warn(s)
	}
	return p.dim(s)
}

// printDoctor writes one line per check, then its notes and fix indented,
// and a closing summary.
func printDoctor(w io.Writer, rep *doctorReport, p palette) {
	fails, warns := 0, 0
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "%s %s: %s\n", c.symbol(p), p.bold(c.label()), c.Detail)
		for _, n := range c.Notes {
			fmt.Fprintf(w, "    %s\n", n)
		}
		if c.Fix != "" {
			fmt.Fprintf(w, "    %s\n", p.fix("→ "+c.Fix))
		}
		switch c.Status {
		case checkFail:
			fails++
		case checkWarn:
			warns++
		}
	}
	switch {
	case fails == 0 && warns == 0:
		fmt.Fprintln(w, "\n"+p.ok("all checks passed"))
	case fails == 0:
		fmt.Fprintf(w, "\n%s\n", p.caution("no failures, "+plural(warns, "warning")))
	default:
		fmt.Fprintf(w, "\n%s\n", p.warn(plural(fails, "failure")+", "+plural(warns, "warning")))
	}
}
