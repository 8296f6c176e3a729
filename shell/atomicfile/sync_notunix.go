//go:build !unix

package atomicfile

func isSyncUnsupported(error) bool { return true }
