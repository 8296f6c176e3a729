//go:build !linux

package sandbox

// memFileMain has no memory files to make here.
func memFileMain(string, string) int { return 2 }
