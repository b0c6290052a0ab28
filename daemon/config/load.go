package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxFileSize bounds how much of a configuration file is read.
const maxFileSize = 1 << 20

// Load reads, defaults and validates the configuration file at path.
// Relative paths inside it are resolved against the file's directory.
//
// On failure the error is an Errors value listing every problem, each
// naming path (as given), the line and the key. A file that cannot be read
// yields Errors with one element that wraps the cause, so
// errors.Is(err, fs.ErrNotExist) tells a missing file apart.
func Load(path string) (*Config, error) { return LoadWith(path, nil) }

// LoadWith is Load that also checks the [[plugin]] entries naming a
// built-in backend against b (see Builtins).
func LoadWith(path string, b Builtins) (*Config, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("cannot read config file: %v", unwrapPathErr(err)), err: err}}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: err.Error(), err: err}}
	}
	cfg, err := parse(path, data, filepath.Dir(abs), b)
	if err != nil {
		return nil, err
	}
	cfg.File = abs
	return cfg, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return data, nil
}

// Parse is Load working on data that was read from file; file is used in
// error messages (and, made absolute, as Config.File) and baseDir resolves
// relative paths ("" means the working directory). Vault paths are checked
// on disk.
func Parse(file string, data []byte, baseDir string) (*Config, error) {
	return parse(file, data, baseDir, nil)
}

func parse(file string, data []byte, baseDir string, b Builtins) (*Config, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")) // byte order mark
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, syntaxError(file, data, err)
	}
	base, err := absDir(baseDir)
	if err != nil {
		return nil, Errors{{File: file, Msg: fmt.Sprintf("base directory: %v", err), err: err}}
	}
	v := &validator{errs: errList{file: file}, pos: scanPositions(data), baseDir: base, builtins: b}
	cfg := v.config(raw)
	if err := v.errs.result(); err != nil {
		return nil, err
	}
	if file != "" {
		if cfg.File, err = filepath.Abs(file); err != nil {
			cfg.File = file
		}
	}
	return cfg, nil
}

// syntaxError converts a decoding error into Errors with one element.
func syntaxError(file string, data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line := pe.Position.Line
		// When the offending character is a newline the library sometimes
		// counts it already ("[daemon" + newline is reported on line 2).
		if st := pe.Position.Start; st >= 0 && st < len(data) && data[st] == '\n' {
			if l := 1 + bytes.Count(data[:st], []byte("\n")); l == line-1 {
				line = l
			}
		}
		return Errors{{File: file, Line: line, Key: syntaxKey(data, line, pe.LastKey), Msg: "syntax error: " + pe.Message, err: err}}
	}
	// Decoding into a map only fails with a ParseError; keep anything
	// else readable all the same.
	return Errors{{File: file, Msg: err.Error(), err: err}}
}

// syntaxKey returns the library's "last key" if it plausibly is the key the
// error is about: its last segment appears on the error line. Otherwise it
// is a key from an earlier line (often the enclosing table) and would
// mislead.
func syntaxKey(data []byte, line int, lastKey string) string {
	if lastKey == "" || line < 1 {
		return ""
	}
	lines := bytes.Split(data, []byte("\n"))
	if line > len(lines) {
		return ""
	}
	seg := lastKey[strings.LastIndexByte(lastKey, '.')+1:]
	if !bytes.Contains(lines[line-1], []byte(strings.Trim(seg, `"`))) {
		return ""
	}
	return lastKey
}
