package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd/plugins"
)

// Environment of the test plugin: the daemon under test starts this test
// binary as an extractor plugin with RAGD_TEST_PLUGIN=hang-extractor.
const (
	envTestPlugin    = "RAGD_TEST_PLUGIN"
	envTestPluginDir = "RAGD_TEST_PLUGIN_DIR" // where the plugin keeps its markers
	hangExtractor    = "hang-extractor"
)

// init serves the test plugin before anything else runs (TestMain
// included), so the test binary can also be an out-of-tree plugin
// without a change to TestMain.
func init() {
	name := os.Getenv(envTestPlugin)
	if name != hangExtractor && name != vocabEmbedderName {
		return
	}
	if !plugins.IsPluginProcess() {
		fmt.Fprintf(os.Stderr, "%s=%s: not started by a ragd host\n", envTestPlugin, name)
		os.Exit(2)
	}
	if name == vocabEmbedderName {
		plugins.Serve(plugins.KindEmbedder, &vocabEmbedder{dir: os.Getenv(envTestPluginDir)})
	} else {
		plugins.Serve(plugins.KindExtractor, &hangingExtractor{dir: os.Getenv(envTestPluginDir)})
	}
	os.Exit(0)
}

// hangingExtractor takes .hang files as plain text, except that it hangs
// (ignoring its context, as a stuck parser would) on a file holding
// "HANG", and on the first call only for a file holding "FLAKY" (a marker
// file per path in dir remembers the first call across restarts); on a
// file holding "CRASH<n>" the process exits on the first n calls.
type hangingExtractor struct{ dir string }

func (x *hangingExtractor) ExtractorInfo(context.Context) (plugins.ExtractorInfo, error) {
	return plugins.ExtractorInfo{Name: "hang-test", Version: "1", Extensions: []string{".hang"}}, nil
}

func (x *hangingExtractor) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	if i := bytes.Index(req.Data, []byte("CRASH")); i >= 0 && x.dir != "" {
		n := int(req.Data[i+5] - '0')
		counter := filepath.Join(x.dir, strings.ReplaceAll(req.Path, "/", "_")+".calls")
		b, _ := os.ReadFile(counter)
		calls := len(b) + 1
		os.WriteFile(counter, bytes.Repeat([]byte("x"), calls), 0o600)
		if calls <= n {
			os.Exit(7) // a crash in the middle of the call
		}
	}
	hang := bytes.Contains(req.Data, []byte("HANG"))
	if bytes.Contains(req.Data, []byte("FLAKY")) {
		if x.dir == "" {
			return plugins.Extraction{}, errors.New("FLAKY needs " + envTestPluginDir)
		}
		marker := filepath.Join(x.dir, strings.ReplaceAll(req.Path, "/", "_")+".seen")
		f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		switch {
		case err == nil:
			f.Close()
			hang = true // the first call
		case !errors.Is(err, fs.ErrExist):
			return plugins.Extraction{}, err
		}
	}
	if hang {
		time.Sleep(time.Hour)
	}
	return plugins.Extraction{Text: string(req.Data), Format: plugins.FormatText}, nil
}
