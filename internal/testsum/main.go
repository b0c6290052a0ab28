// Command testsum reads `go test -json` on stdin and prints what plain
// `go test` prints (package results, the output of failed tests), then one
// line naming the tests that were skipped and why, which plain `go test`
// shows only with -v. It exits 1 when a test or package failed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	out := map[string][]string{} // package/test → output lines
	var skipped []string
	failed := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			fmt.Println(sc.Text()) // not JSON: a build error, say
			continue
		}
		key := ev.Package + "/" + ev.Test
		switch ev.Action {
		case "output":
			if ev.Test == "" {
				if !strings.HasPrefix(ev.Output, "=== ") && !strings.HasPrefix(ev.Output, "PASS") {
					fmt.Print(ev.Output)
				}
				continue
			}
			out[key] = append(out[key], ev.Output)
		case "fail":
			failed = true
			if ev.Test != "" {
				fmt.Print(strings.Join(out[key], ""))
			}
		case "skip":
			// Subtests too: an editor's suite is one (TestEditors/nvim).
			if ev.Test != "" {
				skipped = append(skipped, fmt.Sprintf("%s (%s): %s", ev.Test, short(ev.Package), reason(out[key])))
			}
		}
		if ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip" {
			delete(out, key)
		}
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Printf("skipped %d: %s\n", len(skipped), strings.Join(skipped, "; "))
	} else {
		fmt.Println("skipped: none")
	}
	if failed {
		os.Exit(1)
	}
}

// reason is the message a skipped test gave: its last line of output
// that is not a "=== RUN" or "--- SKIP" line, without the file:line.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		msg := strings.TrimSpace(lines[i])
		if msg == "" || strings.HasPrefix(msg, "=== ") || strings.HasPrefix(msg, "--- ") {
			continue
		}
		if file, after, ok := strings.Cut(msg, ": "); ok && strings.Contains(file, ".go:") {
			msg = after
		}
		return msg
	}
	return "no reason given"
}

func short(pkg string) string { return strings.TrimPrefix(pkg, "github.com/ragd/ragd/") }
