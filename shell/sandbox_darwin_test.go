//go:build darwin

package shell

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSeatbeltOnMac checks the profile's promises against the real macOS
// sandbox, which nothing else can: CI has no Mac. It runs each probe through
// the Runner exactly as Hark would, under the read-only sandbox, as the user
// who starts it. It starts a sleep, a TCP listener and a Unix socket of its
// own, and tries (and must fail) to write a preference, submit a launchd job,
// open an app and drive Finder, and checks the run-wide memory cap; it
// cleans up after each. Run it with
//
//	HARK_SEATBELT_CHECK=1 go test ./shell -run TestSeatbeltOnMac -v -count=1
//
// docs/macos.md, "Checking the macOS sandbox", says what to expect and what
// to report.
func TestSeatbeltOnMac(t *testing.T) {
	if os.Getenv("HARK_SEATBELT_CHECK") != "1" {
		t.Skip("set HARK_SEATBELT_CHECK=1 on a Mac to check the sandbox for real (see docs/macos.md)")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Dir(wd) // go test runs in shell/, inside the repository
	r := NewRunner(RunnerOptions{Shell: "/bin/zsh", Timeout: 20 * time.Second})
	run := func(t *testing.T, command string) Result {
		t.Helper()
		res := r.Run(context.Background(), Request{
			Command: command, WorkingDirectory: home,
			Verdict: Verdict{Command: command, Tier: Confirm}, Sandbox: SandboxReadOnly,
		})
		if !res.Executed || res.Sandbox != SandboxApplied {
			t.Fatalf("%q was not run in the sandbox (sandbox %q): %s", command, res.Sandbox, res.Error)
		}
		return res
	}
	works := func(command, want string) func(t *testing.T) {
		return func(t *testing.T) {
			res := run(t, command)
			if res.ExitCode != 0 || !strings.Contains(res.Output, want) {
				t.Errorf("%q: exit %d, output %q, stderr %q; want exit 0 and output containing %q", command, res.ExitCode, clip(res.Output), clip(res.Error), want)
			}
		}
	}
	refused := func(t *testing.T, command string) {
		t.Helper()
		if res := run(t, command); res.ExitCode == 0 {
			t.Errorf("%q succeeded in the sandbox (output %q); it must be refused", command, clip(res.Output))
		}
	}

	t.Run("the profile compiles and a command runs", works("echo ran", "ran"))
	t.Run("writes in TMPDIR work", works(`print -r ok > $TMPDIR/probe && cat $TMPDIR/probe && mktemp`, "ok"))
	t.Run("zsh here-document", works("cat <<EOF\nhere-doc\nEOF", "here-doc"))
	t.Run("zsh here-string", works("cat <<< here-string", "here-string"))
	t.Run("redirections to /dev/null", works("ls /nonexistent 2>/dev/null; echo ok", "ok"))
	t.Run("redirections to /dev/stdout and /dev/stderr", func(t *testing.T) {
		res := run(t, "echo out > /dev/stdout; echo err > /dev/stderr")
		if res.ExitCode != 0 || res.Output != "out\n" || !strings.Contains(res.Error, "err") {
			t.Errorf("exit %d, output %q, stderr %q; want out and err", res.ExitCode, res.Output, res.Error)
		}
	})
	t.Run("user and group names", works("ls -ld ~ && id -un", me.Username))
	t.Run("group membership", works("id -Gn", "staff"))
	t.Run("ps aux (unconfined setuid)", works("ps aux", "/sbin/launchd"))
	t.Run("top -l 1 (unconfined setuid)", works("top -l 1 -n 3", "Processes:"))
	t.Run("pgrep sees processes outside", works("pgrep -x launchd | grep -x 1", "1"))
	t.Run("pkill -0 finds a process of the run", works("sleep 30 & pkill -0 -x sleep && echo found; kill $!", "found"))
	t.Run("df", works("df -h /", "/"))
	t.Run("du", works("du -sk /System/Applications/Calculator.app", "Calculator.app"))
	t.Run("git status", works("cd $TMPDIR && git init -q r && cd r && git status", "No commits yet"))
	t.Run("system_profiler", works("system_profiler SPSoftwareDataType", "System Version"))
	t.Run("sysctl", works("sysctl -n hw.ncpu kern.osproductversion", "."))
	t.Run("defaults read", works("defaults read -g AppleLanguages", "("))
	t.Run("mdfind", works("mdfind -onlyin /System/Applications -name Calculator", "Calculator.app"))
	t.Run("mdls", works("mdls -name kMDItemContentType /System/Applications/Calculator.app", "application"))
	t.Run("scutil --dns", works("scutil --dns", "resolver"))
	t.Run("signals within the run", works("sleep 30 & kill $!; wait $!; echo $?", "143"))

	t.Run("lsof sees processes outside", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		works("lsof -nP -a -p "+strconv.Itoa(os.Getpid())+" -iTCP:"+port+" -sTCP:LISTEN", port)(t)
	})

	t.Run("writes outside TMPDIR are refused", func(t *testing.T) {
		dir := t.TempDir() // outside the run's TMPDIR, as is home
		keep := filepath.Join(dir, "keep")
		if err := os.WriteFile(keep, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		homeProbe := filepath.Join(home, ".hark-sandbox-probe")
		defer os.Remove(homeProbe)
		refused(t, "print x > "+homeProbe)
		refused(t, "touch /private/tmp/hark-sandbox-probe")
		refused(t, "print changed > "+keep)
		refused(t, "rm -f "+keep)
		refused(t, "mkdir "+filepath.Join(dir, "new"))
		// A hard link into TMPDIR would make the original writable from there.
		refused(t, "ln "+keep+" $TMPDIR/link && print changed > $TMPDIR/link")
		if b, err := os.ReadFile(keep); err != nil || string(b) != "original\n" {
			t.Errorf("%s now holds %q (%v); the sandbox let a command change it", keep, b, err)
		}
		for _, p := range []string{homeProbe, "/private/tmp/hark-sandbox-probe", filepath.Join(dir, "new")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s was created from inside the sandbox", p)
				os.Remove(p)
			}
		}
	})

	t.Run("hidden files cannot be read", func(t *testing.T) {
		// A private folder of its own, so the check touches nothing of
		// the user's: hidden, it is refused by path and through a link;
		// its neighbour stays readable.
		dir := t.TempDir()
		secret := filepath.Join(dir, "private", "id_test")
		if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(secret, []byte("key\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "open"), []byte("open\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Dir(secret), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		for _, command := range []string{"cat " + secret, "cat " + filepath.Join(dir, "link", "id_test"), "cat " + filepath.Join(dir, "open")} {
			res := r.Run(context.Background(), Request{
				Command: command, WorkingDirectory: dir, Hide: []string{filepath.Dir(secret)},
				Verdict: Verdict{Command: command, Tier: Confirm}, Sandbox: SandboxReadOnly,
			})
			open := strings.HasSuffix(command, "open")
			if !res.Executed || res.Sandbox != SandboxApplied {
				t.Fatalf("%q was not run in the sandbox (sandbox %q): %s", command, res.Sandbox, res.Error)
			}
			switch {
			case open && (res.ExitCode != 0 || !strings.Contains(res.Output, "open")):
				t.Errorf("%q: exit %d, output %q; a file beside the hidden folder must stay readable", command, res.ExitCode, clip(res.Output))
			case !open && (res.ExitCode == 0 || strings.Contains(res.Output, "key")):
				t.Errorf("%q: exit %d, output %q; a hidden file must be refused", command, res.ExitCode, clip(res.Output))
			}
		}
	})

	t.Run("network is refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		sock := filepath.Join(t.TempDir(), "s")
		uln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer uln.Close()
		var accepted atomic.Int32
		for _, l := range []net.Listener{ln, uln} {
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					c.Close()
				}
			}()
		}
		refused(t, "curl -sS -m 5 http://"+ln.Addr().String()+"/")
		refused(t, "nc -U "+sock+" </dev/null")
		refused(t, "curl -sS -m 5 -o /dev/null https://example.com/")
		time.Sleep(200 * time.Millisecond)
		if n := accepted.Load(); n != 0 {
			t.Errorf("%d connections from inside the sandbox reached the test's listeners", n)
		}
		// Name lookups must not reach the network through a system service.
		if res := run(t, "dscacheutil -q host -a name example.com"); strings.Contains(res.Output, "ip_address") {
			t.Errorf("dscacheutil resolved example.com from inside the sandbox: %q", clip(res.Output))
		}
	})

	t.Run("defaults write is refused", func(t *testing.T) {
		const domain = "sh.hark.sandbox-probe"
		defer exec.Command("defaults", "delete", domain).Run()
		run(t, "defaults write "+domain+" probe -int 1")
		time.Sleep(200 * time.Millisecond) // cfprefsd writes the file asynchronously
		if out, err := exec.Command("defaults", "read", domain, "probe").CombinedOutput(); err == nil {
			t.Errorf("a preference written inside the sandbox reads back outside it: %q", out)
		}
	})

	t.Run("the terminal is refused", func(t *testing.T) {
		if f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err != nil {
			t.Log("this test has no terminal itself, so this proves little; run it from Terminal")
		} else {
			f.Close()
		}
		refused(t, "print -r hark-sandbox-probe > /dev/tty")
		refused(t, "stty -a < /dev/tty")
	})

	t.Run("signals to processes outside are refused", func(t *testing.T) {
		sleeper := exec.Command("sleep", "60")
		if err := sleeper.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- sleeper.Wait() }()
		defer func() { sleeper.Process.Kill(); <-done }()
		refused(t, "kill -TERM "+strconv.Itoa(sleeper.Process.Pid))
		select {
		case err := <-done:
			done <- err
			t.Errorf("a signal from inside the sandbox stopped a process outside it (%v)", err)
		case <-time.After(500 * time.Millisecond):
		}
	})

	t.Run("other apps and launchd are out of reach", func(t *testing.T) {
		const label = "sh.hark.sandbox-probe"
		defer exec.Command("launchctl", "remove", label).Run()
		refused(t, `osascript -e 'tell application "Finder" to get name of startup disk'`)
		refused(t, "launchctl submit -l "+label+" -- /usr/bin/true")
		if err := exec.Command("launchctl", "list", label).Run(); err == nil {
			t.Errorf("launchctl submit from inside the sandbox created the job %s", label)
		}
		refused(t, "open -g -a Calculator")
		refused(t, "sudo -n true") // setuid, and not on the unconfined list
		// launchd takes requests over the bootstrap port, which no profile
		// rule filters: these must be refused by launchd itself.
		refused(t, "launchctl setenv HARK_SANDBOX_PROBE 1")
		if out, _ := exec.Command("launchctl", "getenv", "HARK_SANDBOX_PROBE").Output(); len(out) > 0 {
			exec.Command("launchctl", "unsetenv", "HARK_SANDBOX_PROBE").Run()
			t.Error("launchctl setenv from inside the sandbox changed launchd's environment")
		}
		refused(t, "launchctl disable gui/$(id -u)/"+label)
		refused(t, "launchctl kickstart gui/$(id -u)/com.apple.Dock.agent")
		// cfprefsd refuses the write; it must not create the file either.
		agents, _ := os.UserHomeDir()
		probe := filepath.Join(agents, "Library", "LaunchAgents", "hark-sandbox-probe.plist")
		refused(t, "defaults write "+strings.TrimSuffix(probe, ".plist")+" k 1")
		if _, err := os.Stat(probe); err == nil {
			os.Remove(probe)
			t.Errorf("defaults write from inside the sandbox left %s", probe)
		}
		refused(t, "mdimport -r /System/Library/Spotlight/RichText.mdimporter")
	})

	t.Run("terminals and other processes' environment are out of reach", func(t *testing.T) {
		refused(t, "head -c 1 /dev/tty")
		if ttys, _ := filepath.Glob("/dev/ttys0*"); len(ttys) > 0 {
			refused(t, "head -c 1 "+ttys[0])
		}
		// KERN_PROCARGS2 of this test process, which runs outside the
		// sandbox as the same user, read the way any interpreter could. It
		// works from outside (the control), so a refusal inside means
		// something.
		procargs := `python3 -c 'import ctypes,sys; libc=ctypes.CDLL(None); mib=(ctypes.c_int*3)(1,49,` + strconv.Itoa(os.Getpid()) + `); size=ctypes.c_size_t(0); sys.exit(0 if libc.sysctl(mib,3,None,ctypes.byref(size),None,0)==0 and size.value>0 else 1)'`
		if err := exec.Command("/bin/sh", "-c", procargs).Run(); err != nil {
			t.Skipf("the control failed outside the sandbox (is python3 installed? %v)", err)
		}
		refused(t, procargs)
	})

	t.Run("a run's processes together stay under the memory cap", func(t *testing.T) {
		// A small cap, so the check is quick and safe: four processes of
		// 200 MiB each pass it only together; one runs to its end.
		capped := NewRunner(RunnerOptions{Shell: "/bin/zsh", Timeout: 60 * time.Second, MemoryLimit: 512 << 20})
		hold := func(secs int) string {
			return fmt.Sprintf(`perl -e '$x = "a" x (200 << 20); sleep %d'`, secs)
		}
		runCapped := func(command string) Result {
			return capped.Run(context.Background(), Request{
				Command: command, WorkingDirectory: home,
				Verdict: Verdict{Command: command, Tier: Confirm}, Sandbox: SandboxReadOnly,
			})
		}
		four := runCapped(hold(50) + " & " + hold(50) + " & " + hold(50) + " & " + hold(50) + " & wait")
		if four.Sandbox != SandboxApplied || four.Success || four.TimedOut || !strings.Contains(four.Error, "memory cap was reached") {
			t.Errorf("four processes past the cap together were not stopped for it: %s", four.JSON())
		}
		if out, _ := exec.Command("pgrep", "-f", "<< 20.; sleep 50$").Output(); len(out) > 0 {
			t.Errorf("processes of the capped run outlived it: %s", out)
		}
		one := runCapped(hold(1))
		if !one.Success || strings.Contains(one.Error, "memory cap") {
			t.Errorf("one process below the cap was stopped: %s", one.JSON())
		}
	})

	// The survey never fails: it records which everyday read-only commands
	// work in the sandbox, for the report. Output is not shown, only the
	// exit status and the start of stderr, which names a refused operation.
	t.Run("survey", func(t *testing.T) {
		for _, c := range []string{
			"sw_vers", "uname -a", "uptime", "w", "who", "last -1", "vm_stat", "iostat -c 1",
			"ioreg -l -d 1 | head -3", "system_profiler SPSoftwareDataType", "system_profiler SPHardwareDataType",
			"diskutil list", "diskutil info /", "df -h /", "mount", "du -sh ~/Library/Caches",
			"pmset -g", "pmset -g batt", "pmset -g assertions", "scutil --get ComputerName",
			"networksetup -listallnetworkservices", "ifconfig", "netstat -rn", "route -n get default",
			"log show --last 1m --style compact | tail -1", "launchctl list | head -3", "kextstat | head -2",
			"crontab -l", "pbpaste | head -c 1", "dscacheutil -q user -a name $USER", "pkgutil --pkgs | head -1",
			"codesign -dv /bin/ls", "codesign -v /bin/ls", "plutil -p /System/Library/CoreServices/SystemVersion.plist",
			"otool -L /bin/ls", "xattr -l /Applications", "lsof -nP -iTCP -sTCP:LISTEN | head -3", "pstree | head -2",
			"git --version", "git -C " + repo + " status --short | head -1", "brew list | head -1", "jq --version", "rg --version",
			// Marked as needing macOS services (they ask under Seatbelt);
			// the survey says whether they really fail sandboxed.
			"tmutil status", "spctl --status", "dscl . -list /Users | head -1", "nvram -p | head -1",
			"timeout 5 log stream | head -1",
		} {
			res := run(t, c)
			status := "ok"
			if res.ExitCode != 0 {
				status = "exit " + strconv.Itoa(res.ExitCode)
			}
			t.Logf("%-50s %-8s %s", c, status, firstLine(res.Error))
		}
	})
}

// clip shortens command output for a message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clip(s)
}
