//go:build !linux

package shell

const harkExitTest = "__hark_exit_test"

// harkExitMain is only needed where the zygote exists.
func harkExitMain([]string) int { return 2 }
func escapeMain([]string) int   { return 2 }
