package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/segment"
	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// envSegments, in the environment of a ragd run from the test binary,
// tunes its segment set: "flush=BYTES,factor=N" (index.TuneSegments). The
// crash trials make segments tiny so that flushes and merges never stop.
const envSegments = "RAGD_TEST_SEGMENTS"

// tuneSegmentsFromEnv applies envSegments; TestMain calls it in the child.
func tuneSegmentsFromEnv() {
	spec := os.Getenv(envSegments)
	if spec == "" {
		return
	}
	var flush int64
	var factor int
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			panic(envSegments + ": " + kv)
		}
		switch k {
		case "flush":
			flush = n
		case "factor":
			factor = int(n)
		default:
			panic(envSegments + ": " + kv)
		}
	}
	index.TuneSegments = func(o *segment.Options) {
		o.FlushBytes, o.MergeFactor = flush, factor
	}
}

// Segment tunings of the merge trials: tinySegments flushes every change
// into a file of its own and never merges (a data dir of many small
// segments); mergingSegments flushes the same way and merges every two
// segments of a size tier, so a daemon opening such a data dir does
// nothing but merge.
var (
	tinySegments    = envSegments + "=flush=1,factor=100000"
	mergingSegments = envSegments + "=flush=1,factor=2"
)

// syntheticVault is n notes in 40 folders, with frontmatter, headings and
// a body of repeated words.
func syntheticVault(n int) map[string]string {
	vault := map[string]string{}
	for i := range n {
		vault[fmt.Sprintf("n%02d/note-%04d.md", i%40, i)] = fmt.Sprintf(
			"---\ntags: [t%d]\n---\n# Note %d\n\nAlpha %d beta gamma.\n\n## Section\n\n%s\n",
			i%7, i, i, strings.Repeat(fmt.Sprintf("word%d filler text ", i%97), 20))
	}
	return vault
}

// readVault reads the regular files under dir (hidden folders skipped).
func readVault(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() && p != dir && strings.HasPrefix(de.Name(), ".") {
			return filepath.SkipDir
		}
		if !de.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// resetVault makes the vault hold exactly files.
func resetVault(e *testEnv, files map[string]string) {
	e.T.Helper()
	ents, err := os.ReadDir(e.Vault)
	if err != nil {
		e.T.Fatal(err)
	}
	for _, de := range ents {
		if err := os.RemoveAll(filepath.Join(e.Vault, de.Name())); err != nil {
			e.T.Fatal(err)
		}
	}
	for rel, body := range files {
		e.Write(rel, body)
	}
}

// useData points the configuration at data; fresh empties it first.
func useData(e *testEnv, data string, fresh bool) {
	e.T.Helper()
	if fresh {
		if err := os.RemoveAll(data); err != nil {
			e.T.Fatal(err)
		}
	}
	e.Data = data
	e.writeConfig("")
}

// pickQueries takes up to n queries from the vault's Markdown notes, spread
// over them: the first line of each that is not frontmatter or blank, at
// most six words.
func pickQueries(files map[string]string, n int) []string {
	var paths []string
	for p := range files {
		if strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var qs []string
	for i := 0; i < len(paths) && len(qs) < n; i += max(1, len(paths)/n) {
		body := files[paths[i]]
		if strings.HasPrefix(body, "---\n") {
			if end := strings.Index(body[4:], "\n---"); end >= 0 {
				body = body[4+end+4:]
			}
		}
		for _, line := range strings.Split(body, "\n") {
			words := strings.Fields(strings.TrimLeft(line, "#>-* "))
			if len(words) >= 2 {
				qs = append(qs, strings.Join(words[:min(len(words), 6)], " "))
				break
			}
		}
	}
	return qs
}

// reference is what an index holds, to compare a crashed and restarted
// build with a clean one: Store.Dump (after Store.Check) and the answers
// to the queries.
type reference struct {
	dump    string
	answers []string
}

// answers asks every query (the daemon's default search, ten results) and
// describes each answer: paths, lines and scores.
func answers(t *testing.T, d *daemonProc, queries []string) []string {
	t.Helper()
	out := make([]string, len(queries))
	for i, q := range queries {
		resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: q, K: 10, NoText: true})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		var b strings.Builder
		b.WriteString(q + " →")
		for _, r := range resp.Results {
			fmt.Fprintf(&b, " %s:%d-%d %.6g", r.Path, r.LineStart, r.LineEnd, r.Score)
		}
		out[i] = b.String()
	}
	return out
}

// settle starts ragd on the configured data dir (with env), waits for its
// start-up pass, asks the queries, stops it and reads the index it left.
func settle(e *testEnv, queries []string, env ...string) (reference, error) {
	e.T.Helper()
	d := e.startEnv(env...)
	ref := reference{answers: answers(e.T, d, queries)}
	d.Stop(e.T)
	if strings.Contains(d.Output(), "segments are damaged") {
		return ref, fmt.Errorf("the segments were damaged and rebuilt from the store")
	}
	var err error
	ref.dump, err = readIndex(filepath.Join(e.Data, "index"))
	return ref, err
}

// readIndex checks the index in dir and dumps it.
func readIndex(dir string) (string, error) {
	s, err := index.Open(index.Options{Dir: dir})
	if err != nil {
		return "", err
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// differs says how got differs from want, or "".
func (got reference) differs(want reference) string {
	if len(got.answers) != len(want.answers) {
		return fmt.Sprintf("%d answers, want %d", len(got.answers), len(want.answers))
	}
	for i := range want.answers {
		if got.answers[i] != want.answers[i] {
			return fmt.Sprintf("query answered differently:\n got %s\nwant %s", got.answers[i], want.answers[i])
		}
	}
	if got.dump != want.dump {
		return "index differs from a clean build: " + firstDiff(got.dump, want.dump)
	}
	return ""
}

// kill ends ragd with SIGKILL; it fails the test if ragd had already
// exited by itself.
func kill(t *testing.T, d *daemonProc) {
	t.Helper()
	select {
	case <-d.Exited():
		t.Fatalf("ragd died before the kill: %v\n%s", d.Err(), d.Output())
	default:
	}
	d.Cmd.Process.Signal(syscall.SIGKILL)
	<-d.Exited()
}

// killDuringPass kills ragd once its running pass has examined frac of
// its files (or once it is idle, if the pass ends first) and says when
// the kill came.
func killDuringPass(t *testing.T, d *daemonProc, frac float64) string {
	t.Helper()
	deadline := time.Now().Add(ragdtest.WaitTimeout)
	for {
		select {
		case <-d.Exited():
			t.Fatalf("ragd died before the kill: %v\n%s", d.Err(), d.Output())
		default:
		}
		st, err := d.Client.Status(context.Background())
		if p := progressOf(st, err); p != nil && p.Total > 0 && float64(p.Done) >= frac*float64(p.Total) {
			kill(t, d)
			return fmt.Sprintf("at %d/%d files", p.Done, p.Total)
		}
		if err == nil && ragdtest.Idle(st) {
			kill(t, d)
			return "when idle"
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pass reached %.0f%% in %s", 100*frac, ragdtest.WaitTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

func progressOf(st *ipc.StatusResponse, err error) *ipc.Progress {
	if err != nil {
		return nil
	}
	return st.Progress
}

// segmentsLeft describes the segment directory a kill left: files being
// written, segments the manifest does not name (newer: a merge or flush
// not committed; older: merged away, not yet removed), and segments the
// manifest names that are missing (never right).
func segmentsLeft(dir string) (string, bool) {
	var m struct {
		Segments []struct{ Name string }
	}
	named := map[string]bool{}
	last := ""
	if b, err := os.ReadFile(filepath.Join(dir, "MANIFEST")); err == nil && json.Unmarshal(b, &m) == nil {
		for _, s := range m.Segments {
			named[s.Name] = true
			last = max(last, s.Name)
		}
	}
	ents, _ := os.ReadDir(dir)
	var tmp, newer, older []string
	present := map[string]bool{}
	for _, de := range ents {
		n := de.Name()
		present[n] = true
		switch {
		case strings.HasSuffix(n, ".tmp"):
			tmp = append(tmp, n)
		case strings.HasSuffix(n, ".seg") && !named[n] && n > last:
			newer = append(newer, n)
		case strings.HasSuffix(n, ".seg") && !named[n]:
			older = append(older, n)
		}
	}
	var missing []string
	for n := range named {
		if !present[n] {
			missing = append(missing, n)
		}
	}
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			slices.Sort(names)
			parts = append(parts, what+" "+strings.Join(names, " "))
		}
	}
	add("half-written", tmp)
	add("uncommitted", newer)
	add("merged away", older)
	add("MISSING", missing)
	if len(parts) == 0 {
		return "clean", true
	}
	return strings.Join(parts, "; "), len(missing) == 0
}
