package uselite

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd/plugins"
)

// fakeModelDir makes a directory that FindModelDir accepts.
func fakeModelDir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(append([]string{t.TempDir()}, parts...)...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range modelFiles {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindModelDir(t *testing.T) {
	explicit := fakeModelDir(t)
	env := fakeModelDir(t)
	xdg := fakeModelDir(t, "ragd", "models", "use-lite")
	xdgHome := filepath.Dir(filepath.Dir(filepath.Dir(xdg)))
	empty := t.TempDir()

	t.Setenv(EnvModelDir, env)
	t.Setenv("XDG_DATA_HOME", xdgHome)
	if got, err := FindModelDir(explicit); err != nil || got != explicit {
		t.Errorf("explicit: %q, %v", got, err)
	}
	if _, err := FindModelDir(empty); err == nil || !strings.Contains(err.Error(), "make models") {
		t.Errorf("explicit without a model: %v", err)
	}
	if got, err := FindModelDir(""); err != nil || got != env {
		t.Errorf("env: %q, %v", got, err)
	}
	t.Setenv(EnvModelDir, empty)
	if _, err := FindModelDir(""); err == nil {
		t.Error("env without a model: no error")
	}
	t.Setenv(EnvModelDir, "")
	if got, err := FindModelDir(""); err != nil || got != xdg {
		t.Errorf("XDG_DATA_HOME: %q, %v", got, err)
	}
	t.Setenv("XDG_DATA_HOME", empty)
	_, err := FindModelDir("")
	if err == nil || !strings.Contains(err.Error(), "make models") {
		t.Errorf("nothing found: %v", err)
	}
}

func TestConfigureRejectsBadOptions(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []plugins.Options{
		{"modle_dir": "x"},
		{"model_dir": 3.0},
		{"threads": "two"},
		{"threads": 1.5},
		{"threads": -1.0},
		{"model_dir": t.TempDir()},
	} {
		if err := New().Configure(ctx, opts); err == nil {
			t.Errorf("Configure(%v): no error", opts)
		}
	}
}

func TestEmbedder(t *testing.T) {
	dir := testModelDir(t)
	ctx := context.Background()
	e := New()
	if err := e.Configure(ctx, plugins.Options{"model_dir": dir, "threads": 2.0}); err != nil {
		t.Fatal(err)
	}
	info, err := e.EmbedderInfo(ctx)
	if err != nil || info.Name != "uselite" || info.Dimensions != 512 || info.MaxInputTokens != 128 || !info.Normalized {
		t.Fatalf("EmbedderInfo = %+v, %v", info, err)
	}
	texts := []string{"first", "second text", "", longText(300)}
	// Concurrent calls share the model.
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vs, err := e.Embed(ctx, plugins.InputDocument, texts)
			if err != nil {
				t.Error(err)
				return
			}
			if len(vs) != len(texts) {
				t.Errorf("%d vectors for %d texts", len(vs), len(texts))
				return
			}
			for i, v := range vs {
				var n float64
				for _, x := range v {
					n += float64(x) * float64(x)
				}
				if len(v) != info.Dimensions || math.Abs(n-1) > 1e-5 {
					t.Errorf("vector %d: %d dimensions, |v|² = %g", i, len(v), n)
				}
			}
		}()
	}
	wg.Wait()
	if vs, err := e.Embed(ctx, plugins.InputQuery, nil); err != nil || len(vs) != 0 {
		t.Errorf("empty batch: %v, %v", vs, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Embed(cancelled, plugins.InputQuery, texts); err == nil {
		t.Error("no error for a cancelled context")
	}
}
