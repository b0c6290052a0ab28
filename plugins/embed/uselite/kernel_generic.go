//go:build !amd64 || purego

package uselite

// archKernels: there is no assembly kernel for this build.
func archKernels() []microKernel { return nil }
