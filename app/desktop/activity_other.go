//go:build !darwin

package desktop

// BeginActivity does nothing here: only macOS naps apps that show no
// window.
func BeginActivity(string) (end func()) { return func() {} }
