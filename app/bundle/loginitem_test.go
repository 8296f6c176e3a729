package bundle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoginItemOnOffStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		goos        string
		exe         string
		wantPath    string // relative to the temp HOME
		wantCommand []string
		wantInFile  []string
	}{
		{
			name: "macOS bare binary stands for the installed app", goos: "darwin", exe: "/usr/local/bin/hark",
			wantPath:    "Library/LaunchAgents/sh.hark.Hark.plist",
			wantCommand: []string{"/usr/bin/open", "-a", "APPS/Hark.app"},
			wantInFile:  []string{"<key>RunAtLoad</key>", "<true/>", "<string>sh.hark.Hark</string>", "<key>AssociatedBundleIdentifiers</key>"},
		},
		{
			name: "macOS app bundle opens through LaunchServices", goos: "darwin", exe: "/Applications/Hark.app/Contents/MacOS/hark",
			wantPath:    "Library/LaunchAgents/sh.hark.Hark.plist",
			wantCommand: []string{"/usr/bin/open", "-a", "/Applications/Hark.app"},
			wantInFile:  []string{"<string>/usr/bin/open</string>", "<key>AssociatedBundleIdentifiers</key>"},
		},
		{
			name: "linux autostart", goos: "linux", exe: "/home/me/.local/bin/hark",
			wantPath:    ".config/autostart/hark.desktop",
			wantCommand: []string{"/home/me/.local/bin/hark"},
			wantInFile:  []string{"[Desktop Entry]", "X-GNOME-Autostart-enabled=true", "Exec=/home/me/.local/bin/hark\n", "Type=Application"},
		},
		{
			name: "linux path with a space is quoted", goos: "linux", exe: "/home/me/my apps/hark",
			wantPath:    ".config/autostart/hark.desktop",
			wantCommand: []string{`"/home/me/my apps/hark"`},
			wantInFile:  []string{`Exec="/home/me/my apps/hark"`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			apps := filepath.Join(home, "Applications")
			if err := os.MkdirAll(filepath.Join(apps, "Hark.app", "Contents", "MacOS"), 0o755); err != nil {
				t.Fatal(err)
			}
			for i, w := range c.wantCommand {
				c.wantCommand[i] = strings.ReplaceAll(w, "APPS", apps)
			}
			l := LoginItem{GOOS: c.goos, Home: home, Executable: c.exe, Apps: apps, LaunchdDisabled: func() (string, error) { return "", nil }}
			if l.Path() != filepath.Join(home, c.wantPath) {
				t.Fatalf("path %s, want %s", l.Path(), filepath.Join(home, c.wantPath))
			}
			if st, err := l.Status(); err != nil || st.Enabled {
				t.Fatalf("before: %+v, %v; want off", st, err)
			}
			if err := l.Enable(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(l.Path())
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.wantInFile {
				if !strings.Contains(string(data), w) {
					t.Errorf("file lacks %q:\n%s", w, data)
				}
			}
			if c.goos == "darwin" {
				if _, err := ParsePlist(data); err != nil {
					t.Errorf("LaunchAgent is not a valid plist: %v", err)
				}
			}
			st, err := l.Status()
			if err != nil || !st.Enabled || !reflect.DeepEqual(st.Command, c.wantCommand) || st.Note != "" {
				t.Errorf("after on: %+v, %v; want enabled running %q", st, err, c.wantCommand)
			}
			// Another binary sees the item as on but pointing elsewhere.
			other := l
			other.Executable = "/opt/other/hark"
			if c.goos == "darwin" { // a bare binary stands for the installed app: take another bundle
				other.Executable = "/opt/other/Hark.app/Contents/MacOS/hark"
			}
			if st, _ := other.Status(); !st.Enabled || !strings.Contains(st.Note, "different Hark binary") {
				t.Errorf("other binary: %+v; want a note about the mismatch", st)
			}
			if err := l.Disable(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(l.Path()); !os.IsNotExist(err) {
				t.Errorf("file still there after off: %v", err)
			}
			if err := l.Disable(); err != nil {
				t.Errorf("second off: %v", err)
			}
			if st, err := l.Status(); err != nil || st.Enabled {
				t.Errorf("after off: %+v, %v", st, err)
			}
		})
	}
}

func TestLoginItemSwitchedOffByUser(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, goos, file, contents string
	}{
		{"gnome switch", "linux", ".config/autostart/hark.desktop", "[Desktop Entry]\nType=Application\nExec=/bin/hark\nX-GNOME-Autostart-enabled=false\n"},
		{"hidden", "linux", ".config/autostart/hark.desktop", "[Desktop Entry]\nType=Application\nExec=/bin/hark\nHidden=true\n"},
		{"launch agent disabled", "darwin", "Library/LaunchAgents/sh.hark.Hark.plist", `<plist><dict><key>Label</key><string>sh.hark.Hark</string><key>Disabled</key><true/></dict></plist>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			p := filepath.Join(home, c.file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(c.contents), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := LoginItem{GOOS: c.goos, Home: home, Executable: "/bin/hark"}.Status()
			if err != nil || st.Enabled || st.Note == "" {
				t.Errorf("%+v, %v; want off with a note", st, err)
			}
		})
	}
}

func TestLoginItemHonoursXDGConfigHome(t *testing.T) {
	t.Parallel()
	home, cfg := t.TempDir(), t.TempDir()
	l := LoginItem{GOOS: "linux", Home: home, ConfigHome: cfg, Executable: "/bin/hark"}
	if err := l.Enable(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg, "autostart", "hark.desktop")); err != nil {
		t.Errorf("no autostart entry under XDG_CONFIG_HOME: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "autostart", "hark.desktop")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an autostart entry under ~/.config despite XDG_CONFIG_HOME (stat: %v)", err)
	}
}

func TestLoginItemCorruptLaunchAgent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	l := LoginItem{GOOS: "darwin", Home: home, Executable: "/bin/hark"}
	if err := os.MkdirAll(filepath.Dir(l.Path()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Path(), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Status(); err == nil || !strings.Contains(err.Error(), "hark login-item on") {
		t.Errorf("error %v, want one that says how to repair", err)
	}
}

func TestDesktopExecArg(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/usr/bin/hark":        "/usr/bin/hark",
		"/a b/hark":            `"/a b/hark"`,
		`/a$b/hark`:            `"/a\\$b/hark"`,
		`/a"b/hark`:            `"/a\\"b/hark"`,
		`/a\b/hark`:            `"/a\\\\b/hark"`,
		"/100%/hark":           "/100%%/hark",
		"/home/me/it's/hark":   `"/home/me/it's/hark"`,
		"/tmp/back`tick`/hark": "\"/tmp/back\\\\`tick\\\\`/hark\"",
	}
	for in, want := range cases {
		if got := desktopExecArg(in); got != want {
			t.Errorf("desktopExecArg(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDesktopEntryForApplications(t *testing.T) {
	t.Parallel()
	keys := desktopKeys(DesktopEntry("/home/me/.local/bin/hark", false))
	want := map[string]string{"Type": "Application", "Name": "Hark", "Exec": "/home/me/.local/bin/hark", "Icon": "hark", "Terminal": "false"}
	for k, v := range want {
		if keys[k] != v {
			t.Errorf("%s=%q, want %q", k, keys[k], v)
		}
	}
	if _, ok := keys["X-GNOME-Autostart-enabled"]; ok {
		t.Error("the applications entry must not carry the autostart key")
	}
}

// On macOS a bare binary with no installed Hark.app is refused with the fix,
// rather than becoming a login item that macOS would deny the microphone.
func TestLoginItemRefusesBareBinaryOnMacOS(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	l := LoginItem{GOOS: "darwin", Home: home, Executable: "/work/hark/bin/hark", Apps: filepath.Join(home, "none")}
	if err := l.Enable(); !errors.Is(err, ErrNotInApp) || !strings.Contains(err.Error(), "Hark.app") {
		t.Fatalf("Enable = %v, want ErrNotInApp", err)
	}
	if _, err := os.Stat(l.Path()); !os.IsNotExist(err) {
		t.Errorf("a LaunchAgent was written: %v", err)
	}
}

// A login item switched off in System Settings (recorded by launchd, not in
// the plist) reads as off; launchctl's two spellings are both understood.
func TestLoginItemSwitchedOffInSystemSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, out string
		on        bool
	}{
		{"disabled", "disabled services = {\n\t\"com.apple.x\" => enabled\n\t\"sh.hark.Hark\" => disabled\n}\n", false},
		{"true", "disabled services = {\n\t\"sh.hark.Hark\" => true\n}\n", false},
		{"enabled", "disabled services = {\n\t\"sh.hark.Hark\" => enabled\n}\n", true},
		{"absent", "disabled services = {\n\t\"sh.hark.Harkish\" => disabled\n}\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			exe := "/Applications/Hark.app/Contents/MacOS/hark"
			l := LoginItem{GOOS: "darwin", Home: t.TempDir(), Executable: exe, LaunchdDisabled: func() (string, error) { return tt.out, nil }}
			if err := l.Enable(); err != nil {
				t.Fatal(err)
			}
			st, err := l.Status()
			if err != nil || st.Enabled != tt.on || (!tt.on && !strings.Contains(st.Note, "Login Items")) {
				t.Errorf("%+v, %v; want enabled %v", st, err, tt.on)
			}
		})
	}
}
