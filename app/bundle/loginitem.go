package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hark-sh/hark/app/settings"
)

// BundleID is Hark's bundle identifier, also the LaunchAgent's label.
const BundleID = "sh.hark.Hark"

// LoginItem starts Hark when the user logs in: a LaunchAgent on macOS, a
// freedesktop autostart entry elsewhere. Only files in the user's home are
// touched, so no privileges and no system API are needed, and the state is
// simply whether the file is there and enabled.
type LoginItem struct {
	GOOS       string // "darwin" writes a LaunchAgent; anything else an autostart entry
	Home       string // the user's home folder
	ConfigHome string // $XDG_CONFIG_HOME; "" means Home/.config
	Executable string // the hark binary to start

	// Apps is where an installed Hark.app is looked for when Executable is
	// a bare binary on macOS; "" means /Applications.
	Apps string
	// LaunchdDisabled lists launchd's switched-off services for this user
	// (the output of `launchctl print-disabled gui/UID`), where macOS 13 and
	// later record a login item turned off in System Settings › General ›
	// Login Items; nil runs launchctl.
	LaunchdDisabled func() (string, error)
}

// ErrNotInApp is Enable's answer on macOS for a binary outside Hark.app
// when no installed Hark.app can stand in for it: a bare binary started at
// login has no bundle, so macOS would deny it the microphone without asking
// and attribute its notifications to "Terminal".
var ErrNotInApp = errors.New("on macOS Hark starts at login only as Hark.app: run `make install` (or `make app`), open Hark.app and tick Launch at login in its menu")

// DefaultLoginItem is the login item for this user and this executable.
func DefaultLoginItem() (LoginItem, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return LoginItem{}, fmt.Errorf("login item: %w (set HOME)", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return LoginItem{}, fmt.Errorf("login item: cannot find Hark's own binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfg) {
		cfg = ""
	}
	return LoginItem{GOOS: runtime.GOOS, Home: home, ConfigHome: cfg, Executable: exe}, nil
}

// Path is the file that makes Hark start at login.
func (l LoginItem) Path() string {
	if l.GOOS == "darwin" {
		return filepath.Join(l.Home, "Library", "LaunchAgents", BundleID+".plist")
	}
	cfg := l.ConfigHome
	if cfg == "" {
		cfg = filepath.Join(l.Home, ".config")
	}
	return filepath.Join(cfg, "autostart", "hark.desktop")
}

// command is what the login item runs. Inside Hark.app it asks LaunchServices
// to open the bundle, so Hark starts as a proper app (its notifications and
// microphone permission belong to the bundle); a bare binary is started as is.
//
// On macOS a binary outside any bundle (bin/hark) stands for the installed
// Hark.app when there is one, and for nothing otherwise (nil).
func (l LoginItem) command() []string {
	if l.GOOS != "darwin" {
		return []string{l.Executable}
	}
	app := ""
	if i := strings.Index(l.Executable, ".app/Contents/MacOS/"); i >= 0 {
		app = l.Executable[:i+len(".app")]
	} else {
		apps := l.Apps
		if apps == "" {
			apps = "/Applications"
		}
		if fi, err := os.Stat(filepath.Join(apps, "Hark.app", "Contents", "MacOS")); err == nil && fi.IsDir() {
			app = filepath.Join(apps, "Hark.app")
		}
	}
	if app == "" {
		return nil
	}
	return []string{"/usr/bin/open", "-a", app}
}

// Contents is the file Enable writes.
func (l LoginItem) Contents() ([]byte, error) {
	if l.Executable == "" {
		return nil, errors.New("login item: no executable to start")
	}
	if l.GOOS != "darwin" {
		return DesktopEntry(l.Executable, true), nil
	}
	cmd := l.command()
	if cmd == nil {
		return nil, ErrNotInApp
	}
	d := &Dict{}
	d.Set("Label", BundleID)
	d.Set("ProgramArguments", cmd)
	// Login Items in System Settings (macOS 13+) shows the agent under the
	// app's name and icon rather than as an unidentified background item.
	d.Set("AssociatedBundleIdentifiers", []string{BundleID})
	d.Set("RunAtLoad", true)
	d.Set("ProcessType", "Interactive")
	d.Set("LimitLoadToSessionType", "Aqua")
	return EncodePlist(d)
}

// Enable writes the login item (atomically; replacing an older one, which
// also repoints it at the current binary).
func (l LoginItem) Enable() error {
	data, err := l.Contents()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(l.Path()), 0o755); err != nil {
		return fmt.Errorf("login item: %w", err)
	}
	if err := settings.WriteFileAtomic(l.Path(), data, 0o644); err != nil {
		return fmt.Errorf("login item: %w", err)
	}
	return nil
}

// Disable removes the login item; removing one that is not there is fine.
func (l LoginItem) Disable() error {
	if err := os.Remove(l.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("login item: %w", err)
	}
	return nil
}

// Status says whether Hark starts at login, and what it starts.
type Status struct {
	Enabled bool
	Path    string   // the file checked
	Command []string // what it runs, when enabled
	Note    string   // why it is off although the file exists, or a mismatch worth knowing
}

// Status reads the login item back. A file the user switched off in their
// session settings (Hidden=true, X-GNOME-Autostart-enabled=false, or a
// LaunchAgent with Disabled) counts as off.
func (l LoginItem) Status() (Status, error) {
	st := Status{Path: l.Path()}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("login item: %w", err)
	}
	if l.GOOS == "darwin" {
		d, err := ParsePlist(data)
		if err != nil {
			return st, fmt.Errorf("login item: %s: %w (run `hark login-item on` to rewrite it)", st.Path, err)
		}
		if v, _ := d.Get("Disabled"); v == true {
			st.Note = "the LaunchAgent is marked Disabled"
			return st, nil
		}
		if off, err := l.switchedOffInLaunchd(); err == nil && off {
			st.Note = "switched off in System Settings › General › Login Items"
			return st, nil
		}
		args, _ := d.Get("ProgramArguments")
		list, _ := args.([]any)
		for _, a := range list {
			if s, ok := a.(string); ok {
				st.Command = append(st.Command, s)
			}
		}
	} else {
		keys := desktopKeys(data)
		if strings.EqualFold(keys["Hidden"], "true") {
			st.Note = "the autostart entry is hidden (switched off in the session settings)"
			return st, nil
		}
		if strings.EqualFold(keys["X-GNOME-Autostart-enabled"], "false") {
			st.Note = "the autostart entry is switched off (X-GNOME-Autostart-enabled=false)"
			return st, nil
		}
		st.Command = []string{keys["Exec"]}
	}
	st.Enabled = true
	if want := l.command(); l.Executable != "" && want != nil && !sameCommand(l.GOOS, st.Command, want) {
		st.Note = "it starts a different Hark binary; run `hark login-item on` to point it at this one"
	}
	return st, nil
}

// switchedOffInLaunchd reads launchd's record of switched-off services for
// Hark's label. Both spellings launchctl has used are understood:
// `"sh.hark.Hark" => disabled` and `"sh.hark.Hark" => true`.
func (l LoginItem) switchedOffInLaunchd() (bool, error) {
	list := l.LaunchdDisabled
	if list == nil {
		list = func() (string, error) {
			out, err := exec.Command("/bin/launchctl", "print-disabled", "gui/"+strconv.Itoa(os.Getuid())).Output()
			return string(out), err
		}
	}
	out, err := list()
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		name, state, ok := strings.Cut(strings.TrimSpace(line), "=>")
		if !ok || strings.Trim(strings.TrimSpace(name), `"`) != BundleID {
			continue
		}
		state = strings.TrimSpace(state)
		return state == "disabled" || state == "true", nil
	}
	return false, nil
}

func sameCommand(goos string, got, want []string) bool {
	if goos != "darwin" {
		return len(got) == 1 && got[0] == desktopExecArg(want[0])
	}
	return strings.Join(got, "\x00") == strings.Join(want, "\x00")
}

// SetLaunchAtLogin turns launching at login on or off for this user and this
// binary: the tray's checkbox calls it.
func SetLaunchAtLogin(on bool) error {
	l, err := DefaultLoginItem()
	if err != nil {
		return err
	}
	if on {
		return l.Enable()
	}
	return l.Disable()
}

// LaunchAtLogin reports whether Hark starts at login, for the tray's checkbox.
func LaunchAtLogin() (bool, error) {
	l, err := DefaultLoginItem()
	if err != nil {
		return false, err
	}
	st, err := l.Status()
	return st.Enabled, err
}
