package main

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// completionBackend is a daemon that knows two vaults and a few notes.
func completionBackend() *fakeBackend {
	return &fakeBackend{graph: map[string]*ipc.GraphResponse{
		ipc.GraphEntities: {Total: 2, Entities: []ipc.GraphEntity{
			{Vault: "notes", Type: "note", Name: "Espresso Dialing In", Path: "coffee/Espresso Dialing In.md"},
			{Vault: "notes", Type: "note", Name: "Coffee Grinder Niche", Path: "coffee/niche.md"},
		}},
	}}
}

// completionCases are command lines (the last word being completed) and
// what completing them must offer.
var completionCases = []struct {
	line      string
	want, not []string
	// bashOnly cases use -flag=value, which only the bash script splits.
	bashOnly bool
}{
	{line: "ragctl ", want: []string{"search", "status", "doctor", "completion", "version", "help", "get"}, not: []string{"__complete"}},
	{line: "ragctl do", want: []string{"doctor"}, not: []string{"search"}},
	{line: "ragctl -", want: []string{"-socket", "-version"}},
	{line: "ragctl -socket /x.sock gr", want: []string{"graph"}},
	{line: "ragctl search -", want: []string{"-k", "-vault", "-path", "-json", "-socket", "-mode", "-explain"}, not: []string{"-watch"}},
	{line: "ragctl search espresso -", want: []string{"-k", "-json"}},
	{line: "ragctl doctor -", want: []string{"-json", "-config", "-socket"}},
	{line: "ragctl graph ", want: []string{"backlinks", "links", "neighbors", "entities", "unresolved"}},
	{line: "ragctl graph entities -type ", want: []string{"note", "tag"}},
	{line: "ragctl completion ", want: []string{"bash", "zsh", "fish"}},
	{line: "ragctl doctor -config ", want: []string{"ragd.toml"}},
	{line: "ragctl eval -beir ", want: []string{"sub"}, not: []string{"ragd.toml"}},
	{line: "ragctl search graph ", not: []string{"backlinks"}},
	{line: "ragctl help ", want: []string{"search", "graph"}},
	// From the daemon: vaults, modes (no vector mode without an
	// embedder), note names.
	{line: "ragctl search -vault ", want: []string{"notes", "usb", "new"}},
	{line: "ragctl search -vault notes,u", want: []string{"notes,usb"}},
	{line: "ragctl search -mode ", want: []string{"hybrid", "lexical", "vector"}},
	{line: "ragctl similar ", want: []string{"Espresso Dialing In", "Coffee Grinder Niche", "niche"}},
	{line: "ragctl similar esp", want: []string{"Espresso Dialing In"}, not: []string{"Coffee Grinder Niche"}},
	{line: "ragctl graph backlinks Cof", want: []string{"Coffee Grinder Niche"}},
	{line: "ragctl similar coffee/", want: []string{"coffee/niche.md"}},
	{line: "ragctl -socket=/x.sock gr", want: []string{"graph"}, bashOnly: true},
	{line: "ragctl doctor -config=", want: []string{"ragd.toml"}, bashOnly: true},
	{line: "ragctl doctor -json=true -", want: []string{"-config"}, bashOnly: true},
	{line: "ragctl graph entities -type=", want: []string{"note", "tag"}, bashOnly: true},
	{line: "ragctl search -mode=lex", want: []string{"lexical"}, bashOnly: true},
}

// completeWords runs `ragctl __complete` in-process and returns the kind
// and the candidates (descriptions cut off).
func completeWords(t *testing.T, words ...string) (kind string, cands []string) {
	t.Helper()
	code, stdout, stderr := runCmd(t, append([]string{completeCommand}, words...)...)
	if code != exitOK || stderr != "" {
		t.Fatalf("__complete %q: exit %d, stderr %q", words, code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	for _, l := range lines[1:] {
		w, _, _ := strings.Cut(l, "\t")
		cands = append(cands, w)
	}
	return lines[0], cands
}

// The completion engine, asked directly: words, files, daemon sources.
func TestComplete(t *testing.T) {
	isolate(t)
	t.Setenv("RAGD_SOCKET", serveFake(t, completionBackend()))
	for _, tc := range completionCases {
		if tc.bashOnly || strings.HasSuffix(tc.line, "-config ") || strings.HasSuffix(tc.line, "-beir ") {
			continue
		}
		words := strings.Split(tc.line, " ")[1:]
		_, got := completeWords(t, words...)
		checkCompletions(t, tc.line, got, tc.want, tc.not)
	}
	if kind, _ := completeWords(t, "doctor", "-config", ""); kind != "file" {
		t.Errorf("doctor -config: kind %q, want file", kind)
	}
	if kind, _ := completeWords(t, "eval", "-beir", ""); kind != "dir" {
		t.Errorf("eval -beir: kind %q, want dir", kind)
	}
	// Flag descriptions come from the FlagSet.
	_, stdout, _ := runCmd(t, completeCommand, "search", "-")
	if !strings.Contains(stdout, "-k\tnumber of results, N from 1 to 1000") {
		t.Errorf("search flags lack their usage:\n%s", stdout)
	}
}

// Without an embedder the daemon cannot answer -mode vector: it is not
// offered. With no daemon the static words stand.
func TestCompleteModesFromDaemon(t *testing.T) {
	isolate(t)
	st := sampleStatus()
	st.Vector = nil
	t.Setenv("RAGD_SOCKET", serveFake(t, &fakeBackend{statuses: []*ipc.StatusResponse{st}}))
	_, got := completeWords(t, "search", "-mode", "")
	checkCompletions(t, "search -mode (no embedder)", got, []string{"hybrid", "lexical"}, []string{"vector"})

	isolate(t) // nothing listens on the socket now
	_, got = completeWords(t, "context", "-mode", "")
	checkCompletions(t, "context -mode (no daemon)", got, modes, nil)
	_, got = completeWords(t, "search", "-vault", "")
	if len(got) != 0 {
		t.Errorf("-vault without a daemon offered %q", got)
	}
}

// Every flag of every command is offered, with a description.
func TestCompletionCoversEveryFlag(t *testing.T) {
	isolate(t)
	for _, c := range commands {
		if c.hidden {
			continue
		}
		fs, _ := c.newFlagSet(&env{stdout: io.Discard, stderr: io.Discard}, io.Discard)
		_, got := completeWords(t, c.name, "-")
		fs.VisitAll(func(f *flag.Flag) {
			if !slices.Contains(got, "-"+f.Name) {
				t.Errorf("ragctl %s -: %q lacks -%s", c.name, got, f.Name)
			}
			if f.Usage == "" {
				t.Errorf("ragctl %s -%s has no usage", c.name, f.Name)
			}
		})
	}
}

func TestCompletionUsage(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}, {"completion", "-x"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitUsage || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, stdout, stderr := runCmd(t, "completion", shell)
	if code != exitOK || stderr != "" {
		t.Fatalf("completion %s: exit %d, stderr %q", shell, code, stderr)
	}
	return stdout
}

// writeScript writes the completion script for shell to a file.
func writeScript(t *testing.T, shell string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ragctl."+shell)
	if err := os.WriteFile(path, []byte(completionScript(t, shell)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The shells that are installed accept their scripts.
func TestCompletionSyntax(t *testing.T) {
	isolate(t)
	for _, shell := range completionShells {
		t.Run(shell, func(t *testing.T) {
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			out, err := exec.Command(bin, "-n", writeScript(t, shell)).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}

// completionDir is a working directory with a file and a directory to
// complete, and a bin directory holding "ragctl": this test binary, which
// runs ragctl's main under RAGCTL_TEST_MAIN=1.
func completionDir(t *testing.T) (dir, bin string) {
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ragd.toml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(binDir, "ragctl")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

// shellEnv is the environment of a shell running the completion script:
// the test binary acts as ragctl and asks the fake daemon.
func shellEnv(binDir, sock string) []string {
	return append(os.Environ(), "RAGCTL_TEST_MAIN=1", "RAGD_SOCKET="+sock, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func checkCompletions(t *testing.T, line string, got, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) && !slices.Contains(got, w+"/") {
			t.Errorf("%q: completions %q lack %q", line, got, w)
		}
	}
	for _, n := range not {
		if slices.Contains(got, n) {
			t.Errorf("%q: completions %q include %q", line, got, n)
		}
	}
}

// The bash script completes as intended, run as bash would.
func TestBashCompletion(t *testing.T) {
	isolate(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	sock := serveFake(t, completionBackend())
	script := writeScript(t, "bash")
	dir, bin := completionDir(t)
	for _, tc := range completionCases {
		// Split the line into words as bash does, "=" being a word of its
		// own; the command word is the ragctl binary.
		var words []string
		for _, w := range strings.Split(tc.line, " ") {
			for i, part := range strings.Split(w, "=") {
				if i > 0 {
					words = append(words, "=")
				}
				if part != "" || i == 0 {
					words = append(words, part)
				}
			}
		}
		words[0] = bin
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "\n_ragctl\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = dir
		cmd.Env = shellEnv(filepath.Dir(bin), sock)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tc.line, err, out)
			continue
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			got = append(got, strings.ReplaceAll(l, `\ `, " ")) // printf %q escapes spaces
		}
		checkCompletions(t, tc.line, got, tc.want, tc.not)
	}
}

// The fish script completes as intended, if fish is installed.
func TestFishCompletion(t *testing.T) {
	isolate(t)
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not installed")
	}
	sock := serveFake(t, completionBackend())
	script := writeScript(t, "fish")
	dir, bin := completionDir(t)
	for _, tc := range completionCases {
		if tc.bashOnly {
			continue
		}
		cmd := exec.Command(fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, tc.line)
		cmd.Dir = dir
		cmd.Env = append(shellEnv(filepath.Dir(bin), sock), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tc.line, err, out)
			continue
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			word, _, _ := strings.Cut(l, "\t")
			got = append(got, word)
		}
		checkCompletions(t, tc.line, got, tc.want, tc.not)
	}
}
