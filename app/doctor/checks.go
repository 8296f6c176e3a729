package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/settings"
)

// Settings reports whether the settings file loaded. loadErr is what
// settings.Load returned (doctor loads once and uses the defaults for the
// other checks when the file is broken).
func Settings(path string, loadErr error) Check {
	return Check{Name: "Settings", Required: true, Run: func(context.Context) Result {
		if loadErr != nil {
			return Result{Status: Fail, Detail: loadErr.Error(),
				Fix: fmt.Sprintf("edit %s and fix that key (the README lists every key), or move the file aside to start from the defaults", path)}
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return Result{Status: OK, Detail: fmt.Sprintf("no file yet, using the defaults (%s)", path)}
		}
		return Result{Status: OK, Detail: path}
	}}
}

// Folders checks Hark can create and write every folder it keeps files in,
// by writing and removing a probe file in each.
func Folders(p settings.Paths) Check {
	dirs := []string{filepath.Dir(p.Settings), p.Models, p.History, filepath.Dir(p.Audit), p.Logs, p.Runtime}
	return Check{Name: "Data folders", Required: true, Run: func(context.Context) Result {
		seen := map[string]bool{}
		var list []string
		for _, d := range dirs {
			if d == "" || seen[d] {
				continue
			}
			seen[d] = true
			list = append(list, d)
			if err := probeWritable(d); err != nil {
				return Result{Status: Fail, Detail: fmt.Sprintf("cannot write in %s: %v", d, err),
					Fix: fmt.Sprintf("make it yours and writable (chmod u+rwx %q), or set HARK_HOME to a folder you own", d)}
			}
		}
		if h := os.Getenv("HARK_HOME"); h != "" {
			return Result{Status: OK, Detail: "writable under HARK_HOME=" + h}
		}
		return Result{Status: OK, Detail: "writable: " + strings.Join(commonRoots(list), ", ")}
	}}
}

func probeWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".hark-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_, werr := f.Write([]byte("ok"))
	cerr := f.Close()
	rerr := os.Remove(name)
	return errors.Join(werr, cerr, rerr)
}

// commonRoots shortens the folder list to the ones not inside another.
func commonRoots(dirs []string) []string {
	sorted := append([]string(nil), dirs...)
	sort.Strings(sorted)
	var out []string
	for _, d := range sorted {
		if len(out) > 0 && strings.HasPrefix(d, out[len(out)-1]+string(filepath.Separator)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// InputDevice is a microphone as doctor needs to know it.
type InputDevice struct {
	Name    string
	Default bool
}

// ErrCannotRecord is what a device lister returns when this build has no
// audio capture at all; the check then says to rebuild, not to plug in a mic.
var ErrCannotRecord = errors.New("this build of Hark cannot record (built without cgo/PortAudio)")

// Microphone checks there is an input device, names the default one, and
// that the configured microphone (settings key "microphone") exists. list is
// nil when this build cannot record at all.
func Microphone(list func(ctx context.Context) ([]InputDevice, error), configured, goos string) Check {
	return Check{Name: "Microphone", Required: true, Run: func(ctx context.Context) Result {
		if list == nil {
			return Result{Status: Fail, Detail: ErrCannotRecord.Error(), Fix: buildFix(goos)}
		}
		devs, err := list(ctx)
		if errors.Is(err, ErrCannotRecord) {
			return Result{Status: Fail, Detail: err.Error(), Fix: buildFix(goos)}
		}
		if err != nil {
			return Result{Status: Fail, Detail: "cannot list microphones: " + err.Error(), Fix: micFix(goos)}
		}
		if len(devs) == 0 {
			return Result{Status: Fail, Detail: "no input device found", Fix: micFix(goos)}
		}
		def := ""
		for _, d := range devs {
			if d.Default {
				def = d.Name
			}
		}
		if configured != "" {
			for _, d := range devs {
				if d.Name == configured {
					return Result{Status: OK, Detail: fmt.Sprintf("%q (from settings; %d input %s)", configured, len(devs), plural(len(devs), "device", "devices"))}
				}
			}
			return Result{Status: Fail, Detail: fmt.Sprintf("the microphone %q in settings is not connected", configured),
				Fix: "plug it in, or set \"microphone\" to \"\" (system default) or a name from `hark devices`"}
		}
		if def == "" {
			return Result{Status: Warn, Detail: fmt.Sprintf("%d input %s but no default one", len(devs), plural(len(devs), "device", "devices")),
				Fix: "choose a default input in the sound settings, or set \"microphone\" to a name from `hark devices`"}
		}
		return Result{Status: OK, Detail: fmt.Sprintf("default %q (%d input %s)", def, len(devs), plural(len(devs), "device", "devices"))}
	}}
}

func micFix(goos string) string {
	if goos == "darwin" {
		return "connect a microphone, and allow Hark in System Settings › Privacy & Security › Microphone"
	}
	return "connect a microphone and check it is not muted (pactl list short sources; alsamixer)"
}

func buildFix(goos string) string {
	if goos == "darwin" {
		return "brew install portaudio pkgconf, then `make build`"
	}
	return "sudo apt-get install portaudio19-dev pkg-config, then `make build`"
}

// WhisperBuild checks this binary was built with whisper.cpp.
func WhisperBuild(available bool, goos string) Check {
	return Check{Name: "Speech recognition", Required: true, Run: func(context.Context) Result {
		if available {
			return Result{Status: OK, Detail: "built with whisper.cpp"}
		}
		fix := "install libwhisper (build whisper.cpp with cmake and `cmake --install`), then `make build` adds the whisper tag by itself"
		if goos == "darwin" {
			fix = "brew install whisper-cpp, then `make build` adds the whisper tag by itself"
		}
		return Result{Status: Fail, Detail: "this build has no whisper.cpp (voice input is off; `hark send` still works)", Fix: fix}
	}}
}

// WhisperModel checks the configured model file is on disk. resolve maps the
// settings value (a catalog name such as "base.en" or a path) to a file.
func WhisperModel(model string, resolve func(name string) (string, error)) Check {
	return Check{Name: "Whisper model", Required: true, Run: func(context.Context) Result {
		path, err := resolve(model)
		if err != nil {
			return Result{Status: Fail, Detail: fmt.Sprintf("%q: %v", model, err),
				Fix: "set \"whisperModel\" to a name from `hark models list` or a path to a ggml .bin file"}
		}
		fi, err := os.Stat(path)
		if err != nil || fi.IsDir() {
			fix := fmt.Sprintf("hark models download %s", model)
			if looksLikePath(model) {
				fix = fmt.Sprintf("put the model at %s, or set \"whisperModel\" to a catalog name and run `hark models download NAME`", path)
			}
			return Result{Status: Fail, Detail: fmt.Sprintf("%s is missing (%s)", model, path), Fix: fix}
		}
		return Result{Status: OK, Detail: fmt.Sprintf("%s (%s, %d MB)", model, path, fi.Size()>>20)}
	}}
}

// VADModel reports the voice activity model: optional, since the loudness
// gate keeps silence out without it, but only it keeps music and typing away
// from whisper. check is models.CheckVAD over the models folder.
func VADModel(check func() (name, path string, err error)) Check {
	return Check{Name: "Voice activity model", Run: func(context.Context) Result {
		name, path, err := check()
		switch {
		case path == "":
			return Result{Status: Warn, Detail: "not installed: music and typing can reach whisper, which may invent words for them",
				Fix: "hark models download silero-v5"}
		case err != nil:
			return Result{Status: Warn, Detail: err.Error(), Fix: "hark models download " + name}
		}
		return Result{Status: OK, Detail: fmt.Sprintf("%s (%s)", name, path)}
	}}
}

func looksLikePath(s string) bool {
	return strings.ContainsRune(s, filepath.Separator) || strings.HasSuffix(s, ".bin")
}

// OllamaAPI is the part of Ollama's client doctor uses; *api.Client has it.
type OllamaAPI interface {
	Version(ctx context.Context) (string, error)
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

// Ollama checks the server answers at host and reports its version.
func Ollama(c OllamaAPI, host, goos string) Check {
	return Check{Name: "Ollama", Required: true, Run: func(ctx context.Context) Result {
		v, err := c.Version(ctx)
		if err != nil {
			return ollamaDown(host, goos, err)
		}
		return Result{Status: OK, Detail: fmt.Sprintf("version %s at %s", v, host)}
	}}
}

func ollamaDown(host, goos string, err error) Result {
	start := "start it with `ollama serve` (or `systemctl start ollama`); install it from https://ollama.com/download if missing"
	if goos == "darwin" {
		start = "open the Ollama app or run `ollama serve`; install it with `brew install ollama` if missing"
	}
	detail := fmt.Sprintf("not answering at %s", host)
	if errors.Is(err, context.DeadlineExceeded) {
		detail += " (no answer in time)"
	} else {
		detail += " (" + shortError(err) + ")"
	}
	return Result{Status: Fail, Detail: detail, Fix: start + "; set \"ollamaHost\" or OLLAMA_HOST if it runs elsewhere"}
}

// shortError drops the URL the HTTP client repeats in every error.
func shortError(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}

// OllamaModel checks the configured model is pulled and can call tools,
// which Hark's agent needs for its one tool.
func OllamaModel(c OllamaAPI, host, model, goos string) Check {
	return Check{Name: "Ollama model", Required: true, Run: func(ctx context.Context) Result {
		show, err := c.Show(ctx, &api.ShowRequest{Model: model})
		var status api.StatusError
		switch {
		case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
			return Result{Status: Fail, Detail: fmt.Sprintf("%s is not pulled", model), Fix: fmt.Sprintf("ollama pull %s", model)}
		case err != nil && ctx.Err() != nil:
			return Result{Status: Fail, Detail: fmt.Sprintf("Ollama at %s did not answer in time about %s", host, model),
				Fix: "Ollama is hanging: restart it (quit and reopen the app, or stop and rerun `ollama serve`)"}
		case err != nil:
			if _, verr := c.Version(ctx); verr != nil {
				return Result{Status: Fail, Detail: fmt.Sprintf("cannot check %s until Ollama answers at %s", model, host),
					Fix: fmt.Sprintf("start Ollama (see the line above), then `ollama pull %s` if it is not pulled yet", model)}
			}
			return Result{Status: Fail, Detail: fmt.Sprintf("cannot read %s: %s", model, shortError(err)), Fix: fmt.Sprintf("ollama pull %s", model)}
		}
		if len(show.Capabilities) == 0 {
			return Result{Status: Warn, Detail: fmt.Sprintf("%s is pulled, but this Ollama does not report capabilities", model),
				Fix: "update Ollama so Hark can confirm the model supports tools"}
		}
		caps := make([]string, len(show.Capabilities))
		for i, c := range show.Capabilities {
			caps[i] = string(c)
		}
		if !slices.Contains(caps, "tools") {
			return Result{Status: Fail, Detail: fmt.Sprintf("%s cannot call tools (it offers: %s)", model, strings.Join(caps, ", ")),
				Fix: "set \"ollamaModel\" to a tool-capable model such as qwen3:4b, then `ollama pull qwen3:4b`"}
		}
		return Result{Status: OK, Detail: fmt.Sprintf("%s is pulled and supports tools", model)}
	}}
}

// Sandbox reports whether read-only commands run inside the OS sandbox
// (shell.SandboxStatus). Hark still runs without one, so it is optional.
func Sandbox(status func() (bool, string), goos string) Check {
	return Check{Name: "Sandbox", Run: func(context.Context) Result {
		ok, detail := status()
		if ok {
			return Result{Status: OK, Detail: detail}
		}
		const asks = "without a sandbox, commands that can run code from their configuration (git, interpreters, package managers) ask before they run, and other read-only ones run unconfined"
		fix := asks + "; use a kernel with Landlock (Linux 5.13+, lsm=landlock) on x86-64 or arm64 to confine them"
		if goos == "darwin" {
			fix = asks + "; /usr/bin/sandbox-exec should exist on every macOS — check your PATH and SIP"
		}
		return Result{Status: Warn, Detail: detail, Fix: fix}
	}}
}

// Notifications checks approve/deny notifications can work: on Linux the
// notification server must list the "actions" capability. caps queries the
// server (org.freedesktop.Notifications.GetCapabilities).
func Notifications(caps func(ctx context.Context) ([]string, error)) Check {
	return Check{Name: "Notifications", Run: func(ctx context.Context) Result {
		list, err := caps(ctx)
		if err != nil {
			return Result{Status: Warn, Detail: "no notification server: " + err.Error(),
				Fix: "approve commands from the tray menu, or run a notification daemon (your desktop's own, or dunst/mako)"}
		}
		if !slices.Contains(list, "actions") {
			return Result{Status: Warn, Detail: "the notification server shows no buttons (no \"actions\" capability)",
				Fix: "approve commands from the tray menu, or use a server with actions (GNOME, KDE, dunst, mako)"}
		}
		return Result{Status: OK, Detail: "approve/deny buttons available"}
	}}
}

// MacNotifications checks Hark runs from its bundle, which actionable
// notifications on macOS require.
func MacNotifications(bundlePath func() (string, bool)) Check {
	return Check{Name: "Notifications", Run: func(context.Context) Result {
		if p, ok := bundlePath(); ok {
			return Result{Status: OK, Detail: "Approve/Deny notifications from " + p}
		}
		return Result{Status: Warn, Detail: "Hark is not running from Hark.app, so approvals fall back to a dialog",
			Fix: "`make app` then open Hark.app (or `make install`), and allow its notifications"}
	}}
}

// TrayHost checks something shows tray icons: on Linux a
// StatusNotifierWatcher on the session bus.
func TrayHost(present func(ctx context.Context) (bool, error)) Check {
	return Check{Name: "Tray", Required: true, Run: func(ctx context.Context) Result {
		ok, err := present(ctx)
		if err != nil {
			return Result{Status: Fail, Detail: "cannot ask the session bus: " + err.Error(),
				Fix: "run Hark inside a desktop session (DBUS_SESSION_BUS_ADDRESS must be set)"}
		}
		if !ok {
			return Result{Status: Fail, Detail: "no tray host (org.kde.StatusNotifierWatcher) on the session bus",
				Fix: "on GNOME install and enable the AppIndicator extension (sudo apt-get install gnome-shell-extension-appindicator, then log out and in); KDE, Xfce and Cinnamon have one built in"}
		}
		return Result{Status: OK, Detail: "StatusNotifierWatcher present"}
	}}
}

// MacTray is the tray check on macOS. The menu bar is always there, but only
// a build with cgo can put Hark's item in it; check is tray.Check, which
// fails on a build without.
func MacTray(check func() error) Check {
	return Check{Name: "Tray", Required: true, Run: func(context.Context) Result {
		if err := check(); err != nil {
			return Result{Status: Fail, Detail: err.Error(),
				Fix: "rebuild with cgo: `make build` (install a C compiler first with `xcode-select --install`)"}
		}
		return Result{Status: OK, Detail: "macOS menu bar"}
	}}
}

// ErrHotkeyTaken is what a hotkey registration returns (wrapped) when another
// program holds the combination, as opposed to no hotkey support at all.
var ErrHotkeyTaken = errors.New("the combination is taken by another program")

// Hotkey checks the push-to-talk combination: parse reads the setting, and
// register grabs it and lets go again. When Hark itself is running it holds
// the combination, which the fix mentions. A nil register (macOS, where the
// grab needs the app's run loop) leaves the grab to Hark's start, but the
// setting is still read, so a combination Hark cannot understand fails here.
func Hotkey(combo string, parse func(combo string) error, register func(ctx context.Context, combo string) error) Check {
	return Check{Name: "Hotkey", Required: true, Run: func(ctx context.Context) Result {
		if err := parse(combo); err != nil {
			return Result{Status: Fail, Detail: err.Error(),
				Fix: "fix \"hotkey\" in settings, for example \"ctrl+alt+space\""}
		}
		if register == nil {
			return Result{Status: OK, Detail: combo + " (registered when Hark starts)"}
		}
		err := register(ctx, combo)
		switch {
		case errors.Is(err, ErrHotkeyTaken):
			return Result{Status: Fail, Detail: fmt.Sprintf("%s: %v", combo, err),
				Fix: "choose another \"hotkey\" in settings, or quit the program that holds it (Hark itself, if it is running)"}
		case err != nil:
			return Result{Status: Fail, Detail: fmt.Sprintf("%s: %v", combo, err),
				Fix: "run Hark in an X11 session (DISPLAY set; XWayland on Wayland); until then speak through the tray's Type a request… or `hark send`"}
		}
		return Result{Status: OK, Detail: combo + " can be registered"}
	}}
}

// LoginItem reports whether Hark starts at login. Off is not a problem.
func LoginItem(status func() (bundle.Status, error)) Check {
	return Check{Name: "Launch at login", Run: func(context.Context) Result {
		st, err := status()
		if err != nil {
			return Result{Status: Warn, Detail: err.Error(), Fix: "hark login-item on (rewrites it) or hark login-item off"}
		}
		if !st.Enabled {
			d := "off (turn on with `hark login-item on`)"
			if st.Note != "" {
				d = "off: " + st.Note
			}
			return Result{Status: OK, Detail: d}
		}
		if st.Note != "" {
			return Result{Status: Warn, Detail: "on, but " + st.Note, Fix: "hark login-item on"}
		}
		return Result{Status: OK, Detail: "on (" + st.Path + ")"}
	}}
}
