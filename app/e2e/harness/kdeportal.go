package harness

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// The real GlobalShortcuts stack a headless Debian 12 can run: the
// xdg-desktop-portal frontend, KDE Plasma's backend (xdg-desktop-portal-kde)
// and kglobalaccel5, which grabs the keys on an X server. kglobalaccel's
// Wayland path needs KWin; its X11 path runs on Xvfb, and xdotool's keys
// reach it there as they would a user's.
const (
	portalFrontend = "/usr/libexec/xdg-desktop-portal"
	kdeBackendFile = "/usr/share/dbus-1/services/org.freedesktop.impl.portal.desktop.kde.service"
)

// KDEPortal starts kglobalaccel5 and xdg-desktop-portal on the private bus
// at address, with KDE's backend activated by the bus, all on a fresh Xvfb
// and a throwaway configuration directory (kglobalaccel keeps its
// shortcuts in kglobalshortcutsrc there), and waits until
// org.freedesktop.portal.Desktop offers GlobalShortcuts. It returns the
// display, for xdotool. A missing piece skips the test, naming the
// package, and fails it under CI as Need does.
func KDEPortal(t testing.TB, address string) string {
	t.Helper()
	backend := kdeBackend(t)
	Need(t, "kglobalaccel5", portalFrontend, backend, "xdotool")
	// No auto-repeat within a test's hold: one press and one release, as
	// a hold shorter than the desktop's repeat delay gives, which is where
	// kglobalaccel's stamps go wrong (its release carries the press's time).
	display := Xvfb(t, "-ardelay", "60000")
	home := t.TempDir()
	run := filepath.Join(home, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"DISPLAY":                  display,
		"XDG_CURRENT_DESKTOP":      "KDE", // the frontend picks kde.portal by its UseIn=KDE
		"QT_QPA_PLATFORM":          "xcb",
		"HOME":                     home,
		"XDG_CONFIG_HOME":          filepath.Join(home, "config"),
		"XDG_DATA_HOME":            filepath.Join(home, "data"),
		"XDG_CACHE_HOME":           filepath.Join(home, "cache"),
		"XDG_RUNTIME_DIR":          run,
		"DBUS_SESSION_BUS_ADDRESS": address,
		"QT_LOGGING_RULES":         "xdp-kde-*=true;kf.globalaccel*=true",
	}
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The bus starts the backend: give it the same desktop.
	if err := conn.BusObject().Call("org.freedesktop.DBus.UpdateActivationEnvironment", 0, env).Err; err != nil {
		t.Fatalf("setting the bus's activation environment: %v", err)
	}
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	list = append(list, "PATH="+os.Getenv("PATH"))
	kga := exec.Command("kglobalaccel5")
	kga.Env = list
	Start(t, "kglobalaccel5", kga)
	Eventually(t, 30*time.Second, "kglobalaccel5 on the bus", func() error {
		return owned(conn, "org.kde.kglobalaccel")
	})
	xdp := exec.Command(portalFrontend, "--verbose")
	xdp.Env = list
	Start(t, "xdg-desktop-portal", xdp)
	Eventually(t, 60*time.Second, "the portal's GlobalShortcuts", func() error {
		v, err := conn.Object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop").GetProperty("org.freedesktop.portal.GlobalShortcuts.version")
		if err != nil {
			return err
		}
		if n, _ := v.Value().(uint32); n < 1 {
			return Errorf("version %v", v.Value())
		}
		return nil
	})
	return display
}

// kdeBackend is the program the bus starts for KDE's portal backend, as its
// service file says (the path holds the machine's multiarch triplet).
func kdeBackend(t testing.TB) string {
	t.Helper()
	f, err := os.Open(kdeBackendFile)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing, but CI must run this test: add xdg-desktop-portal-kde to .ci/run", kdeBackendFile)
		}
		t.Skipf("KDE's portal backend is not installed (%v; the package is xdg-desktop-portal-kde); skipping", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if exe, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Exec="); ok {
			return strings.Fields(exe)[0]
		}
	}
	t.Fatalf("%s names no Exec= program", kdeBackendFile)
	return ""
}

func owned(conn *dbus.Conn, name string) error {
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
		return err
	}
	if !has {
		return Errorf("%s has no owner yet", name)
	}
	return nil
}
