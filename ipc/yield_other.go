//go:build !unix

package ipc

// pollBufs is empty where poll(2) is missing: Yield never waits there.
type pollBufs struct{}

func (l *Listener) pollUnread() bool { return false }
