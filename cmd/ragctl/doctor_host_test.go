package main

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckInotify(t *testing.T) {
	tests := []struct {
		name               string
		host               doctorHost
		vaults             int
		wantStatus         string
		wantDetail, wantFx string
	}{
		{name: "not linux", host: doctorHost{goos: "darwin"}, vaults: 1, wantStatus: checkSkip, wantDetail: "not checked (not Linux)"},
		{name: "no proc", host: fakeHost(t, "", "", 0), vaults: 1, wantStatus: checkSkip, wantDetail: "cannot read "},
		{name: "garbage", host: fakeHost(t, "lots", "128", 0), vaults: 1, wantStatus: checkSkip, wantDetail: `"lots" is not a number`},
		{name: "fine", host: fakeHost(t, "65536", "128", 0), vaults: 8, wantStatus: checkOK, wantDetail: "max_user_watches 65536; max_user_instances 128"},
		{name: "under the floor", host: fakeHost(t, "65535", "128", 0), vaults: 1, wantStatus: checkWarn,
			wantDetail: "max_user_watches 65535, under the 65536 ragd wants for 1 vault (one watch per folder); max_user_instances 128",
			wantFx:     "raise it now with `sudo sysctl fs.inotify.max_user_watches=524288` and keep it across reboots with `echo fs.inotify.max_user_watches=524288 | sudo tee /etc/sysctl.d/90-ragd-max-user-watches.conf`; then restart ragd"},
		{name: "many vaults", host: fakeHost(t, "65536", "128", 0), vaults: 9, wantStatus: checkWarn,
			wantDetail: "under the 73728 ragd wants for 9 vaults"},
		{name: "huge vault count", host: fakeHost(t, "524288", "1000", 0), vaults: 100, wantStatus: checkWarn,
			wantFx: "fs.inotify.max_user_watches=819200"},
		{name: "few instances", host: fakeHost(t, "524288", "2", 0), vaults: 3, wantStatus: checkWarn,
			wantDetail: "max_user_watches 524288; max_user_instances 2, under the 3 ragd needs (one per vault)", wantFx: "fs.inotify.max_user_instances=128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkInotify(tt.host, tt.vaults)
			if c.Status != tt.wantStatus || !strings.Contains(c.Detail, tt.wantDetail) || !strings.Contains(c.Fix, tt.wantFx) {
				t.Errorf("got %+v, want status %s, detail with %q, fix with %q", c, tt.wantStatus, tt.wantDetail, tt.wantFx)
			}
			if (c.Status == checkWarn) != (c.Fix != "") {
				t.Errorf("status %s with fix %q", c.Status, c.Fix)
			}
		})
	}
}

func TestCheckDisk(t *testing.T) {
	const dataDir = "/home/u/.local/share/ragd"
	free := func(n uint64) func(string) (uint64, error) {
		return func(string) (uint64, error) { return n, nil }
	}
	tests := []struct {
		name                   string
		freeSpace              func(string) (uint64, error)
		wantStatus, wantDetail string
	}{
		{"plenty", free(42 << 30), checkOK, "42.0 GiB free for the data dir " + dataDir},
		{"just enough", free(1 << 30), checkOK, "1.0 GiB free"},
		{"low", free(1<<30 - 1), checkWarn, "1024 MiB free for the data dir " + dataDir + " (under 1.0 GiB)"},
		{"very low", free(100<<20 - 1), checkFail, "100 MiB free for the data dir " + dataDir + " (under 100 MiB: indexing will fail)"},
		{"empty", free(512), checkFail, "0 KiB free"},
		{"unsupported", func(string) (uint64, error) { return 0, errors.ErrUnsupported }, checkSkip, "not checked on linux"},
		{"error", func(string) (uint64, error) {
			return 0, &fs.PathError{Op: "statfs", Path: dataDir, Err: syscall.EACCES}
		},
			checkWarn, "cannot tell the free space of " + dataDir + ": permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkDisk(doctorHost{goos: "linux", freeSpace: tt.freeSpace}, dataDir)
			if c.Status != tt.wantStatus || !strings.Contains(c.Detail, tt.wantDetail) {
				t.Errorf("got %+v, want status %s and detail with %q", c, tt.wantStatus, tt.wantDetail)
			}
			if (c.Status == checkWarn || c.Status == checkFail) && c.Fix == "" && tt.name != "error" {
				t.Errorf("%s without a fix", c.Status)
			}
		})
	}

	// A data dir that does not exist yet: its nearest existing parent's
	// filesystem is measured.
	var asked []string
	host := doctorHost{goos: "linux", freeSpace: func(p string) (uint64, error) {
		asked = append(asked, p)
		if p != "/home/u" {
			return 0, syscall.ENOENT
		}
		return 5 << 30, nil
	}}
	c := checkDisk(host, dataDir)
	if c.Status != checkOK || strings.Join(asked, " ") != dataDir+" /home/u/.local/share /home/u/.local /home/u" {
		t.Errorf("got %+v after asking %q", c, asked)
	}
}

// The real host: statfs works on the test's own directory.
func TestStatfsFree(t *testing.T) {
	n, err := statfsFree(t.TempDir())
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil || n == 0 {
		t.Errorf("statfsFree = %d, %v", n, err)
	}
	if _, err := statfsFree(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("statfsFree of a missing directory: %v, want ErrNotExist", err)
	}
}
