package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Doc is one document as the peers index it: a whole note (or corpus
// document) with its title.
type Doc struct {
	ID    string // vault-relative slash path, or the BEIR corpus id
	Title string // the note's file name without its extension, or the BEIR title
	Body  string // the whole file, frontmatter included, or the BEIR text
}

// noteExts are the files the peers index in a vault: ragd's text formats
// (its extracted formats, PDF, DOCX and HTML, are left out).
var noteExts = map[string]bool{".md": true, ".markdown": true, ".txt": true}

// skippedDirs are skipped at any depth, as ragd skips them by default.
var skippedDirs = map[string]bool{".obsidian": true, ".git": true, ".trash": true, "node_modules": true}

// IsNote reports whether a vault-relative slash path is a file the peers
// index.
func IsNote(rel string) bool {
	if !noteExts[strings.ToLower(path.Ext(rel))] {
		return false
	}
	for _, dir := range strings.Split(path.Dir(rel), "/") {
		if skippedDirs[dir] {
			return false
		}
	}
	return true
}

// VaultDocs calls fn for every note of the vault under root, in lexical
// order of path, reading one file at a time.
func VaultDocs(root string) func(func(Doc) error) error {
	return func(fn func(Doc) error) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && skippedDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if !d.Type().IsRegular() || !IsNote(rel) {
				return nil
			}
			doc, ok, err := VaultDoc(root, rel)
			if err != nil || !ok {
				return err
			}
			return fn(doc)
		})
	}
}

// VaultDoc reads one note; ok is false when it does not exist.
func VaultDoc(root, rel string) (Doc, bool, error) {
	if !IsNote(rel) || strings.HasPrefix(path.Clean(rel), "../") || path.IsAbs(rel) {
		return Doc{}, false, fmt.Errorf("%q is not a note path in the vault", rel)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return Doc{}, false, nil
	}
	if err != nil {
		return Doc{}, false, err
	}
	base := path.Base(rel)
	return Doc{ID: rel, Title: strings.TrimSuffix(base, path.Ext(base)), Body: string(b)}, true, nil
}

// BEIRDocs calls fn for every document of a BEIR corpus.jsonl file.
func BEIRDocs(corpus string) func(func(Doc) error) error {
	return func(fn func(Doc) error) error {
		return EachJSONLine(corpus, func(line []byte) error {
			var d struct {
				ID    string `json:"_id"`
				Title string `json:"title"`
				Text  string `json:"text"`
			}
			if err := json.Unmarshal(line, &d); err != nil {
				return err
			}
			return fn(Doc{ID: d.ID, Title: d.Title, Body: d.Text})
		})
	}
}

// EachJSONLine calls fn with every non-blank line of a JSON-lines file
// (a BEIR corpus or queries file); an error fn returns is prefixed with
// the file and line number.
func EachJSONLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(line); ferr != nil {
				return fmt.Errorf("%s:%d: %w", path, n, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
