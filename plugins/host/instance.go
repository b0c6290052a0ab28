package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/ragd/ragd/plugins"
)

// instance is one running plugin process.
type instance struct {
	client  *plugin.Client
	conn    *grpc.ClientConn
	raw     any // *plugins.EmbedderClient, *plugins.ExtractorClient or *plugins.RerankerClient
	cmd     *exec.Cmd
	pid     int
	started time.Time
	out     *output
	kill    context.CancelFunc // SIGKILLs the process (exec.CommandContext)

	inProcess bool // served in the daemon's process (inprocess.go): no client, cmd or out

	once       sync.Once
	broken     chan struct{}
	reason     string
	deliberate bool // the host killed a live process (timeout), as opposed to one that died
	stopped    sync.Once
}

// startInstance starts the plugin process, performs the handshake and
// calls Configure then Info. On error everything it started is gone.
func startInstance(ctx context.Context, kill context.CancelFunc, spec Spec, cfg *Config, log *slog.Logger) (*instance, any, map[string]string, error) {
	if spec.InProcess != nil {
		return startInProcess(ctx, kill, spec, cfg)
	}
	cmd := exec.CommandContext(ctx, spec.Command, spec.Args...)
	cmd.Env = pluginEnv(spec, log)
	if !cfg.noPdeathsig {
		setPdeathsig(cmd)
	}
	setProcessGroup(cmd)
	set, err := plugins.PluginSet(spec.Kind)
	if err != nil {
		return nil, nil, nil, err
	}
	out := newOutput(log)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  plugins.Handshake,
		Plugins:          set,
		Cmd:              cmd,
		SkipHostEnv:      true, // pluginEnv has the host's environment, with Spec.Env winning
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         !spec.DisableAutoMTLS,
		StartTimeout:     cfg.StartTimeout,
		Logger:           newHCLogger(log, filepath.Base(cmd.Path)),
		Stderr:           out.writer("stderr"),
		SyncStdout:       out.writer("stdout"),
		SyncStderr:       out.writer("stderr"),
	})
	inst := &instance{client: client, cmd: cmd, out: out, kill: kill, broken: make(chan struct{}), started: time.Now()}

	rpc, err := client.Client()
	if err != nil {
		return nil, nil, nil, inst.startFailed(err)
	}
	inst.pid = cmd.Process.Pid
	if g, ok := rpc.(*plugin.GRPCClient); ok {
		inst.conn = g.Conn
	}
	inst.raw, err = rpc.Dispense(spec.Kind)
	if err != nil {
		return nil, nil, nil, inst.startFailed(err)
	}

	cctx, cancel := context.WithTimeout(ctx, min(cfg.StartTimeout, spec.Timeout))
	defer cancel()
	if c, ok := inst.raw.(plugins.Configurable); ok {
		if err := c.Configure(cctx, spec.Options); err != nil {
			return nil, nil, nil, inst.startFailed(err)
		}
	}
	info, infoMap, err := fetchInfo(cctx, inst.raw)
	if err != nil {
		return nil, nil, nil, inst.startFailed(err)
	}
	return inst, info, infoMap, nil
}

// startFailed stops a half-started instance and phrases why it failed.
func (inst *instance) startFailed(err error) error {
	// A process that died is seen dead only once its output is drained and
	// it is waited for: give it a moment, to tell a crash from a refusal.
	for i := 0; i < 20 && !inst.client.Exited(); i++ {
		time.Sleep(25 * time.Millisecond)
	}
	exited := inst.client.Exited()
	inst.stop(false)
	tail := inst.out.tail()
	if exited {
		msg := "plugin exited during start-up"
		if st := inst.exitStatus(); st != "" {
			msg += " (" + st + ")"
		}
		if tail != "" {
			return errors.New(msg + ": " + tail)
		}
		return fmt.Errorf("%s with nothing on stderr: %w", msg, err)
	}
	msg := "plugin start-up failed: " + err.Error()
	if tail != "" {
		msg += "; stderr: " + tail
	}
	return errors.New(msg)
}

// stop ends the process: gracefully (go-plugin's Shutdown, SIGKILL after
// two seconds) or at once. It waits until the process is gone and its
// output read.
func (inst *instance) stop(graceful bool) {
	inst.stopped.Do(func() {
		if inst.inProcess { // nothing to end: the supervisor drops it
			inst.kill()
			return
		}
		if !graceful {
			inst.kill()
		}
		inst.client.Kill()
		inst.kill()
		killGroup(inst.cmd) // what the plugin started outlives it otherwise
	})
}

// exitStatus is "exit status 1", "signal: killed", ... once the process
// has been waited for (after stop), else "".
func (inst *instance) exitStatus() string {
	if inst.cmd == nil || inst.cmd.ProcessState == nil {
		return ""
	}
	return inst.cmd.ProcessState.String()
}

// markBroken records why inst must go and kills its process; deliberate
// says the process was alive and the host gave up on it (a timeout). It
// reports whether this was the first report.
func (inst *instance) markBroken(reason string, deliberate bool) bool {
	first := false
	inst.once.Do(func() {
		first = true
		inst.reason = reason
		inst.deliberate = deliberate
		inst.kill()
		close(inst.broken)
	})
	return first
}

// health asks go-plugin's gRPC health service whether the plugin serves.
func (inst *instance) health(ctx context.Context) error {
	if inst.conn == nil {
		return nil
	}
	r, err := grpc_health_v1.NewHealthClient(inst.conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: plugin.GRPCServiceName})
	if err != nil {
		return err
	}
	if r.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		return fmt.Errorf("health status %s", r.GetStatus())
	}
	return nil
}

// pluginEnv is the daemon's environment plus the spec's variables (which
// win) and the log level the host wants.
func pluginEnv(spec Spec, log *slog.Logger) []string {
	env := os.Environ()
	if _, set := spec.Env[plugins.EnvLogLevel]; !set {
		level := "info"
		if log.Enabled(context.Background(), slog.LevelDebug) {
			level = "debug"
		}
		env = append(env, plugins.EnvLogLevel+"="+level)
	}
	for _, k := range sortedKeys(spec.Env) {
		env = append(env, k+"="+spec.Env[k])
	}
	return env
}

// fetchInfo asks the plugin for its Info, checks it, and renders it for
// Status.
func fetchInfo(ctx context.Context, raw any) (any, map[string]string, error) {
	switch c := raw.(type) {
	case plugins.Embedder:
		i, err := c.EmbedderInfo(ctx)
		if err != nil {
			return nil, nil, err
		}
		if i.Dimensions <= 0 {
			return nil, nil, fmt.Errorf("info: embedder reports %d dimensions", i.Dimensions)
		}
		m := map[string]string{
			"name":       i.Name,
			"version":    i.Version,
			"model":      i.Model,
			"dimensions": strconv.Itoa(i.Dimensions),
			"normalized": strconv.FormatBool(i.Normalized),
		}
		if i.MaxInputTokens > 0 {
			m["max_input_tokens"] = strconv.Itoa(i.MaxInputTokens)
		}
		if i.MaxBatch > 0 {
			m["max_batch"] = strconv.Itoa(i.MaxBatch)
		}
		if i.QueryPrefix != "" {
			m["query_prefix"] = i.QueryPrefix
		}
		if i.DocumentPrefix != "" {
			m["document_prefix"] = i.DocumentPrefix
		}
		return i, m, nil
	case plugins.Extractor:
		i, err := c.ExtractorInfo(ctx)
		if err != nil {
			return nil, nil, err
		}
		for k, e := range i.Extensions {
			e = strings.ToLower(strings.TrimSpace(e))
			if e != "" && !strings.HasPrefix(e, ".") {
				e = "." + e
			}
			i.Extensions[k] = e
		}
		if len(i.Extensions) == 0 && len(i.MediaTypes) == 0 {
			return nil, nil, errors.New("info: extractor handles no extensions and no media types")
		}
		return i, map[string]string{
			"name":        i.Name,
			"version":     i.Version,
			"extensions":  strings.Join(i.Extensions, ","),
			"media_types": strings.Join(i.MediaTypes, ","),
		}, nil
	case plugins.Reranker:
		i, err := c.RerankerInfo(ctx)
		if err != nil {
			return nil, nil, err
		}
		return i, map[string]string{"name": i.Name, "version": i.Version, "model": i.Model}, nil
	}
	return nil, nil, fmt.Errorf("dispensed %T implements no plugin interface", raw)
}
