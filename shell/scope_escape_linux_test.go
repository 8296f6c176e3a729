package shell

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/internal/sandbox"
	"github.com/hark-sh/hark/shell/scope"
)

// hostileBuild is what a project's own build script does when it is
// hostile: it reaches for everything a build approved in the project
// could reach if it ran with the user's full rights. Each attempt that
// works prints WROTE and its name.
const hostileBuild = `
try() { if ( eval "$1" ) 2>/dev/null; then echo "WROTE: $2"; fi; }
try 'echo evil >> "$H/.bashrc"' bashrc
try 'echo evil > "$H/.profile"' profile
try 'echo evil >> "$H/.ssh/authorized_keys"' authorized_keys
try 'echo "{}" > "$H/.config/hark/settings.json"' hark-settings
try 'echo "{}" > "$H/.config/hark/rules.json"' hark-rules
try 'mkdir -p "$H/.config/autostart" && echo x > "$H/.config/autostart/e.desktop"' autostart
try 'mkdir -p "$H/.config/systemd/user" && echo x > "$H/.config/systemd/user/e.service"' systemd
try 'mkdir -p "$H/.local/bin" && echo x > "$H/.local/bin/sudo"' local-bin-sudo
try 'cp "$H/.ssh/id_rsa" ./stolen' copied-key
try 'echo x > "$H/Documents/new.txt"' documents-new
try 'rm -f "$H/Documents/keep.txt"' documents-rm
try 'echo x > /tmp/hark-scope-escape-$$' tmp-outside
try 'echo "#!/bin/sh" > .git/hooks/pre-commit' git-hook
try 'printf "[core]\\n\\tfsmonitor = evil\\n" >> .git/config' git-config
try 'mv .git/config .git/config.old && echo evil > .git/config' git-config-replaced
echo built > out.txt
echo ref > .git/HEAD2
`

// layHome makes a home folder with the places hostileBuild reaches for
// and a project with a repository in it.
func layHome(t *testing.T) (home, proj string) {
	t.Helper()
	home = t.TempDir()
	for p, body := range map[string]string{
		".bashrc": "orig\n", ".profile": "orig\n", ".ssh/authorized_keys": "orig\n", ".ssh/id_rsa": "KEY\n",
		".config/hark/settings.json": "orig\n", "Documents/keep.txt": "orig\n",
		"proj/.git/config": "orig\n", "proj/.git/HEAD": "ref\n", "proj/src.c": "int main;\n",
	} {
		p = filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "proj/.git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return home, filepath.Join(home, "proj")
}

// A command the user approved in a project runs held to its scope: the
// project. Everything a
// hostile build reaches for outside it is refused by the kernel, through
// the zygote and through the per-command helper; the same build run
// without limits reaches all of it, so the test can tell.
func TestEscapeApprovedRunHeldToItsScope(t *testing.T) {
	requireLandlock(t)
	for _, via := range []string{"zygote", "helper"} {
		t.Run(via, func(t *testing.T) {
			r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
			r.perCommand = via == "helper"
			home, proj := layHome(t)
			sc := scope.Build(scope.Input{Dir: proj, Home: home, Own: []string{filepath.Join(home, ".config/hark")}})
			// Pinned, as the agent pins every folder it runs in: the
			// build's names relative to it (.git/hooks) meet the same
			// mounts as its full ones.
			pin, err := PinDir(proj)
			if err != nil {
				t.Fatal(err)
			}
			defer pin.Close()
			res := r.Run(context.Background(), Request{Command: "H='" + home + "'\n" + hostileBuild, WorkingDirectory: proj,
				Verdict: Verdict{Tier: Confirm}, Scope: &sc, Hide: []string{filepath.Join(home, ".ssh")}, Pin: pin})
			if !res.Executed || res.Sandbox != SandboxScoped {
				t.Fatalf("the build did not run scoped: %s", res.JSON())
			}
			if strings.Contains(res.Output, "WROTE") {
				t.Errorf("the approved build reached outside its scope:\n%s", res.Output)
			}
			for p, want := range map[string]string{".bashrc": "orig\n", ".ssh/authorized_keys": "orig\n",
				".config/hark/settings.json": "orig\n", "Documents/keep.txt": "orig\n",
				"proj/out.txt": "built\n", "proj/.git/HEAD2": "ref\n", "proj/.git/config": "orig\n"} {
				if got, _ := os.ReadFile(filepath.Join(home, p)); string(got) != want {
					t.Errorf("%s holds %q, want %q", p, got, want)
				}
			}
			for _, p := range []string{".config/autostart", ".local/bin", "Documents/new.txt", "proj/stolen"} {
				if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
					t.Errorf("%s was made", p)
				}
			}

			// Without limits the same build reaches all of it.
			off := r.Run(context.Background(), Request{Command: "H='" + home + "'\n" + hostileBuild, WorkingDirectory: proj,
				Verdict: Verdict{Tier: Confirm}, Sandbox: SandboxOff})
			for _, w := range []string{"bashrc", "authorized_keys", "hark-settings", "autostart", "documents-rm", "copied-key", "git-hook", "git-config"} {
				if !strings.Contains(off.Output, "WROTE: "+w+"\n") {
					t.Errorf("without limits the build could not write %s, so the test cannot tell:\n%s", w, off.JSON())
				}
			}
		})
	}
}

// A run approved in the home folder itself, which Hark pins as it pins
// every folder, reaches start-up files, keys, Hark's settings and the
// hooks of the repositories in home by names relative to it no more than
// by full ones: the command starts in its folder as this run's mounts
// show it, not as the runner's do.
func TestEscapeRelativeNamesFromHome(t *testing.T) {
	requireLandlock(t)
	const hostile = `
try() { if ( eval "$1" ) 2>/dev/null; then echo "WROTE: $2"; fi; }
try 'echo evil >> .bashrc' bashrc
try 'echo evil >> .ssh/authorized_keys' authorized_keys
try 'cat .ssh/id_rsa' read-key
try 'cp .ssh/id_rsa stolen' copied-key
try 'echo "{}" > .config/hark/settings.json' hark-settings
try 'echo "#!/bin/sh" > proj/.git/hooks/pre-commit' other-repository-hook
try 'cd proj && echo evil >> .git/config' other-repository-config
echo made > made.txt
`
	for _, via := range []string{"zygote", "helper"} {
		t.Run(via, func(t *testing.T) {
			r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
			r.perCommand = via == "helper"
			home, _ := layHome(t)
			sc := scope.Build(scope.Input{Dir: home, Home: home, Programs: [][]string{{"make"}}, Own: []string{filepath.Join(home, ".config/hark")}})
			pin, err := PinDir(home)
			if err != nil {
				t.Fatal(err)
			}
			defer pin.Close()
			res := r.Run(context.Background(), Request{Command: hostile, WorkingDirectory: home, Verdict: Verdict{Tier: Confirm},
				Scope: &sc, Hide: []string{filepath.Join(home, ".ssh")}, Pin: pin})
			if !res.Executed || res.Sandbox != SandboxScoped {
				t.Fatalf("the run was not scoped: %s", res.JSON())
			}
			if strings.Contains(res.Output, "WROTE") || strings.Contains(res.Output, "KEY") {
				t.Errorf("the approved run reached past its scope by relative names:\n%s", res.Output)
			}
			for p, want := range map[string]string{".bashrc": "orig\n", ".ssh/authorized_keys": "orig\n",
				".config/hark/settings.json": "orig\n", "made.txt": "made\n", "proj/.git/config": "orig\n"} {
				if got, _ := os.ReadFile(filepath.Join(home, p)); string(got) != want {
					t.Errorf("%s holds %q, want %q", p, got, want)
				}
			}
			if _, err := os.Lstat(filepath.Join(home, "stolen")); err == nil {
				t.Error("the key was copied")
			}
			if _, err := os.Lstat(filepath.Join(home, "proj/.git/hooks/pre-commit")); err == nil {
				t.Error("a hook was planted in a repository under home")
			}
		})
	}
}

// A place on the card swapped for a link after the approval changes
// nothing outside the scope: the run does not start.
func TestEscapeApprovedPlaceSwappedForALink(t *testing.T) {
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
	home, proj := layHome(t)
	build := filepath.Join(proj, "build")
	if err := os.Mkdir(build, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(build, "a.o"), []byte("x"), 0o644)
	sc := scope.Build(scope.Input{Dir: proj, Home: home, Known: true, Changes: []scope.Change{{Path: build, Dir: true, Exists: true, Remove: true}}})
	if len(sc.Write) != 1 || sc.Write[0] != build {
		t.Fatalf("scope %+v, want the build folder alone", sc)
	}
	// Between the card and the answer: build becomes a link to Documents.
	if err := os.RemoveAll(build); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "Documents"), build); err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), Request{Command: "rm -rf build/*", WorkingDirectory: proj, Verdict: Verdict{Tier: Confirm}, Scope: &sc})
	if got, _ := os.ReadFile(filepath.Join(home, "Documents/keep.txt")); string(got) != "orig\n" {
		t.Fatalf("Documents was emptied through the swapped link: %s", res.JSON())
	}
	if res.Executed || !strings.Contains(res.Error, "changed after the command was approved") {
		t.Errorf("the run should not start, saying the place changed: %s", res.JSON())
	}
}

// The network is closed to an approved run unless its scope grants it.
func TestEscapeApprovedRunNetworkOnlyWhenGranted(t *testing.T) {
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/bash"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b := make([]byte, 64)
			n, _ := c.Read(b)
			got <- string(b[:n])
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	send := func(word string, sc *scope.Scope) Result {
		cmd := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + " && echo " + word + " >&3"
		return r.Run(context.Background(), Request{Command: cmd, WorkingDirectory: t.TempDir(), Verdict: Verdict{Tier: Confirm}, Scope: sc})
	}
	if res := send("closed", &scope.Scope{Write: []string{t.TempDir()}}); res.ExitCode == 0 {
		t.Errorf("an approved run without the network reached the listener: %s", res.JSON())
	}
	if res := send("open", &scope.Scope{Write: []string{t.TempDir()}, Network: true}); res.ExitCode != 0 {
		t.Fatalf("an approved run granted the network could not connect: %s", res.JSON())
	}
	select {
	case w := <-got:
		if w != "open\n" {
			t.Errorf("the listener received %q, want only the granted run's word", w)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the granted run's word never arrived")
	}
}

// A command whose writes Hark cannot tell, run in home, may change home:
// it makes new files and folders there, while the start-up files, keys
// and Hark's own files stay as they were, held by read-only mounts (in a
// user namespace of the run's own for a user other than root). A kept
// place that does not exist yet in home itself cannot be held without
// closing home, and the result says the run made it.
func TestEscapeApprovedRunInHomeKeepsStartupFiles(t *testing.T) {
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
	home, _ := layHome(t)
	sc := scope.Build(scope.Input{Dir: home, Home: home, Programs: [][]string{{"make"}}, Own: []string{filepath.Join(home, ".config/hark")}})
	if sc.Broad != home || len(sc.NoRemove) != 1 {
		t.Fatalf("a scope of home must say so: %+v", sc)
	}
	script := "H='" + home + "'\n" + hostileBuild + `
mkdir newdir && echo made > newdir/f && echo note > notes.txt && echo ok > proj/built.txt
`
	res := r.Run(context.Background(), Request{Command: script, WorkingDirectory: home, Verdict: Verdict{Tier: Confirm}, Scope: &sc,
		Hide: []string{filepath.Join(home, ".ssh")}})
	if !res.Executed || res.Sandbox != SandboxScoped {
		t.Fatalf("the command did not run scoped: %s", res.JSON())
	}
	for _, w := range []string{"bashrc", "profile", "authorized_keys", "hark-settings", "hark-rules", "autostart", "copied-key"} {
		if strings.Contains(res.Output, "WROTE: "+w+"\n") {
			t.Errorf("the run in home changed %s:\n%s", w, res.Output)
		}
	}
	for p, want := range map[string]string{".bashrc": "orig\n", ".profile": "orig\n", ".ssh/authorized_keys": "orig\n",
		".config/hark/settings.json": "orig\n", "newdir/f": "made\n", "notes.txt": "note\n", "proj/built.txt": "ok\n"} {
		if got, _ := os.ReadFile(filepath.Join(home, p)); string(got) != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	// A kept folder that did not exist is made, empty, to be held.
	if ents, err := os.ReadDir(filepath.Join(home, ".config/autostart")); len(ents) > 0 {
		t.Errorf("an autostart entry was made: %v %v", ents, err)
	}
	// ~/.local did not exist, so ~/.local/bin could be made in home; the
	// result says so.
	if _, err := os.Lstat(filepath.Join(home, ".local/bin/sudo")); err == nil && !strings.Contains(res.Error, "this run made ~/.local/bin") {
		t.Errorf("the run made ~/.local/bin/sudo and the result does not say so: %s", res.JSON())
	}
}

// An approved run reaches nothing of the user's session but what its scope
// grants: no terminal (its own nor another), no other process's
// environment, no signal outside its run, and no local socket (the ssh
// agent, the session bus, Hark's own control socket) unless the scope
// grants the agent; each control outside the sandbox works, so the test
// can tell.
func TestEscapeApprovedRunReachesNoSession(t *testing.T) {
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sc := &scope.Scope{Write: []string{dir}}
	run := func(sc *scope.Scope, mode SandboxMode, args ...string) Result {
		cmd := "'" + exe + "' __escape"
		for _, a := range args {
			cmd += " '" + a + "'"
		}
		return r.Run(context.Background(), Request{Command: cmd, WorkingDirectory: dir, Verdict: Verdict{Tier: Confirm}, Scope: sc, Sandbox: mode})
	}
	other := sleeper(t)
	pid := strconv.Itoa(other.Process.Pid)
	if res := run(sc, SandboxAuto, "proc", pid); strings.Contains(res.Output, "ESCAPED") {
		t.Errorf("an approved run read another process: %s", res.Output)
	}
	if res := run(sc, SandboxAuto, "signal", pid); strings.Contains(res.Output, "ESCAPED") {
		t.Errorf("an approved run signalled another process: %s", res.Output)
	}
	master, slave := openPTY(t)
	if res := run(sc, SandboxAuto, "tiocsti", slave); strings.Contains(res.Output, "ESCAPED") || strings.Contains(readAvailable(master), "INJECTED") {
		t.Errorf("an approved run typed into a terminal: %s", res.Output)
	}

	// A local socket, as the ssh agent and Hark's control socket are.
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			got <- struct{}{}
			c.Close()
		}
	}()
	connect := "exec python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' " + sock
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		connect = "'" + exe + "' __escape unixgram " + sock // a datagram: also a local socket
	}
	if res := r.Run(context.Background(), Request{Command: connect, WorkingDirectory: dir, Verdict: Verdict{Tier: Confirm}, Scope: sc}); res.ExitCode == 0 && !strings.Contains(res.Output, "ESCAPED") && len(got) > 0 {
		t.Errorf("an approved run without the agent reached a local socket: %s", res.JSON())
	}
	select {
	case <-got:
		t.Error("the local socket was reached")
	default:
	}
	if strings.HasPrefix(connect, "exec python3") {
		withAgent := &scope.Scope{Write: []string{dir}, Agent: true}
		res := r.Run(context.Background(), Request{Command: connect, WorkingDirectory: dir, Verdict: Verdict{Tier: Confirm}, Scope: withAgent})
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Errorf("granted the agent, the run could not reach the local socket: %s", res.JSON())
		}
	}
	if res := run(nil, SandboxOff, "proc", pid); !strings.Contains(res.Output, "ESCAPED: read /proc") {
		t.Errorf("control: without limits the same read should work: %s", res.JSON())
	}
}

// A scope of a whole home folder (Hark could not tell what the command
// writes) may make and write files there but remove nothing: no spelling
// of "empty my home folder" — through a variable, an argument, a child
// shell, a pipe, a parameter replacement, $OLDPWD — gets past the
// kernel, while a deletion the card names inside it still runs. Without
// limits the same lines do delete, so the test can tell.
func TestEscapeBroadScopeEmptiesNothing(t *testing.T) {
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/bash"})
	forms := []string{
		`d=~; rm -rf "$d"/*`,
		`rm -rf "${HOME:-/nonexistent}"/Documents`,
		`sh -c 'rm -rf "$1"/Documents' _ ~`,
		`echo ~ | xargs -I{} rm -rf {}/Documents`,
		`find ~ -mindepth 1 -delete`,
		`set -- ~; rm -rf "$1"/Documents`,
		`x=HOME; rm -rf "${!x}"/Documents`,
		`rm -rf "${HOME//\//\/}"/Documents`,
		`mv ~/Documents ~/gone`,
		`cd Documents && cd .. && rm -rf "$PWD"/Documents`,
		`eval "rm -rf $(printf %s ~)/Documents"`,
		`printf '%s\0' ~/Documents | xargs -0 rm -rf`,
	}
	for _, f := range forms {
		home, _ := layHome(t)
		sc := scope.Build(scope.Input{Dir: home, Home: home, Programs: [][]string{{"make"}}})
		if sc.Broad != home || len(sc.NoRemove) != 1 {
			t.Fatalf("a scope of home that may remove nothing: %+v", sc)
		}
		res := r.Run(context.Background(), Request{Command: "export HOME='" + home + "'\n" + f + "\necho made > new.txt", WorkingDirectory: home,
			Verdict: Verdict{Tier: Confirm}, Scope: &sc})
		if got, _ := os.ReadFile(filepath.Join(home, "Documents/keep.txt")); string(got) != "orig\n" {
			t.Errorf("%s emptied home: %s", f, res.JSON())
		}
		if got, _ := os.ReadFile(filepath.Join(home, "new.txt")); string(got) != "made\n" {
			t.Errorf("%s: a file could not be made in home: %s", f, res.JSON())
		}
	}
	home, _ := layHome(t)
	off := r.Run(context.Background(), Request{Command: "export HOME='" + home + "'\n" + forms[0], WorkingDirectory: home, Verdict: Verdict{Tier: Confirm}, Sandbox: SandboxOff})
	if _, err := os.Stat(filepath.Join(home, "Documents")); err == nil {
		t.Fatalf("without limits the line deleted nothing, so the test cannot tell: %s", off.JSON())
	}

	// A file the card names directly in home is made and written; the
	// home it opens is emptied by no spelling either.
	home, _ = layHome(t)
	sc := scope.Build(scope.Input{Dir: home, Home: home, Known: true, Changes: []scope.Change{{Path: filepath.Join(home, "notes.txt")}}})
	res := r.Run(context.Background(), Request{Command: "export HOME='" + home + "'\necho milk >> ~/notes.txt\n" + forms[0], WorkingDirectory: home, Verdict: Verdict{Tier: Confirm}, Scope: &sc})
	if got, _ := os.ReadFile(filepath.Join(home, "notes.txt")); string(got) != "milk\n" {
		t.Errorf("the note on the card was not written: %+v %s", sc, res.JSON())
	}
	if got, _ := os.ReadFile(filepath.Join(home, "Documents/keep.txt")); string(got) != "orig\n" {
		t.Errorf("a scope for one note in home emptied it: %s", res.JSON())
	}

	// A deletion the card names inside home runs.
	home, _ = layHome(t)
	old := filepath.Join(home, "Documents")
	sc = scope.Build(scope.Input{Dir: home, Home: home, Programs: [][]string{{"make"}},
		Changes: []scope.Change{{Path: old, Dir: true, Exists: true, Remove: true}}})
	res = r.Run(context.Background(), Request{Command: "make -v >/dev/null 2>&1; rm -rf Documents", WorkingDirectory: home, Verdict: Verdict{Tier: Confirm}, Scope: &sc})
	if _, err := os.Stat(old); err == nil {
		t.Errorf("the deletion on the card did not run: %+v %s", sc, res.JSON())
	}
}

// A kept place inside a writable one is held by a mount, which moves with
// its folder: a run that could rename the folder around it (.git, or
// ~/.config in a home whose entries the run may remove) could put a
// folder of its own there, with hooks or an autostart entry that run
// outside any sandbox later; one that moved a hidden place's folder would
// show it, under a name nobody hides, to the next run. Every folder on the
// way to a held place is a mount point too, which no rename moves, by full
// names and by names relative to a folder inside the place.
func TestEscapeKeptPlaceByMovingItsFolder(t *testing.T) {
	requireLandlock(t)
	const hostile = `
try() { if ( eval "$1" ) 2>/dev/null; then echo "WROTE: $2"; fi; }
try 'mv .git .gitx && mkdir -p .git/hooks && cp .gitx/HEAD .git/ && echo evil > .git/hooks/pre-commit' git-folder
try 'mv "$H/proj" "$H/proj2" && mkdir -p "$H/proj/.git/hooks" && echo evil > "$H/proj/.git/hooks/pre-commit"' repository-folder
try 'cd .. && mv proj proj3 && mkdir -p proj/.git/hooks && echo evil > proj/.git/hooks/pre-commit' repository-folder-relative
try 'mv "$H/.config" "$H/.configx" && mkdir -p "$H/.config/autostart" && echo x > "$H/.config/autostart/e.desktop"' config-folder
try 'mv "$H/.aws" "$H/.awsx"' hidden-folder
try 'echo evil > .git/hooks/pre-commit' git-hook-relative
try 'echo evil >> .git/config' git-config-relative
try 'echo evil > "$H/proj/.git/hooks/pre-commit"' git-hook
try 'cat ../.aws/credentials | grep -q KEY' hidden-read
`
	for _, via := range []string{"zygote", "helper"} {
		t.Run(via, func(t *testing.T) {
			r, z := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
			r.perCommand = via == "helper"
			home, proj := layHome(t)
			os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
			os.WriteFile(filepath.Join(home, ".aws/credentials"), []byte("KEY\n"), 0o600)
			// Home with what it holds, removals included, as a command
			// that removes something in home gets: run in a repository
			// there.
			sc := scope.Scope{Write: []string{home}, Keep: []string{filepath.Join(proj, ".git/hooks") + "/", filepath.Join(proj, ".git/config"),
				filepath.Join(home, ".config/autostart") + "/", filepath.Join(home, ".config/hark") + "/"}}
			hide := []string{filepath.Join(home, ".aws/credentials")}
			pin, err := PinDir(proj)
			if err != nil {
				t.Fatal(err)
			}
			defer pin.Close()
			res := r.Run(context.Background(), Request{Command: "H='" + home + "'\n" + hostile, WorkingDirectory: proj,
				Verdict: Verdict{Tier: Confirm}, Scope: &sc, Hide: hide, Pin: pin})
			if !res.Executed || res.Sandbox != SandboxScoped {
				t.Fatalf("the run was not scoped: %s", res.JSON())
			}
			if strings.Contains(res.Output, "WROTE") {
				t.Errorf("the run moved a folder around a held place:\n%s", res.Output)
			}
			for _, p := range []string{"proj/.git/hooks/pre-commit", ".config/autostart/e.desktop", ".awsx"} {
				if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
					t.Errorf("%s was made", p)
				}
			}
			// The next run of the same scope reads no key by a new name.
			res = r.Run(context.Background(), Request{Command: "cat .awsx/credentials ../.awsx/credentials ../.aws/credentials", WorkingDirectory: proj,
				Verdict: Verdict{Tier: Confirm}, Scope: &sc, Hide: hide, Pin: pin})
			if strings.Contains(res.Output, "KEY") {
				t.Errorf("the next run read the hidden key: %s", res.JSON())
			}
			if via == "zygote" && sandbox.ZygoteMounts() {
				b, _ := os.ReadFile("/proc/" + strconv.Itoa(z.PID()) + "/mountinfo")
				if strings.Contains(string(b), home) {
					t.Errorf("a run's mount is left in the zygote's namespace:\n%s", b)
				}
			}
		})
	}
}

// Two approved runs overlap, and the first made a kept folder (one that
// did not exist) to hold it: when it ends it must not take the folder
// away while the second still holds it, or the second's mount goes with
// it and the second writes a start-up file its card said it could not.
func TestEscapeOverlappingRunsKeepAMadeFolder(t *testing.T) {
	requireLandlock(t)
	for _, via := range []string{"zygote", "helper"} {
		t.Run(via, func(t *testing.T) {
			r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
			r.perCommand = via == "helper"
			home, _ := layHome(t)
			fish := filepath.Join(home, ".config/fish")
			sc := scope.Scope{Write: []string{home}, Keep: []string{fish + "/"}}
			first := make(chan Result, 1)
			// wait returns once name exists, or the first run has ended
			// (it failed to start: see below).
			wait := func(name string) {
				for len(first) == 0 {
					if _, err := os.Stat(filepath.Join(home, name)); err == nil {
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			go func() {
				first <- r.Run(context.Background(), Request{Command: "touch a-running; while [ ! -e b-holding ]; do sleep 0.01; done",
					WorkingDirectory: home, Verdict: Verdict{Tier: Confirm}, Scope: &sc})
			}()
			wait("a-running") // the first run made the folder, and holds it (or failed: see below)
			second := make(chan Result, 1)
			go func() {
				second <- r.Run(context.Background(), Request{Command: "touch b-holding; while [ ! -e go-on ]; do sleep 0.01; done; " +
					"mkdir -p .config/fish; echo evil > .config/fish/config.fish && echo WROTE", WorkingDirectory: home, Verdict: Verdict{Tier: Confirm}, Scope: &sc})
			}()
			resA := <-first
			// Whatever the first run did, the second is let go on, so that
			// neither is left waiting.
			if err := os.WriteFile(filepath.Join(home, "go-on"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			res := <-second
			if !resA.Success || resA.Sandbox != SandboxScoped {
				t.Fatalf("the first run: %s", resA.JSON())
			}
			if strings.Contains(res.Output, "WROTE") {
				t.Errorf("the second run wrote a start-up file once the first ended: %s", res.JSON())
			}
			if _, err := os.Lstat(filepath.Join(fish, "config.fish")); err == nil {
				t.Error("config.fish was made")
			}
		})
	}
}

// A build that writes .git/commondir moves the repository's settings and
// hooks to a folder of its own (git reads config and hooks/ from there),
// past the mounts that keep .git/config and .git/hooks: the user's next
// git status would run its core.fsmonitor. It cannot be held before it
// exists without closing .git, so the run says it made it.
func TestEscapeGitCommondirIsSaid(t *testing.T) {
	requireLandlock(t)
	r, _ := zygoteRunner(t, RunnerOptions{Shell: "/bin/sh"})
	r.perCommand = true
	home, proj := layHome(t)
	sc := scope.Build(scope.Input{Dir: proj, Home: home, Own: []string{filepath.Join(home, ".config/hark")}})
	pin, err := PinDir(proj)
	if err != nil {
		t.Fatal(err)
	}
	defer pin.Close()
	build := "mkdir -p evil/hooks && printf '[core]\\n\\tfsmonitor = evil\\n' > evil/config && echo \"$PWD/evil\" > .git/commondir && echo made"
	res := r.Run(context.Background(), Request{Command: build, WorkingDirectory: proj,
		Verdict: Verdict{Tier: Confirm}, Scope: &sc, Pin: pin})
	if !res.Executed || res.Sandbox != SandboxScoped {
		t.Fatalf("the build did not run scoped: %s", res.JSON())
	}
	if _, err := os.Lstat(filepath.Join(proj, ".git/commondir")); err == nil && !strings.Contains(res.Error, "proj/.git/commondir") {
		t.Errorf("the run moved the repository's settings to a folder of its own and said nothing: %s", res.JSON())
	}
}
