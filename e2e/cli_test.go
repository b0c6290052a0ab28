// Package e2e drives the real ragd and ragctl binaries, built for the test,
// through what a new user does: install, configure, search, read what was
// cited, watch progress, complete commands, restart after downtime.
package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/ipc"
)

var notes = map[string]string{
	"coffee/Espresso Dialing In.md": "---\naliases: [dial-in]\n---\n# Espresso Dialing In\n\nGrind finer when the espresso shot runs fast.\nA shot at 9 bar, 2.2 bar at preinfusion.\n\n## Ratio\n\nEspresso ratio 1:2 in 28 seconds.\n",
	"coffee/niche.md":               "# Coffee Grinder Niche\n\nThe Niche grinder makes espresso and filter. See [[Espresso Dialing In]].\n\n## Notes\n\nSingle dosing.\n",
	"tea.md":                        "# Tea\n\nGreen tea at 80 degrees.\n",
}

// The command line behaves: flags anywhere, exit codes, versions, titles,
// ragctl get on Markdown and PDF, completion from the daemon, 405, logs.
func TestCLIAgainstRealDaemon(t *testing.T) {
	e := newEnv(t, notes, "")
	pdf, err := os.ReadFile(filepath.Join("..", "plugins", "extract", "pdf", "testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	e.Write("report.pdf", string(pdf))
	d := e.start("")
	e.waitFor(d, "idle", idle)

	// Flags after the query are flags.
	code, out, errOut := e.ragctl("search", "espresso", "-k", "2", "-json")
	var resp ipc.SearchResponse
	if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || resp.Query != "espresso" || len(resp.Results) == 0 || len(resp.Results) > 2 {
		t.Errorf("search espresso -k 2 -json: exit %d, %s %s", code, out, errOut)
	}
	// Every usage error exits 2.
	for _, args := range [][]string{{"search", "x", "-k", "5000"}, {"search", "-mode", "semantic", "x"}, {"search", "-k", "0", "x"},
		{"search"}, {"get"}, {"graph", "friends"}} {
		if code, _, errOut := e.ragctl(args...); code != 2 || errOut == "" {
			t.Errorf("%q: exit %d (%q), want 2", args, code, errOut)
		}
	}
	// What the docs say of a daemon without an embedder: lexical search,
	// status says how to add semantic search, and mode vector answers
	// nothing, says why and suggests hybrid or lexical (protocol.md).
	if st := e.status(); !strings.HasPrefix(st.Semantic, "off: ragd runs lexical (BM25) search") || !strings.Contains(st.Semantic, "[search] embedder") {
		t.Errorf("semantic without an embedder: %q", st.Semantic)
	}
	code, out, _ = e.ragctl("search", "-json", "-mode", "vector", "espresso")
	resp = ipc.SearchResponse{}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || code != 1 || len(resp.Results) != 0 ||
		!slices.Contains(resp.Degraded, "vector") || !strings.Contains(strings.Join(resp.Suggestions, " "), "hybrid") {
		t.Errorf("search -mode vector without an embedder: exit %d %s", code, out)
	}
	// Versions.
	for _, b := range []string{"ragd", "ragctl"} {
		out, err := exec.Command(filepath.Join(bin, b), "--version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), b+" ") {
			t.Errorf("%s --version: %v %q", b, err, out)
		}
	}
	_, out, _ = e.ragctl("version")
	mustContain(t, "ragctl version", out, "ragctl ", "ragd ", "on "+e.Socket)

	// A note named by its title or alias, wherever a note is named.
	for _, args := range [][]string{{"similar", "Espresso Dialing In"}, {"similar", "dial-in"}, {"graph", "backlinks", "Espresso Dialing In"},
		{"graph", "backlinks", "dial-in"}, {"graph", "links", "Coffee Grinder Niche"}, {"get", "dial-in:L6-L6"}, {"get", "Espresso Dialing In"}} {
		if code, out, errOut := e.ragctl(args...); code != 0 {
			t.Errorf("%q: exit %d %s %s", args, code, out, errOut)
		}
	}
	if _, out, _ := e.ragctl("get", "dial-in:L6-L6"); out != "Grind finer when the espresso shot runs fast.\n" {
		t.Errorf("get dial-in:L6-L6: %q", out)
	}

	// ragctl get: a cited range of a note, and a PDF's extracted text with
	// the line numbers of its citations.
	_, out, _ = e.ragctl("get", "coffee/Espresso Dialing In.md:L6-L7")
	if out != "Grind finer when the espresso shot runs fast.\nA shot at 9 bar, 2.2 bar at preinfusion.\n" {
		t.Errorf("get L6-L7: %q", out)
	}
	code, out, errOut = e.ragctl("search", "-json", "-path", "report.pdf", "paraphrases")
	if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Results) == 0 {
		t.Fatalf("search in the PDF: exit %d %s %s", code, out, errOut)
	}
	r := resp.Results[0]
	code, out, errOut = e.ragctl("get", "-json", "report.pdf:L"+strconv.Itoa(r.LineStart)+"-L"+strconv.Itoa(r.LineEnd))
	var doc ipc.DocumentResponse
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !doc.Extracted || strings.Contains(doc.Text, "%PDF") ||
		strings.TrimSpace(doc.Text) != strings.TrimSpace(r.Text) || len(doc.Pages) == 0 {
		t.Errorf("get report.pdf:L%d-L%d: exit %d %s %s\ncited text %q", r.LineStart, r.LineEnd, code, out, errOut, r.Text)
	}

	// Completion asks the daemon for vaults and note names.
	_, out, _ = e.ragctl("__complete", "search", "-vault", "")
	mustContain(t, "vault completion", out, "notes")
	_, out, _ = e.ragctl("__complete", "similar", "Esp")
	mustContain(t, "note completion", out, "Espresso Dialing In")
	// Modes the daemon can serve: without an embedder, not vector.
	_, out, _ = e.ragctl("__complete", "search", "-mode", "")
	if modes := strings.Fields(out); !slices.Contains(modes, "hybrid") || !slices.Contains(modes, "lexical") || slices.Contains(modes, "vector") {
		t.Errorf("mode completion without an embedder: %q", modes)
	}
	// The bash script asks ragctl for those words.
	if bash, err := exec.LookPath("bash"); err == nil {
		_, script, _ := e.ragctl("completion", "bash")
		probe := script + "\nCOMP_WORDS=(ragctl similar Esp); COMP_CWORD=2; COMP_LINE='ragctl similar Esp'; COMP_POINT=${#COMP_LINE}\n" +
			"_ragctl ragctl Esp similar; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", probe)
		cmd.Env = e.environ()
		got, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(got), `Espresso\ Dialing\ In`) {
			t.Errorf("bash completion of ragctl similar Esp: %v\n%s", err, got)
		}
	}

	// A wrong method is 405.
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", e.Socket)
	}}}
	res, err := hc.Get("http://ragd/v1/search")
	if err != nil || res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" {
		t.Errorf("GET /v1/search: %v %v", err, res)
	}
	if res != nil {
		res.Body.Close()
	}

	// No log line ends in err=<nil>.
	if strings.Contains(d.Output(), "err=<nil>") {
		t.Errorf("log has err=<nil>:\n%s", d.Output())
	}

	// A second ragd on the same data dir fails, saying so once.
	out2, err := exec.Command(filepath.Join(bin, "ragd"), "run", "-config", e.Config).CombinedOutput()
	if err == nil || strings.Count(string(out2), "already running") != 1 {
		t.Errorf("second ragd: %v, output %q: want the error once", err, out2)
	}
}

// On a terminal, results fit its width and doctor is coloured (not with
// NO_COLOR); semantic search off is not marked ✓.
func TestTerminalOutput(t *testing.T) {
	e := newEnv(t, notes, "")
	d := e.start("")
	e.waitFor(d, "idle", idle)
	run := e.runTerm
	out := run(50, nil, "search", "espresso grinder")
	for _, l := range strings.Split(stripANSI(out), "\n") {
		if n := utf8.RuneCountInString(l); n > 50 {
			t.Errorf("a %d-column line on a 50-column terminal: %q", n, l)
		}
	}
	mustContain(t, "search on a terminal", out, "\x1b[") // colour
	out = run(100, nil, "doctor")
	mustContain(t, "doctor on a terminal", out, "\x1b[32m✓\x1b[0m", "i\x1b[0m \x1b[1msemantic\x1b[0m")
	if strings.Contains(stripANSI(out), "✓ semantic") {
		t.Errorf("semantic off is marked ✓:\n%s", out)
	}
	if out := run(100, []string{"NO_COLOR=1"}, "doctor"); strings.Contains(out, "\x1b[") {
		t.Errorf("NO_COLOR doctor has escapes:\n%s", out)
	}
	// Not a terminal: no escapes.
	if _, out, _ := e.ragctl("search", "espresso"); strings.Contains(out, "\x1b[") {
		t.Errorf("piped search has escapes")
	}
}

// stripANSI removes escape sequences: CSI (ESC [ parameters, a final
// byte from @ to ~) and two-byte ones.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i < len(s) && s[i] == '[' {
			for i++; i < len(s) && (s[i] < 0x40 || s[i] > 0x7e); i++ {
			}
		}
	}
	return b.String()
}

// Freshness after downtime: notes edited, renamed and deleted while ragd
// was stopped are reflected by the very first answer after the restart,
// which waits for the start-up pass (here without a bound: by default a
// query waits for it at most daemon.startup_wait, 500 ms, which a pass
// over a vault this small never needs).
func TestFreshnessAfterDowntime(t *testing.T) {
	e := newEnv(t, notes, "")
	e.WriteConfig(`startup_wait = "10m"`, "", "")
	d := e.start("")
	e.waitFor(d, "idle", idle)
	d.Stop(t)

	e.Write("tea.md", "# Tea\n\nOolong steeped at 90 degrees.\n")
	if err := os.Rename(filepath.Join(e.Vault, "coffee", "niche.md"), filepath.Join(e.Vault, "coffee", "grinder.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.Vault, "coffee", "Espresso Dialing In.md")); err != nil {
		t.Fatal(err)
	}
	e.start("")
	// The first search answered, as soon as ragd answers at all.
	var resp ipc.SearchResponse
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, _ := e.ragctl("search", "-json", "-k", "20", "oolong espresso niche")
		if code != 3 { // 3: not answering yet
			if err := json.Unmarshal([]byte(out), &resp); err != nil {
				t.Fatalf("first search: exit %d %q", code, out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ragd never answered")
		}
	}
	var paths []string
	for _, r := range resp.Results {
		paths = append(paths, r.Path)
		if r.Stale {
			t.Errorf("first answer has a stale citation: %s", r.Path)
		}
	}
	got := strings.Join(paths, " ")
	mustContain(t, "first answer", got, "tea.md", "coffee/grinder.md")
	if strings.Contains(got, "niche.md") || strings.Contains(got, "Espresso Dialing In.md") {
		t.Errorf("first answer cites notes renamed or deleted while ragd was down: %s", got)
	}
}
