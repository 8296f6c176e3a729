// Package app is the core of the Hark menu-bar app, in pure Go. One event
// loop (App.Run) owns all state: it reads key presses, menu clicks, approval
// answers, control-socket requests and turn progress from a single channel,
// runs each turn (record → transcribe → agent) in its own goroutine under a
// cancellable context, and hands a freshly built Menu to the tray after every
// change. Everything that touches the desktop, the microphone or the model is
// behind the small interfaces in interfaces.go, so the whole core is tested
// with hand-written fakes.
//
// The package also holds the pieces cmd/hark wires around the loop: the
// single-instance lock, the control socket behind `hark send`, and the
// startup checks (settings, Ollama, the login shell's PATH on macOS).
package app
