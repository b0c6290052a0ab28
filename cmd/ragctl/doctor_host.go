package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checkInotify checks the Linux inotify limits against the number of
// vaults.
func checkInotify(host doctorHost, vaults int) check {
	c := check{Name: "inotify"}
	if host.goos != "linux" {
		c.Status, c.Detail = checkSkip, "not checked (not Linux)"
		return c
	}
	dir := filepath.Join(host.procRoot, "sys", "fs", "inotify")
	watches, err := readProcInt(filepath.Join(dir, "max_user_watches"))
	if err != nil {
		c.Status, c.Detail = checkSkip, err.Error()
		return c
	}
	instances, err := readProcInt(filepath.Join(dir, "max_user_instances"))
	if err != nil {
		c.Status, c.Detail = checkSkip, err.Error()
		return c
	}
	c.Status = checkOK
	watchNote := fmt.Sprintf("max_user_watches %d", watches)
	instanceNote := fmt.Sprintf("max_user_instances %d", instances)
	var fixes []string
	if need := max(minWatches, watchesPerVault*vaults); watches < int64(need) {
		c.Status = checkWarn
		watchNote += fmt.Sprintf(", under the %d ragd wants for %s (one watch per folder)", need, plural(vaults, "vault"))
		fixes = append(fixes, sysctlFix("max_user_watches", max(suggestedWatches, need)))
	}
	if instances < int64(vaults) {
		c.Status = checkWarn
		instanceNote += fmt.Sprintf(", under the %d ragd needs (one per vault)", vaults)
		fixes = append(fixes, sysctlFix("max_user_instances", max(128, 2*vaults)))
	}
	c.Detail = watchNote + "; " + instanceNote
	if len(fixes) > 0 {
		c.Fix = strings.Join(fixes, "; ") + "; then restart ragd"
	}
	return c
}

// sysctlFix says how to raise fs.inotify.key to n now and after reboots.
func sysctlFix(key string, n int) string {
	kv := fmt.Sprintf("fs.inotify.%s=%d", key, n)
	return fmt.Sprintf("raise it now with `sudo sysctl %s` and keep it across reboots with `echo %s | sudo tee /etc/sysctl.d/90-ragd-%s.conf`",
		kv, kv, strings.ReplaceAll(key, "_", "-"))
}

// readProcInt reads a file holding one integer, like /proc/sys entries.
func readProcInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot read %s: %q is not a number", path, strings.TrimSpace(string(b)))
	}
	return n, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkDisk checks the free space of the filesystem holding the data dir
// (or, until it exists, its nearest existing parent).
func checkDisk(host doctorHost, dataDir string) check {
	c := check{Name: "disk"}
	dir := dataDir
	free, err := host.freeSpace(dir)
	for errors.Is(err, fs.ErrNotExist) && filepath.Dir(dir) != dir {
		dir = filepath.Dir(dir)
		free, err = host.freeSpace(dir)
	}
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		c.Status, c.Detail = checkSkip, "not checked on "+host.goos
		return c
	case err != nil:
		c.Status, c.Detail = checkWarn, fmt.Sprintf("cannot tell the free space of %s: %v", dataDir, unwrapPath(err))
		return c
	}
	c.Detail = fmt.Sprintf("%s free for the data dir %s", formatBytes(free), dataDir)
	fix := "free some space on that filesystem, or move the index elsewhere (daemon.data_dir in ragd.toml) and restart ragd"
	switch {
	case free < diskFailBytes:
		c.Status, c.Fix = checkFail, fix
		c.Detail += fmt.Sprintf(" (under %s: indexing will fail)", formatBytes(diskFailBytes))
	case free < diskWarnBytes:
		c.Status, c.Fix = checkWarn, fix
		c.Detail += fmt.Sprintf(" (under %s)", formatBytes(diskWarnBytes))
	default:
		c.Status = checkOK
	}
	return c
}

// formatBytes prints n in GiB, MiB or KiB.
func formatBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 0, 64) + " MiB"
	default:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 0, 64) + " KiB"
	}
}
