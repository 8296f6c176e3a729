package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	srv := httptest.NewServer(mux)
	defer srv.Close()
	home := t.TempDir()
	t.Setenv("HARK_HOME", home)
	// A model path, not a catalog name: -first-run must not start a download
	// in builds that have whisper.cpp.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"whisperModel": "/nonexistent/ggml-test.bin"}`), 0o600); err != nil {
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
	for _, name := range []string{"Settings", "Data folders", "Microphone", "Speech recognition", "Whisper model", "Voice activity model", "Sandbox", "Notifications", "Spoken replies", "Tray", "Hotkey", "Launch at login"} {
		find(name)
	}
	if l := find("Ollama"); !strings.HasPrefix(l, "✓") || !strings.Contains(l, "9.9.9") {
		t.Errorf("Ollama line %q, want ✓ with the version", l)
	}
	if l := find("Ollama model"); !strings.HasPrefix(l, "✓") || !strings.Contains(l, "supports tools") {
		t.Errorf("Ollama model line %q", l)
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
