package uselite

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// EnvRequireModels makes the tests that need the model fail, instead of
// skip, when it is missing (CI sets it).
const envRequireModels = "RAGD_REQUIRE_MODELS"

// testModelDir returns $RAGD_MODEL_DIR or <repo>/models/use-lite, or
// skips the test when the model is not there.
func testModelDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvModelDir)
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "models", "use-lite")
	}
	if err := hasModel(dir); err != nil {
		if os.Getenv(envRequireModels) == "1" {
			t.Fatalf("model not found in %s (%v) and %s=1: run make models", dir, err, envRequireModels)
		}
		t.Skip("model not found: run make models")
	}
	return dir
}

var (
	loadOnce  sync.Once
	loadedTok *Tokenizer
	loadedM   *Model
	loadErr   error
)

// testModel loads the tokenizer and the model once for all tests.
func testModel(t testing.TB) (*Tokenizer, *Model) {
	t.Helper()
	dir := testModelDir(t)
	loadOnce.Do(func() {
		loadedTok, loadErr = LoadTokenizer(filepath.Join(dir, "vocab.json"))
		if loadErr == nil {
			loadedM, loadErr = LoadModel(dir)
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loadedTok, loadedM
}

// reference is testdata/reference.json (see make-reference.mjs).
type reference struct {
	Source    string `json:"source"`
	Backend   string `json:"backend"`
	Sentences []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float64 `json:"vector"`
	} `json:"sentences"`
	Tokens []struct {
		Text string  `json:"text"`
		IDs  []int32 `json:"ids"`
	} `json:"tokens"`
}

func loadReference(t testing.TB) reference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

func cosine(a []float32, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func cosine32(a, b []float32) float64 {
	b64 := make([]float64, len(b))
	for i, v := range b {
		b64[i] = float64(v)
	}
	return cosine(a, b64)
}
