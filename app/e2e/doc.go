// Package e2e holds the end-to-end tests (build tag e2e, run by `make
// e2e`). They run the real hark binary (built with the e2e tag, which
// swaps only whisper for a scripted transcriber that insists on hearing
// sound) on a throwaway Linux desktop: Xvfb with a focused window, a private
// D-Bus session with a fake notification server and a fake tray host, a
// PulseAudio null sink as the microphone, and a fake Ollama. The tests drive
// it the way a person would: the hotkey through xdotool, speech through the
// sink, clicks through com.canonical.dbusmenu, buttons through
// ActionInvoked, and `hark send` from a shell.
package e2e
