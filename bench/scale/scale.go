package scale

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/ragdproc"
)

// scaleResult is one vault size's measurements; the JSON keys are stable.
type scaleResult struct {
	Name    string         `json:"name,omitempty"` // a vault given with -vault (Scale is 0 then)
	Scale   float64        `json:"scale,omitempty"`
	Notes   int            `json:"notes"`
	VaultMB float64        `json:"vault_mb"`
	Vault   string         `json:"vault"`
	Queries int            `json:"queries"`
	Load    []float64      `json:"load_1m"` // the 1-minute load average before each run
	Engines []engineResult `json:"engines"`
}

type engineResult struct {
	Engine  string   `json:"engine"`
	Median  sample   `json:"median"`
	Samples []sample `json:"samples"`
}

// config is what Main parsed.
type config struct {
	src                      sources
	scales                   []float64
	vaults                   []string
	engines                  []string
	runs, queries, saves     int
	ragdBin, peerBin, work   string
	settle, timeout, pollMax time.Duration
	asJSON, keep             bool
}

// Main is `ragd-bench scale`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code := parseFlags(args, stderr)
	if c == nil {
		return code
	}
	if c.work == "" {
		dir, err := os.MkdirTemp("", "ragd-bench-scale-")
		if err != nil {
			fmt.Fprintf(stderr, "ragd-bench scale: %v\n", err)
			return 1
		}
		c.work = dir
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	}
	var results []*scaleResult
	report := func(res *scaleResult, err error) bool {
		if err != nil {
			fmt.Fprintf(stderr, "ragd-bench scale: %s: %v\n", res.label(), err)
			return false
		}
		if !c.asJSON {
			printScale(stdout, res)
		}
		return true
	}
	for _, dir := range c.vaults {
		if !report(runVault(ctx, c, dir, stderr)) {
			return 1
		}
	}
	for _, sc := range c.scales {
		res, err := runScale(ctx, c, sc, stderr)
		if !report(res, err) {
			return 1
		}
		results = append(results, res)
	}
	if c.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(results)
		return 0
	}
	printGrowth(stdout, results)
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*config, int) {
	fs := flag.NewFlagSet("ragd-bench scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	c.src.flags(fs)
	scales := fs.String("scales", "1,10", "vault sizes, as multiples of the source vault (comma- or space-separated; empty for none)")
	vaults := fs.String("vault", "", "also measure these existing vaults (comma-separated; each copied first)")
	engines := fs.String("engines", "ragd,fts5,bleve", "engines to measure: ragd, "+strings.Join(peer.Engines, ", "))
	fs.IntVar(&c.runs, "runs", 3, "runs of each engine per scale, alternating")
	fs.IntVar(&c.queries, "queries", 200, "queries timed per run, drawn from the vault")
	fs.IntVar(&c.saves, "saves", 10, "save → searchable trials per run")
	fs.StringVar(&c.ragdBin, "ragd", filepath.Join("bin", "ragd"), "ragd binary")
	fs.StringVar(&c.peerBin, "peer-bin", "", "ragd-peer binary (default: next to ragd-bench, then $PATH)")
	fs.StringVar(&c.work, "work", "", "working directory for indexes (default: a temporary one, removed)")
	fs.DurationVar(&c.settle, "settle", 10*time.Second, "wait after indexing before reading the idle RSS")
	fs.DurationVar(&c.timeout, "timeout", 20*time.Minute, "stop a cold index (or warm restart) after this")
	fs.DurationVar(&c.pollMax, "status-poll", 250*time.Millisecond, "poll ragd's status at most this often while it indexes")
	fs.BoolVar(&c.asJSON, "json", false, "print JSON")
	fs.BoolVar(&c.keep, "keep", false, "keep the working directory")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return nil, 2
	}
	for _, f := range strings.FieldsFunc(*scales, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, err := strconv.ParseFloat(strings.TrimSuffix(f, "x"), 64)
		if err != nil || v <= 0 {
			fmt.Fprintf(stderr, "ragd-bench scale: bad scale %q\n", f)
			return nil, 2
		}
		c.scales = append(c.scales, v)
	}
	for _, v := range strings.Split(*vaults, ",") {
		if v = strings.TrimSpace(v); v != "" {
			c.vaults = append(c.vaults, v)
		}
	}
	for _, e := range strings.Split(*engines, ",") {
		if e = strings.TrimSpace(e); e != "ragd" && !slices.Contains(peer.Engines, e) {
			fmt.Fprintf(stderr, "ragd-bench scale: unknown engine %q\n", e)
			return nil, 2
		}
		c.engines = append(c.engines, strings.TrimSpace(e))
	}
	if len(c.scales)+len(c.vaults) == 0 || c.runs < 1 || c.queries < 1 || c.saves < 1 {
		fmt.Fprintln(stderr, "ragd-bench scale: need scales, and runs, queries and saves of at least 1")
		return nil, 2
	}
	if slices.ContainsFunc(c.engines, func(e string) bool { return e != "ragd" }) {
		bin, err := peer.Find(c.peerBin)
		if err != nil {
			fmt.Fprintf(stderr, "ragd-bench scale: %v\n", err)
			return nil, 1
		}
		c.peerBin = bin
	}
	return c, 0
}

// runScale measures every engine on the vault of one scale, runs
// alternating (the engines' order rotates each run).
func runScale(ctx context.Context, c *config, sc float64, log io.Writer) (*scaleResult, error) {
	res := &scaleResult{Scale: sc}
	notes, err := c.src.notesAt(sc)
	if err != nil {
		return res, err
	}
	vault, m, err := c.src.vault(notes, log)
	if err != nil {
		return res, err
	}
	res.Notes, res.VaultMB, res.Vault = m.Notes, float64(m.Bytes)/1e6, vault
	return res, runEngines(ctx, c, res, vault, log)
}

// runVault measures an existing vault, on a copy of it in the working
// directory (the save trials write into the vault).
func runVault(ctx context.Context, c *config, dir string, log io.Writer) (*scaleResult, error) {
	res := &scaleResult{Name: filepath.Base(filepath.Clean(dir)), Vault: dir}
	cp := filepath.Join(c.work, "vault-"+res.Name)
	if err := os.RemoveAll(cp); err != nil {
		return res, err
	}
	_, bytes, err := ragdproc.CopyTree(dir, cp)
	if err != nil {
		return res, fmt.Errorf("copy: %w", err)
	}
	filepath.WalkDir(cp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(cp, p)
			if peer.IsNote(filepath.ToSlash(rel)) {
				res.Notes++
			}
		}
		return nil
	})
	res.VaultMB = float64(bytes) / 1e6
	return res, runEngines(ctx, c, res, cp, log)
}

// runEngines measures every engine on vault, runs alternating, into res.
func runEngines(ctx context.Context, c *config, res *scaleResult, vault string, log io.Writer) error {
	qs, err := Queries(vault, c.queries, c.src.seed)
	if err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	res.Queries = len(qs)
	set := settings{vault: vault, queries: qs, settle: c.settle, timeout: c.timeout, saves: c.saves}
	byName := map[string]*engineResult{}
	for _, name := range c.engines {
		res.Engines = append(res.Engines, engineResult{Engine: name})
	}
	for i := range res.Engines {
		byName[res.Engines[i].Engine] = &res.Engines[i]
	}
	for run := range c.runs {
		for k := range c.engines {
			name := c.engines[(k+run)%len(c.engines)]
			e := c.engine(name, vault)
			res.Load = append(res.Load, loadAverage())
			fmt.Fprintf(log, "%s run %d/%d: %s (load %.1f) …\n", res.label(), run+1, c.runs, name, res.Load[len(res.Load)-1])
			smp, err := measure(ctx, e, filepath.Join(c.work, res.label()+"-"+name), set)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			status := ""
			if smp.StatusCalls > 0 {
				status = fmt.Sprintf(", status p50 / max %.1f / %.0f ms (%s; %d of %d over 50 ms)",
					smp.StatusP50MS, smp.StatusMaxMS, smp.StatusMaxAt, smp.StatusSlow, smp.StatusCalls)
			}
			fmt.Fprintf(log, "  cold %.1f s (CPU %.1f s), peak %.0f MB, idle %.0f MB, restart %.2f s, p50 / p95 %.2f / %.2f ms%s %s\n",
				smp.ColdS, smp.ColdCPUS, smp.PeakMB, smp.IdleMB, smp.RestartS, smp.QueryP50MS, smp.QueryP95MS, status, smp.Failed)
			byName[name].Samples = append(byName[name].Samples, smp)
		}
	}
	for i := range res.Engines {
		res.Engines[i].Median = median(res.Engines[i].Samples)
	}
	return nil
}

// label names a result: its scale ("10x") or its vault's name.
func (r *scaleResult) label() string {
	if r.Name != "" {
		return r.Name
	}
	return strconv.FormatFloat(r.Scale, 'g', -1, 64) + "x"
}

// loadAverage returns the 1-minute load average (0 where unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func (c *config) engine(name, vault string) engine {
	if name == "ragd" {
		return &ragdEngine{bin: c.ragdBin, vault: vault, pollEvery: c.pollMax}
	}
	return &peerEngine{bin: c.peerBin, engine: name, vault: vault}
}

// median takes each figure's median over the runs that finished (over all
// runs, for the figures a failed run still has, when none finished).
func median(ss []sample) sample {
	ok := slices.DeleteFunc(slices.Clone(ss), func(s sample) bool { return s.Failed != "" })
	var m sample
	if len(ok) == 0 {
		ok = ss
		if len(ss) > 0 {
			m.Failed = ss[0].Failed
		}
	}
	for _, f := range figures {
		if f.get == nil {
			continue
		}
		vals := make([]float64, len(ok))
		for i := range ok {
			vals[i] = f.get(&ok[i])
		}
		f.set(&m, mid(vals))
	}
	medianInt := func(get func(*sample) int) int {
		vals := make([]float64, len(ok))
		for i := range ok {
			vals[i] = float64(get(&ok[i]))
		}
		return int(math.Round(mid(vals)))
	}
	m.StatusCalls = medianInt(func(s *sample) int { return s.StatusCalls })
	m.StatusSlow = medianInt(func(s *sample) int { return s.StatusSlow })
	m.StatusFailed = medianInt(func(s *sample) int { return s.StatusFailed })
	m.StatusEarly = medianInt(func(s *sample) int { return s.StatusEarly })
	m.Chunks = medianInt(func(s *sample) int { return s.Chunks })
	return m
}

// mid is the median of vals: the middle value, or the mean of the two
// middle ones for an even count (a nearest-rank percentile would report
// the lower of two runs).
func mid(vals []float64) float64 {
	if len(vals) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vals))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
