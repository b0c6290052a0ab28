package daemon

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"strings"
)

// staleChecker returns a function reporting whether a result's file
// changed since it was indexed, so a citation is flagged rather than
// silently wrong. Size and modification time equal to the indexed ones
// mean unchanged; otherwise the content hash decides. Answers are cached
// for the returned function's lifetime (one request).
func (d *Daemon) staleChecker() func(vault, rel string) bool {
	cache := map[[2]string]bool{}
	return func(vault, rel string) bool {
		key := [2]string{vault, rel}
		if v, ok := cache[key]; ok {
			return v
		}
		stale := d.isStale(vault, rel)
		cache[key] = stale
		return stale
	}
}

func (d *Daemon) isStale(vault, rel string) bool {
	doc, err := d.store.Document(vault, rel)
	if err != nil || doc == nil {
		return true // removed since the search ranked it
	}
	abs := d.absPath(vault, rel)
	fi, err := os.Stat(abs)
	if err != nil {
		return true
	}
	if fi.Size() == doc.Size && fi.ModTime().UTC().Equal(doc.ModTime) {
		return false
	}
	f, err := os.Open(abs)
	if err != nil {
		return true
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return true
	}
	return hex.EncodeToString(h.Sum(nil)) != doc.Hash
}

// readLines returns lines from..to (1-based, inclusive) of a text file,
// joined by "\n". Extracted documents (PDF, ...) have no text lines on
// disk: ok is false for them and the indexed text stands.
func readLines(abs string, from, to int, extracted bool) (string, bool) {
	if extracted || from < 1 || to < from {
		return "", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var b strings.Builder
	for n := 1; sc.Scan(); n++ {
		if n < from {
			continue
		}
		if n > to {
			break
		}
		if n > from {
			b.WriteByte('\n')
		}
		b.Write(sc.Bytes())
		if n == to {
			return b.String(), true
		}
	}
	return "", false
}
