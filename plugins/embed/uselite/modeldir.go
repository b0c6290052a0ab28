package uselite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvModelDir names the environment variable that points at the model
// directory when the model_dir option is not set.
const EnvModelDir = "RAGD_MODEL_DIR"

// modelFiles are the files FindModelDir requires in a model directory.
var modelFiles = []string{"model.json", "vocab.json"}

// FindModelDir returns the directory holding the model files. It tries,
// in order: explicit (the model_dir option), $RAGD_MODEL_DIR, beside the
// running executable <bin>/../share/ragd/models/use-lite (where `make
// install` puts it) and <bin>/../models/use-lite (where `make models` puts
// it for a build in the source tree), then
// $XDG_DATA_HOME/ragd/models/use-lite (~/.local/share when XDG_DATA_HOME
// is unset). A directory given
// explicitly or by the environment must hold the model: FindModelDir does
// not look further when it does not.
func FindModelDir(explicit string) (string, error) {
	if explicit != "" {
		return checkModelDir(explicit, "model_dir")
	}
	if dir := os.Getenv(EnvModelDir); dir != "" {
		return checkModelDir(dir, EnvModelDir)
	}
	var tried []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		up := filepath.Dir(filepath.Dir(exe))
		tried = append(tried, filepath.Join(up, "share", "ragd", "models", "use-lite"), filepath.Join(up, "models", "use-lite"))
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		if home, err := os.UserHomeDir(); err == nil {
			data = filepath.Join(home, ".local", "share")
		}
	}
	if data != "" {
		tried = append(tried, filepath.Join(data, "ragd", "models", "use-lite"))
	}
	for _, dir := range tried {
		if hasModel(dir) == nil {
			return filepath.Clean(dir), nil
		}
	}
	return "", fmt.Errorf("uselite: model not found (looked in %s): `make install` in the ragd source tree installs it "+
		"with ragd (or `make models` for a build run from the tree); or set the model_dir option or $%s",
		strings.Join(tried, ", "), EnvModelDir)
}

func checkModelDir(dir, source string) (string, error) {
	if err := hasModel(dir); err != nil {
		return "", fmt.Errorf("uselite: %s=%s: %w: run `make models`, or fetch-model.sh into that directory", source, dir, err)
	}
	return filepath.Clean(dir), nil
}

func hasModel(dir string) error {
	for _, f := range modelFiles {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("no %s there", f)
			}
			return err
		}
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", f)
		}
	}
	return nil
}
