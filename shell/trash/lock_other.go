//go:build !unix

package trash

// lockFile is a no-op where the Trash is not supported anyway.
func lockFile(string) func() { return func() {} }
