package doctor

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// privateBus starts a dbus-daemon of our own for the test and returns its
// address; the daemon stops with the test.
func privateBus(t *testing.T) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dbus-daemon is not installed, but CI must test the D-Bus probes: .ci/run installs the dbus package")
		}
		t.Skip("dbus-daemon not installed (CI installs the dbus package); the D-Bus probes are covered there")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bus.conf")
	err = os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=`+dir+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, daemon, "--config-file="+conf, "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case addr := <-lines:
		if addr == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		return addr
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon did not start within 10s")
	}
	return ""
}

// fakeNotifications serves GetCapabilities on the bus.
type fakeNotifications struct{ caps []string }

func (f fakeNotifications) GetCapabilities() ([]string, *dbus.Error) { return f.caps, nil }

func own(t *testing.T, addr, name string, export func(*dbus.Conn) error) {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if export != nil {
		if err := export(conn); err != nil {
			t.Fatal(err)
		}
	}
	if reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", name, reply, err)
	}
}

func TestDBusProbes(t *testing.T) {
	t.Parallel()
	addr := privateBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// An empty session: no notification server, no tray host.
	if _, err := NotificationCaps(addr)(ctx); err == nil {
		t.Error("capabilities from an empty bus: want an error")
	}
	if has, err := StatusNotifierWatcher(addr)(ctx); err != nil || has {
		t.Errorf("tray host on an empty bus: %v, %v", has, err)
	}

	own(t, addr, "org.freedesktop.Notifications", func(c *dbus.Conn) error {
		return c.Export(fakeNotifications{caps: []string{"body", "actions"}}, "/org/freedesktop/Notifications", "org.freedesktop.Notifications")
	})
	own(t, addr, "org.kde.StatusNotifierWatcher", nil)

	caps, err := NotificationCaps(addr)(ctx)
	if err != nil || !slices.Contains(caps, "actions") {
		t.Errorf("capabilities %v, %v; want actions", caps, err)
	}
	if has, err := StatusNotifierWatcher(addr)(ctx); err != nil || !has {
		t.Errorf("tray host %v, %v; want present", has, err)
	}

	// The same probes through the checks, as hark doctor wires them.
	for _, r := range Run(ctx, []Check{Notifications(NotificationCaps(addr)), TrayHost(StatusNotifierWatcher(addr))}, 2*time.Second) {
		if r.Result.Status != OK {
			t.Errorf("%s: %+v", r.Check.Name, r.Result)
		}
	}
}

func TestDBusProbeWithoutBus(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addr := "unix:path=" + filepath.Join(t.TempDir(), "no-bus")
	if _, err := NotificationCaps(addr)(ctx); err == nil {
		t.Error("want an error for a bus that is not there")
	}
	if _, err := StatusNotifierWatcher(addr)(ctx); err == nil {
		t.Error("want an error for a bus that is not there")
	}
}

func TestSessionBusAddress(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if a, err := SessionBusAddress(env(map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"})); err != nil || a != "unix:path=/x" {
		t.Errorf("from env: %q %v", a, err)
	}
	if _, err := SessionBusAddress(env(map[string]string{"XDG_RUNTIME_DIR": t.TempDir()})); err == nil {
		t.Error("a runtime dir without a bus socket must not count as a session")
	}
	if _, err := SessionBusAddress(env(nil)); err == nil || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
		t.Errorf("no session: %v", err)
	}
}
