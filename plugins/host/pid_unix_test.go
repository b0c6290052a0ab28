//go:build unix

package host

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// alive says whether pid is a live process (a zombie counts as gone).
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) || !dirExists("/proc/self")
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func sigkill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
