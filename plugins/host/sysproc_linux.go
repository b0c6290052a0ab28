//go:build linux

package host

import (
	"os/exec"
	"syscall"
)

// setPdeathsig has the kernel SIGKILL the plugin when the daemon dies,
// however it dies (a plugin also polls its parent pid; see plugins.Serve).
// The signal is tied to the thread that forked the child; Go threads only
// end when a goroutine locked to one exits, which ragd does not do.
func setPdeathsig(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// setProcessGroup starts the plugin in a process group of its own and has
// its cancellation kill the whole group: a plugin written as a script
// starts children (an interpreter, a sleep, a model server) that must not
// outlive it when it is killed for a timeout.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { killGroup(cmd); return nil }
}

// killGroup SIGKILLs the plugin's process group, its own process included
// (even once the plugin itself has exited, its children may live on).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}
