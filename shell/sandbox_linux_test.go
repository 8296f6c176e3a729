package shell

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/internal/sandbox"
)

// requireLandlock skips on kernels without Landlock. CI's kernel has it, so
// there (CI=true) a missing sandbox fails instead of hiding the sandbox
// tests; the "unavailable" path has its own test that runs everywhere.
func requireLandlock(t *testing.T) {
	t.Helper()
	if ok, detail := SandboxStatus(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run the sandbox tests, but this kernel offers no Landlock: " + detail)
		}
		t.Skip("this kernel has no Landlock, so there is nothing to test: " + detail)
	}
}

var safe = Verdict{Tier: Safe}

// The tests run as root in CI, where file permissions stop nothing: a
// blocked write here is Landlock's doing.
func TestSandboxFilesystem(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	outside := t.TempDir()
	readable := filepath.Join(outside, "readable.txt")
	if err := os.WriteFile(readable, []byte("visible content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		command  string
		wantExit int
		wantOut  string
		after    func(t *testing.T)
	}{
		{
			name:     "write outside is blocked",
			command:  "touch " + filepath.Join(outside, "new"),
			wantExit: 1,
			after: func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
					t.Error("the sandboxed command created a file")
				}
			},
		},
		{
			name:     "overwrite outside is blocked",
			command:  "echo changed > " + readable,
			wantExit: 1,
			after: func(t *testing.T) {
				if b, _ := os.ReadFile(readable); string(b) != "visible content\n" {
					t.Errorf("file changed to %q", b)
				}
			},
		},
		{
			name:     "delete outside is blocked",
			command:  "rm -f " + readable,
			wantExit: 1,
			after: func(t *testing.T) {
				if _, err := os.Stat(readable); err != nil {
					t.Error("the sandboxed command deleted a file")
				}
			},
		},
		{name: "read is allowed", command: "cat " + readable, wantOut: "visible content\n"},
		{name: "listing is allowed", command: "ls " + outside, wantOut: "readable.txt\n"},
		{name: "TMPDIR is writable", command: `echo scratch > "$TMPDIR/f" && cat "$TMPDIR/f"`, wantOut: "scratch\n"},
		{name: "mktemp works", command: `f=$(mktemp) && echo ok > "$f" && cat "$f"`, wantOut: "ok\n"},
		{name: "/dev/null is writable", command: "echo gone > /dev/null && echo ok", wantOut: "ok\n"},
		{name: "/dev/stdout is writable", command: "echo via-dev-stdout > /dev/stdout", wantOut: "via-dev-stdout\n"},
		{name: "owner names still resolve", command: "ls -ld / | awk '{print $3}'", wantOut: "root\n"},
		{name: "process listing works", command: "ps -o pid= -p $$ >/dev/null && echo ok", wantOut: "ok\n"},
	}
	r := testRunner(t, RunnerOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := r.Run(context.Background(), Request{Command: tt.command, Verdict: safe})
			if res.Sandbox != SandboxApplied || !res.Executed {
				t.Fatalf("sandbox %q executed %v: %s", res.Sandbox, res.Executed, res.JSON())
			}
			if res.ExitCode != tt.wantExit || (tt.wantOut != "" && res.Output != tt.wantOut) {
				t.Errorf("exit %d output %q (want %d, %q); stderr %q", res.ExitCode, res.Output, tt.wantExit, tt.wantOut, res.Error)
			}
			if tt.after != nil {
				tt.after(t)
			}
		})
	}
}

// The sandbox's temporary folder is private to the run, and nothing the run
// wrote there outlives it.
func TestSandboxTempIsRemoved(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	r := testRunner(t, RunnerOptions{})
	res := r.Run(context.Background(), Request{Command: `echo x > "$TMPDIR/f"; echo "$TMPDIR"`, Verdict: safe})
	dir := strings.TrimSpace(res.Output)
	// The next run starts with an empty folder, whatever it is.
	if next := r.Run(context.Background(), Request{Command: `ls -A "$TMPDIR"`, Verdict: safe}); !next.Success || next.Output != "" {
		t.Errorf("the next run's temporary folder is not empty: %s", next.JSON())
	}
	if res.Success && dir == sandbox.ScratchDir {
		// Unprivileged, with a scratch file system from the maker: the
		// folder is reachable only through the run's own descriptor, and
		// the file system went with the run's last process.
		t.Logf("the run's $TMPDIR was %s", dir)
		return
	}
	if !res.Success || !strings.Contains(filepath.Base(dir), "hark-run-") {
		t.Fatalf("%s", res.JSON())
	}
	// The folder itself may stay, empty, for the next run (see
	// makeRunTemp): as root what the run wrote was in a scratch file
	// system of its own (see TestEscapeDiskQuotaHoldsAtAllocation),
	// gone with it, and the folder under it was never written.
	if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
		t.Errorf("%s/f still exists after the run", dir)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		t.Errorf("%s is not empty after the run: %v", dir, ents)
	}
}

// A TCP connection to a listener on loopback must fail inside the sandbox,
// and the listener must see nothing. The same command outside the sandbox
// connects, which shows the test can tell the difference.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	if abi, _ := sandbox.LandlockABI(); abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP (needs 4)", abi)
	}
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	for _, tt := range []struct {
		name        string
		mode        SandboxMode
		wantConnect bool
	}{
		{"sandboxed", SandboxReadOnly, false},
		{"unsandboxed control", SandboxOff, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// "tcp4" without the Go default of Multipath TCP: the listener is
			// plain TCP like the client bash opens.
			lc := net.ListenConfig{}
			lc.SetMultipathTCP(false)
			ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			port := ln.Addr().(*net.TCPAddr).Port
			r := testRunner(t, RunnerOptions{Shell: "/bin/bash"})
			cmd := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
			res := r.Run(context.Background(), Request{Command: cmd, Verdict: safe, Sandbox: tt.mode})
			// The command has exited, so a connection it made is already in
			// the listener's backlog: Accept returns it at once, or times out.
			ln.(*net.TCPListener).SetDeadline(time.Now().Add(time.Second))
			c, err := ln.Accept()
			got := err == nil
			if got {
				c.Close()
			}
			if got != tt.wantConnect || res.Success != tt.wantConnect {
				t.Errorf("listener accepted %v, command success %v; want %v: %s", got, res.Success, tt.wantConnect, res.JSON())
			}
		})
	}
}

// Without an OS sandbox the command still runs, and the result says so.
func TestSandboxUnavailable(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	r := testRunner(t, RunnerOptions{})
	r.probe = func() (bool, string) { return false, "simulated: no Landlock" }
	res := r.Run(context.Background(), Request{Command: "touch " + filepath.Join(outside, "f") + " && echo ran", Verdict: safe})
	if res.Sandbox != SandboxUnavailable || !res.Success || res.Output != "ran\n" {
		t.Errorf("%s", res.JSON())
	}
}

// The sandbox never silently weakens: asked for by name on a system
// without one, or present but out of this runner's reach, the command does
// not run at all.
func TestSandboxFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		osHas  bool
		direct bool // no helper: the sandbox cannot be applied
		mode   SandboxMode
		want   string
	}{
		{"read-only asked for, none on this system", false, false, SandboxReadOnly, "this system has none"},
		{"sandbox present, helper unreachable", true, true, SandboxAuto, "could not be applied"},
		{"sandbox present, helper unreachable, read-only", true, true, SandboxReadOnly, "could not be applied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "ran")
			r := testRunner(t, RunnerOptions{})
			r.probe = func() (bool, string) { return tt.osHas, "simulated" }
			r.direct = tt.direct
			res := r.Run(context.Background(), Request{Command: "touch " + marker, Verdict: safe, Sandbox: tt.mode})
			if res.Executed || !strings.Contains(res.Error, tt.want) {
				t.Errorf("%s", res.JSON())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran without its sandbox")
			}
		})
	}
}

// Which requests get the sandbox, and what the result reports.
func TestSandboxModes(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	tests := []struct {
		name    string
		tier    Tier
		mode    SandboxMode
		want    string
		blocked bool
	}{
		{"auto sandboxes safe", Safe, SandboxAuto, SandboxApplied, true},
		{"empty mode is auto", Safe, "", SandboxApplied, true},
		{"auto leaves confirm alone", Confirm, SandboxAuto, SandboxNotApplied, false},
		{"read-only sandboxes confirm", Confirm, SandboxReadOnly, SandboxApplied, true},
		{"off leaves safe alone", Safe, SandboxOff, SandboxNotApplied, false},
	}
	r := testRunner(t, RunnerOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := filepath.Join(t.TempDir(), "f")
			res := r.Run(context.Background(), Request{Command: "touch " + target, Verdict: Verdict{Tier: tt.tier}, Sandbox: tt.mode})
			_, err := os.Stat(target)
			if res.Sandbox != tt.want || (err != nil) != tt.blocked {
				t.Errorf("sandbox %q (want %q), write blocked %v (want %v)", res.Sandbox, tt.want, err != nil, tt.blocked)
			}
		})
	}
}

// From ABI 6 the sandbox cannot signal processes outside it, such as Hark.
func TestSandboxSignalsScoped(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	if abi, _ := sandbox.LandlockABI(); abi < 6 {
		t.Skipf("Landlock ABI %d does not scope signals (needs 6)", abi)
	}
	r := testRunner(t, RunnerOptions{})
	res := r.Run(context.Background(), Request{Command: fmt.Sprintf("kill -0 %d && echo reached", os.Getpid()), Verdict: safe})
	if res.Success || strings.Contains(res.Output, "reached") {
		t.Errorf("the sandbox could signal the test process: %s", res.JSON())
	}
}

func TestSandboxStatusDetail(t *testing.T) {
	t.Parallel()
	ok, detail := SandboxStatus()
	abi, err := sandbox.LandlockABI()
	if ok != (err == nil && abi >= 1) || !strings.Contains(detail, "Landlock") {
		t.Errorf("SandboxStatus() = %v, %q with ABI %d, %v", ok, detail, abi, err)
	}
	if ok && !strings.Contains(detail, fmt.Sprintf("ABI %d", abi)) {
		t.Errorf("detail %q does not name ABI %d", detail, abi)
	}
}

// A helper that cannot apply the sandbox must not run the command.
func TestSandboxHelperFailsClosed(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	marker := filepath.Join(t.TempDir(), "ran")
	// No disk quota: with one, an unprivileged run writes to a scratch
	// file system of its own and never opens the folder below.
	r := testRunner(t, RunnerOptions{DiskQuota: -1})
	// A temporary folder that does not exist cannot be opened for the
	// Landlock rule, so restricting fails before the shell starts.
	argv, _ := r.argv("touch "+marker, true, filepath.Join(t.TempDir(), "missing"), nil, nil, 0, 0)
	out := process{argv: argv, env: os.Environ(), dir: "/", stdout: newCapture(0), stderr: newCapture(0), viaHelper: true}.run(context.Background())
	if out.Started || !strings.Contains(out.Err, "sandbox could not be applied") {
		t.Errorf("started %v, err %q", out.Started, out.Err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without its sandbox")
	}
}

// From ABI 6 the sandbox cannot reach abstract Unix sockets bound outside
// it, which is where a desktop session keeps some of its services.
func TestSandboxAbstractSocketsScoped(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	if abi, _ := sandbox.LandlockABI(); abi < 6 {
		t.Skipf("Landlock ABI %d does not scope abstract sockets (needs 6)", abi)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name        string
		mode        SandboxMode
		wantConnect bool
	}{
		{"sandboxed", SandboxReadOnly, false},
		{"unsandboxed control", SandboxOff, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprintf("@hark-test-%d-%s", os.Getpid(), tt.mode)
			ln, err := net.Listen("unix", name)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			r := testRunner(t, RunnerOptions{})
			res := r.Run(context.Background(), Request{Command: fmt.Sprintf("'%s' __dial unix '%s'", self, name), Verdict: safe, Sandbox: tt.mode})
			if res.Success != tt.wantConnect {
				t.Errorf("connected %v, want %v: %s", res.Success, tt.wantConnect, res.JSON())
			}
		})
	}
}

// UDP is outside Landlock's reach before ABI 10; the seccomp filter refuses
// the socket itself, so no datagram leaves the sandbox on any kernel.
func TestSandboxUDP(t *testing.T) {
	t.Parallel()
	requireLandlock(t)
	if sandbox.AuditArch() == 0 {
		t.Skip("no seccomp filter for " + runtime.GOARCH)
	}
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("needs bash for /dev/udp")
	}
	for _, tt := range []struct {
		name     string
		mode     SandboxMode
		wantSent bool
	}{
		{"sandboxed", SandboxReadOnly, false},
		{"unsandboxed control", SandboxOff, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Close()
			port := pc.LocalAddr().(*net.UDPAddr).Port
			r := testRunner(t, RunnerOptions{Shell: "/bin/bash"})
			res := r.Run(context.Background(), Request{Command: fmt.Sprintf("echo leak > /dev/udp/127.0.0.1/%d", port), Verdict: safe, Sandbox: tt.mode})
			// The datagram, if sent, is already queued on the socket.
			pc.SetReadDeadline(time.Now().Add(time.Second))
			buf := make([]byte, 64)
			n, _, err := pc.ReadFrom(buf)
			sent := err == nil && string(buf[:n]) == "leak\n"
			if sent != tt.wantSent || res.Success != tt.wantSent {
				t.Errorf("datagram sent %v, command success %v; want %v: %s", sent, res.Success, tt.wantSent, res.JSON())
			}
		})
	}
}
