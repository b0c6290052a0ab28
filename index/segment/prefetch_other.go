//go:build !(amd64 || arm64) || purego

package segment

// prefetch is a no-op where ragd has no prefetch instruction for it.
func prefetch(uintptr) {}
