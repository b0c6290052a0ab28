package otheruser

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReexecWithoutDAC, when the environment variable env is "1" and the
// process runs as root, re-executes the program without the capabilities
// that let root read any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so a
// folder of mode 000 is unreadable to it as to anyone: tests start the
// daemon this way to face an unreadable folder while running as root. It
// returns only when there is nothing to do (env unset, not root) or the
// capabilities cannot be dropped; call it first thing in TestMain.
func ReexecWithoutDAC(env string) {
	if os.Getenv(env) != "1" {
		return
	}
	os.Unsetenv(env)
	if os.Geteuid() != 0 {
		return // permissions already apply
	}
	runtime.LockOSThread() // the bounding set is per thread: exec from this one
	for _, c := range []uintptr{unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH} {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			runtime.UnlockOSThread()
			return
		}
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "/proc/self/exe"
	}
	syscall.Exec(exe, os.Args, os.Environ())
	runtime.UnlockOSThread()
}
