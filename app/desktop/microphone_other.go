//go:build !darwin

package desktop

// MicrophoneQuestion is nil: only macOS asks the user before an app may
// record (elsewhere the sound server decides, and silence detection
// reports a muted source).
func MicrophoneQuestion() func() (bool, error) { return nil }
