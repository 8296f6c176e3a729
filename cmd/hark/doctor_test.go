package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/hotkey"
	"github.com/hark-sh/hark/speech/whisper"
)

// TestDoctorCLI runs the real wiring against a fake Ollama, with no desktop
// session: Ollama's lines pass, the desktop's fail with their fixes, and the
// exit code says something required is missing.
func TestDoctorCLI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"version": "9.9.9"})
	})
	mux.HandleFunc("/api/show", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"capabilities": []string{"completion", "tools"}})
	})
	// The model is loaded, 3.4 of its 6.1 GB in GPU memory.
	mux.HandleFunc("/api/ps", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"models": []map[string]any{
			{"name": "qwen3:8b", "model": "qwen3:8b", "size": 6_100_000_000, "size_vram": 3_400_000_000}}})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	home := t.TempDir()
	t.Setenv("HARK_HOME", home)
	// A model path, not a catalog name: -first-run must not start a download
	// in builds that have whisper.cpp.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"whisperModel": "/nonexistent/ggml-test.bin", "ollamaModel": "qwen3:8b"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("OLLAMA_HOST", srv.URL)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")

	r := runCLI("doctor", "-timeout", "5s")
	if r.code != exitError {
		t.Errorf("exit %d, want %d (no desktop session here)\n%s", r.code, exitError, r.stdout)
	}
	lines := strings.Split(r.stdout, "\n")
	find := func(name string) string {
		for _, l := range lines {
			if strings.Contains(l, " "+name+" ") {
				return l
			}
		}
		t.Errorf("no line for %q in:\n%s", name, r.stdout)
		return ""
	}
	names := []string{"Settings", "Data folders", "Microphone", "Speech recognition", "Sandbox", "Notifications", "Spoken replies", "Tray", "Hotkey", "Launch at login"}
	if whisper.Available() {
		names = append(names, "Whisper model", "Voice activity model")
	}
	for _, name := range names {
		find(name)
	}
	if l := find("Ollama"); !strings.HasPrefix(l, "✓") || !strings.Contains(l, "9.9.9") {
		t.Errorf("Ollama line %q, want ✓ with the version", l)
	}
	if l := find("Ollama model"); !strings.HasPrefix(l, "✓") || !strings.Contains(l, "supports tools") {
		t.Errorf("Ollama model line %q", l)
	}
	if l := find("Model in GPU memory"); strings.HasPrefix(l, "✓") || !strings.Contains(l, "runs partly on the CPU: 3.4 GB of 6.1 GB in GPU memory (44% on the CPU)") || !strings.Contains(l, agent.DefaultModel) {
		t.Errorf("GPU line %q, want the numbers and a smaller model", l)
	}
	if l := find("Settings"); !strings.HasPrefix(l, "✓") {
		t.Errorf("Settings line %q", l)
	}
	if l := find("Hotkey"); !strings.HasPrefix(l, "✗") || !strings.Contains(l, "→") {
		t.Errorf("Hotkey line %q, want ✗ with a fix (no display)", l)
	}

	// -first-run never fails, so `make run` goes on to start the app.
	if r := runCLI("doctor", "-first-run", "-timeout", "5s"); r.code != exitOK {
		t.Errorf("-first-run exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("doctor", "extra"); r.code != exitUsage {
		t.Errorf("extra argument: exit %d, want %d", r.code, exitUsage)
	}
}

// TestDoctorDoesNotBlameHarksOwnHotkey: while a Hark app listens on the
// control socket, the hotkey it holds is not reported as taken; without
// one, the probe's own answer stands.
func TestDoctorDoesNotBlameHarksOwnHotkey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	taken := func(context.Context, string) (string, error) {
		return "", fmt.Errorf("ctrl+alt+space: %w", hotkey.ErrTaken)
	}
	noPortal := func(context.Context, string) (string, error) { return "", errors.New("no portal: bind hark listen") }
	if _, err := hotkeyProbe(context.Background(), dir, "ctrl+alt+space", taken); err == nil {
		t.Fatal("no Hark running: the probe's error was swallowed")
	}
	srv, err := control.Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	msg, err := hotkeyProbe(context.Background(), dir, "ctrl+alt+space", taken)
	if err != nil || !strings.Contains(msg, "running Hark") {
		t.Errorf("with Hark running: %q, %v; want it named as Hark's own", msg, err)
	}
	// Only "taken" is explained away: a hotkey that cannot be grabbed at
	// all is still a problem while Hark runs.
	if _, err := hotkeyProbe(context.Background(), dir, "ctrl+alt+space", noPortal); err == nil {
		t.Error("with Hark running, a missing portal was hidden")
	}
}

// TestVoicePartsRequiredOnlyWhenUsable: a build without whisper.cpp cannot
// use a microphone or a whisper model, so they are ⚠ lines, not ✗ ones
// counted among the "required things missing".
func TestVoicePartsRequiredOnlyWhenUsable(t *testing.T) {
	t.Setenv("HARK_HOME", t.TempDir())
	paths, st, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range doctorChecks(paths, st, nil, doctorOptions{whisper: whisper.Available()}) {
		if c.Name == "Speech recognition" && c.Required {
			t.Error("Speech recognition is counted among the required things, yet voice input is optional")
		}
		if (c.Name == "Microphone" || c.Name == "Whisper model") && c.Required != whisper.Available() {
			t.Errorf("%s: Required = %v in a build where whisper.Available() = %v", c.Name, c.Required, whisper.Available())
		}
	}
}

// TestDoctorSpeaksToUsers: a build without whisper.cpp is not told to
// download speech models it cannot use, and the Sandbox line says what
// the sandbox means for commands in plain words; the kernel's terms
// (Landlock, namespaces) are there only under -v.
func TestDoctorSpeaksToUsers(t *testing.T) {
	t.Setenv("HARK_HOME", t.TempDir())
	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	findSandbox := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " Sandbox ") {
				return l
			}
		}
		t.Fatalf("no Sandbox line in:\n%s", out)
		return ""
	}
	r := runCLI("doctor", "-timeout", "3s")
	if !whisper.Available() {
		for _, bad := range []string{"hark models download", "Whisper model", "Voice activity model"} {
			if strings.Contains(r.stdout, bad) {
				t.Errorf("a build without whisper.cpp is told about %q:\n%s", bad, r.stdout)
			}
		}
	}
	l := findSandbox(r.stdout)
	if strings.HasPrefix(l, "✓") {
		for _, jargon := range []string{"Landlock", "ABI", "namespace", "seccomp", "Seatbelt"} {
			if strings.Contains(l, jargon) {
				t.Errorf("the Sandbox line speaks the kernel's terms (%q) without -v:\n%s", jargon, l)
			}
		}
		if !strings.Contains(l, "read-only commands cannot change anything") {
			t.Errorf("the Sandbox line does not say what it means for commands:\n%s", l)
		}
	}
	// -v keeps the detail for whoever wants it.
	ok := func(context.Context) (string, error) { return "Landlock ABI 7: read-only files", nil }
	if got, _ := sandboxLine(context.Background(), ok, true); !strings.Contains(got, "Landlock ABI 7") || !strings.HasPrefix(got, sandboxPlain) {
		t.Errorf("-v: %q", got)
	}
	if got, _ := sandboxLine(context.Background(), ok, false); got != sandboxPlain {
		t.Errorf("without -v: %q", got)
	}
}
