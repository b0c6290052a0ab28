package otheruser

import (
	"net"
	"runtime"

	"golang.org/x/sys/unix"
)

const supported = true

// Listen creates a Unix socket listener at path with uid's credentials: the
// socket file belongs to uid and the kernel reports uid as the listener's
// peer credentials (SO_PEERCRED), exactly as for a process of that user.
// The work runs on an OS thread whose effective uid alone is changed; the
// thread is never unlocked, so it ends with its goroutine and nothing else
// ever runs with those credentials. The caller must be root.
func Listen(uid int, path string) (*net.UnixListener, error) {
	type result struct {
		ln  *net.UnixListener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
		none := ^uintptr(0)    // -1: leave unchanged
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, none, uintptr(uid), none); e != 0 {
			ch <- result{err: e}
			return
		}
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, none, uintptr(uid), none); e != 0 {
			ch <- result{err: e}
			return
		}
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		ch <- result{ln, err}
	}()
	r := <-ch
	return r.ln, r.err
}
