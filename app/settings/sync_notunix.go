//go:build !unix

package settings

func isSyncUnsupported(error) bool { return true }
