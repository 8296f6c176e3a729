// Package settings holds Hark's user settings, the places on disk where Hark
// keeps its files, and the atomic-write helpers every writer uses so that a
// crash never leaves a half-written file behind.
package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Paths are the files and folders Hark reads and writes. When HARK_HOME is set
// everything lives under it; otherwise the OS conventions apply: macOS keeps
// data in ~/Library/Application Support/Hark and logs in ~/Library/Logs/Hark,
// Linux follows the XDG base directories (config, data, state).
type Paths struct {
	Settings string // settings.json
	Models   string // downloaded whisper models
	History  string // one JSON file per conversation
	Audit    string // append-only JSON lines of command decisions
	Logs     string // folder of hark.log and its rotations
	Runtime  string // control socket and lock; private to the user
}

// DefaultPaths resolves Paths from the environment.
func DefaultPaths() (Paths, error) {
	return pathsFor(runtime.GOOS, os.Getenv)
}

func pathsFor(goos string, getenv func(string) string) (Paths, error) {
	if h := getenv("HARK_HOME"); h != "" {
		h, err := filepath.Abs(h)
		if err != nil {
			return Paths{}, fmt.Errorf("HARK_HOME: %w", err)
		}
		return Paths{
			Settings: filepath.Join(h, "settings.json"),
			Models:   filepath.Join(h, "models"),
			History:  filepath.Join(h, "history"),
			Audit:    filepath.Join(h, "audit.jsonl"),
			Logs:     filepath.Join(h, "logs"),
			Runtime:  runtimeDir(goos, getenv, h),
		}, nil
	}
	home := getenv("HOME")
	if home == "" {
		return Paths{}, errors.New("neither HARK_HOME nor HOME is set; set HARK_HOME to a folder Hark may write to")
	}
	if goos == "darwin" {
		support := filepath.Join(home, "Library", "Application Support", "Hark")
		return Paths{
			Settings: filepath.Join(support, "settings.json"),
			Models:   filepath.Join(support, "models"),
			History:  filepath.Join(support, "history"),
			Audit:    filepath.Join(support, "audit.jsonl"),
			Logs:     filepath.Join(home, "Library", "Logs", "Hark"),
			Runtime:  runtimeDir(goos, getenv, support),
		}, nil
	}
	xdg := func(name, fallback string) string {
		if v := getenv(name); filepath.IsAbs(v) {
			return filepath.Join(v, "hark")
		}
		return filepath.Join(home, fallback, "hark")
	}
	config, data, state := xdg("XDG_CONFIG_HOME", ".config"), xdg("XDG_DATA_HOME", ".local/share"), xdg("XDG_STATE_HOME", ".local/state")
	return Paths{
		Settings: filepath.Join(config, "settings.json"),
		Models:   filepath.Join(data, "models"),
		History:  filepath.Join(state, "history"),
		Audit:    filepath.Join(state, "audit.jsonl"),
		Logs:     state,
		Runtime:  runtimeDir(goos, getenv, state),
	}, nil
}

// runtimeDir is where the control socket lives: $XDG_RUNTIME_DIR/hark on Linux
// when the session provides one, else a folder beside Hark's own files.
func runtimeDir(goos string, getenv func(string) string, fallback string) string {
	if goos != "darwin" {
		if v := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(v) {
			return filepath.Join(v, "hark")
		}
	}
	return filepath.Join(fallback, "run")
}
