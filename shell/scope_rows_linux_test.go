package shell

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hark-sh/hark/shell/scope"
)

// rowRun is one program of the policy table's rows run as people run it,
// approved, in a project in a throwaway home: what it needs laid out, the
// command, and how to tell from outside that it did its work.
type rowRun struct {
	row   string     // the program whose row is tested
	also  string     // for a second run of the same row: what it adds
	needs []string   // programs that must be installed
	dir   string     // where it runs, under home
	progs [][]string // the programs the line runs, as the policy names them
	setup func(t *testing.T, h *rowHome)
	cmd   string // $URL is the web server, $PORT the ssh stand-in, $PID and $NAME the sleeper
	// did says whether the command did its work where the row says; the
	// approved run must, the run without the row's grant must not.
	did func(t *testing.T, h *rowHome) bool
	// noServer: the command cannot complete here (no ssh server), so
	// only what it reached is checked, not its exit status.
	noServer bool
	// gap, when set, is what the row lacks today, and the words of the
	// approved run's failure that show it: the case is skipped with it
	// while the run fails so, and fails once the row is complete, to be
	// turned into a plain case.
	gap, gapSays string
}

// rowHome is one run's world: a home with a project, the variables the
// run sees, and the stand-ins it works against.
type rowHome struct {
	home, proj string
	env        map[string]string // for the run and for scope.Build
	url        string            // a web server on loopback
	banners    chan string       // what an ssh client sent the fake server
	sleeper    *exec.Cmd
}

func (h *rowHome) write(t *testing.T, rel, body string) {
	t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.home, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exists says whether every one of rels lies under home.
func (h *rowHome) exists(rels ...string) bool {
	for _, rel := range rels {
		if !filepath.IsAbs(rel) {
			rel = filepath.Join(h.home, rel)
		}
		if _, err := os.Stat(rel); err != nil {
			return false
		}
	}
	return true
}

// nonEmpty says whether the folder p (under home unless absolute) holds
// anything.
func (h *rowHome) nonEmpty(p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.home, p)
	}
	ents, err := os.ReadDir(p)
	return err == nil && len(ents) > 0
}

// startSleeper starts a process of the user's own, outside any run, for
// kill, pkill and killall to stop: argv0 names it, exe runs it.
func (h *rowHome) startSleeper(t *testing.T, exe, argv0 string) {
	t.Helper()
	c := exec.Command(exe, "1000000")
	c.Args[0] = argv0
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	h.sleeper = c
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
}

// killedByRun stops the sleeper with SIGKILL and says whether something
// had already sent it SIGTERM: a fatal signal sent first is the one its
// status reports, with no need to wait for it.
func (h *rowHome) killedByRun(t *testing.T) bool {
	t.Helper()
	h.sleeper.Process.Signal(syscall.SIGKILL)
	h.sleeper.Wait()
	ws, ok := h.sleeper.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
}

// gitRepo makes proj a repository with one commit and a subfolder.
func gitRepo(t *testing.T, h *rowHome) {
	t.Helper()
	h.write(t, "proj/README.md", "hello\n")
	h.write(t, "proj/sub/a.txt", "a\n")
	c := exec.Command("/bin/sh", "-c", "git init -q && git add README.md && git -c user.name=a -c user.email=a@b commit -qm init")
	c.Dir, c.Env = h.proj, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.home, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func gitCommits(h *rowHome) int {
	out, _ := exec.Command("git", "-C", h.proj, "rev-list", "--count", "HEAD").Output()
	var n int
	fmt.Sscan(string(out), &n)
	return n
}

// goModule lays out a project that needs example.com/dep, served by a
// module proxy on the disk, so that go build fills both of Go's caches
// without the network.
func goModule(t *testing.T, h *rowHome) {
	t.Helper()
	proxy := filepath.Join(t.TempDir(), "proxy")
	v := filepath.Join(proxy, "example.com/dep/@v")
	h.write(t, filepath.Join(v, "list"), "v1.0.0\n")
	h.write(t, filepath.Join(v, "v1.0.0.info"), `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`)
	h.write(t, filepath.Join(v, "v1.0.0.mod"), "module example.com/dep\n\ngo 1.21\n")
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, body := range map[string]string{"go.mod": "module example.com/dep\n\ngo 1.21\n", "dep.go": "package dep\n\nconst Word = \"dep\"\n"} {
		w, _ := z.Create("example.com/dep@v1.0.0/" + name)
		io.WriteString(w, body)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.write(t, "proj/go.mod", "module example.com/p\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n")
	h.write(t, "proj/main.go", "package main\n\nimport \"example.com/dep\"\n\nfunc main() { println(dep.Word) }\n")
	for k, val := range map[string]string{"GOPROXY": "file://" + proxy, "GOSUMDB": "off", "GOFLAGS": "-mod=mod",
		"GOTOOLCHAIN": "local", "GOTELEMETRY": "off"} {
		h.env[k] = val
	}
}

// npmPackage lays out a package tarball beside the project, with a
// program that writes ran.txt in the folder it runs in.
func npmPackage(t *testing.T, h *rowHome) {
	t.Helper()
	h.write(t, "proj/package.json", `{"name":"p","version":"1.0.0"}`)
	h.write(t, "pkg/package/package.json", `{"name":"dep","version":"1.0.0","bin":{"dep":"bin.js"}}`)
	h.write(t, "pkg/package/bin.js", "#!/usr/bin/env node\nrequire('fs').writeFileSync('ran.txt', 'ran')\n")
	c := exec.Command("tar", "-czf", "../dep-1.0.0.tgz", "package")
	c.Dir = filepath.Join(h.home, "pkg")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for k, val := range map[string]string{"npm_config_update_notifier": "false", "npm_config_audit": "false", "npm_config_fund": "false"} {
		h.env[k] = val
	}
}

// wheel is a pure-Python wheel of the package dep, as an index serves it.
func wheel(t *testing.T) []byte {
	t.Helper()
	var b strings.Builder
	z := zip.NewWriter(&b)
	for name, body := range map[string]string{
		"dep.py":                       "WORD = 'dep'\n",
		"dep-1.0.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: dep\nVersion: 1.0.0\n",
		"dep-1.0.0.dist-info/WHEEL":    "Wheel-Version: 1.0\nGenerator: hark-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		"dep-1.0.0.dist-info/RECORD":   "dep.py,,\ndep-1.0.0.dist-info/METADATA,,\ndep-1.0.0.dist-info/WHEEL,,\ndep-1.0.0.dist-info/RECORD,,\n",
	} {
		w, _ := z.Create(name)
		io.WriteString(w, body)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

func pipRun(prog string) rowRun {
	return rowRun{row: prog, needs: []string{prog}, dir: "proj", progs: [][]string{{prog, "download"}},
		setup: func(t *testing.T, h *rowHome) {
			h.env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
			h.env["PIP_NO_INPUT"] = "1"
			if r := os.Getenv("PYENV_ROOT"); r != "" {
				h.env["PYENV_ROOT"] = r
			}
		},
		cmd: prog + " download -q --no-deps -d dl --index-url $URL/simple --trusted-host 127.0.0.1 dep",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/dl/dep-1.0.0-py3-none-any.whl") && h.nonEmpty(".cache/pip")
		}}
}

func killRun(row, cmd string) rowRun {
	return rowRun{row: row, needs: []string{row, "sleep"}, dir: "proj", progs: [][]string{{row}},
		setup: func(t *testing.T, h *rowHome) {
			sleep, _ := exec.LookPath("sleep")
			// A name of its own, short enough to be the process's name
			// for killall.
			exe := filepath.Join(t.TempDir(), fmt.Sprintf("hkrow%d", os.Getpid()%100000))
			body, err := os.ReadFile(sleep)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(exe, body, 0o755); err != nil {
				t.Fatal(err)
			}
			h.startSleeper(t, exe, filepath.Base(exe))
		},
		cmd: cmd,
		did: func(t *testing.T, h *rowHome) bool { return h.killedByRun(t) }}
}

// sshRun is a run of a program that reaches an ssh server. No server
// can run here, so it is checked by what it reached: the stand-in hears
// the client's greeting. The agent half of these rows is not exercised.
func sshRun(row, cmd string) rowRun {
	return rowRun{row: row, needs: []string{row}, dir: "proj", progs: [][]string{{row}}, cmd: cmd, noServer: true,
		did: func(t *testing.T, h *rowHome) bool {
			select {
			case b := <-h.banners:
				return strings.HasPrefix(b, "SSH-2.0-")
			default:
				return false
			}
		}}
}

// cargoGitDep lays out a crate that needs another from a repository on
// the disk, which cargo fetches into its home as it would from a server.
func cargoGitDep(t *testing.T, h *rowHome) {
	t.Helper()
	dep := filepath.Join(t.TempDir(), "dep")
	h.write(t, filepath.Join(dep, "Cargo.toml"), "[package]\nname = \"dep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	h.write(t, filepath.Join(dep, "src/lib.rs"), "pub const WORD: &str = \"dep\";\n")
	c := exec.Command("/bin/sh", "-c", "git init -q && git add -A && git -c user.name=a -c user.email=a@b commit -qm dep")
	c.Dir, c.Env = dep, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.home, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	h.write(t, "proj/Cargo.toml", "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndep = { git = \"file://"+dep+"\" }\n")
	h.write(t, "proj/src/main.rs", "fn main() { println!(\"{}\", dep::WORD); }\n")
	// The toolchain rustup installed, which cargo's proxy runs.
	rust := os.Getenv("RUSTUP_HOME")
	if rust == "" {
		rust = filepath.Join(os.Getenv("HOME"), ".rustup")
	}
	h.env["RUSTUP_HOME"] = rust
	v := exec.Command("cargo", "--version")
	v.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.home, "RUSTUP_HOME=" + rust}
	if out, err := v.CombinedOutput(); err != nil {
		t.Skipf("cargo is installed but has no toolchain to run here: %v\n%s", err, out)
	}
}

var rowRuns = []rowRun{
	{row: "cargo", needs: []string{"cargo"}, dir: "proj", progs: [][]string{{"cargo", "build"}}, setup: cargoGitDep,
		cmd: "cargo build -q",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/target/debug/p") && h.nonEmpty(".cargo/git")
		}},
	{row: "go", needs: []string{"go"}, dir: "proj", progs: [][]string{{"go", "build"}}, setup: goModule,
		cmd: "go build -o app .",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/app", "go/pkg/mod/example.com/dep@v1.0.0/dep.go") && h.nonEmpty(".cache/go-build")
		}},
	{row: "go", also: "caches_moved", needs: []string{"go"}, dir: "proj", progs: [][]string{{"go", "build"}},
		setup: func(t *testing.T, h *rowHome) {
			goModule(t, h)
			// Both caches moved outside home, where the user keeps them.
			caches := t.TempDir()
			h.env["GOCACHE"], h.env["GOMODCACHE"] = filepath.Join(caches, "build"), filepath.Join(caches, "mod")
			os.Mkdir(h.env["GOCACHE"], 0o755)
			os.Mkdir(h.env["GOMODCACHE"], 0o755)
		},
		cmd: "go build -o app .",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/app", filepath.Join(h.env["GOMODCACHE"], "example.com/dep@v1.0.0/dep.go")) &&
				h.nonEmpty(h.env["GOCACHE"]) && !h.exists(".cache/go-build") && !h.exists("go")
		}},
	{row: "git", needs: []string{"git"}, dir: "proj/sub", progs: [][]string{{"git", "add"}, {"git", "commit"}}, setup: gitRepo,
		cmd: "git add a.txt && git -c user.name=a -c user.email=a@b commit -qm 'add a'",
		did: func(t *testing.T, h *rowHome) bool { return gitCommits(h) == 2 }},
	{row: "git", also: "worktree", needs: []string{"git"}, dir: "proj", progs: [][]string{{"git", "worktree", "add", "-q", "-b", "fix", "../wt"}},
		setup: gitRepo, cmd: "git worktree add -q -b fix ../wt",
		did: func(t *testing.T, h *rowHome) bool { return h.exists("wt/README.md", "proj/.git/worktrees/wt") }},
	{row: "ssh-keygen", needs: []string{"ssh-keygen"}, dir: "proj", progs: [][]string{{"ssh-keygen", "-q"}},
		setup: func(t *testing.T, h *rowHome) { os.Mkdir(filepath.Join(h.home, ".ssh"), 0o700) },
		cmd:   "ssh-keygen -q -t ed25519 -N '' -f ~/.ssh/id_row",
		did:   func(t *testing.T, h *rowHome) bool { return h.exists(".ssh/id_row", ".ssh/id_row.pub") }},
	{row: "npm", needs: []string{"npm", "node"}, dir: "proj", progs: [][]string{{"npm", "install"}}, setup: npmPackage,
		cmd: "npm install --offline ../dep-1.0.0.tgz",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/node_modules/dep/bin.js") && h.nonEmpty(".npm")
		}},
	{row: "npx", needs: []string{"npx", "node"}, dir: "proj", progs: [][]string{{"npx", "--yes"}}, setup: npmPackage,
		cmd: "npx --yes --offline --package ../dep-1.0.0.tgz dep",
		did: func(t *testing.T, h *rowHome) bool { return h.exists("proj/ran.txt") && h.nonEmpty(".npm/_npx") }},
	{row: "pnpm", needs: []string{"pnpm", "node"}, dir: "proj", progs: [][]string{{"pnpm", "add"}}, setup: npmPackage,
		cmd: "pnpm add ../dep-1.0.0.tgz",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/node_modules/dep/bin.js") && h.nonEmpty(".local/share/pnpm")
		}},
	// Yarn keeps root's cache in /usr/local/share, not in home (tests run
	// as root in CI), so the cache is put where the user says instead.
	{row: "yarn", needs: []string{"yarn", "node"}, dir: "proj", progs: [][]string{{"yarn", "add"}},
		setup: func(t *testing.T, h *rowHome) {
			npmPackage(t, h)
			h.env["YARN_CACHE_FOLDER"] = filepath.Join(t.TempDir(), "yarn")
			os.Mkdir(h.env["YARN_CACHE_FOLDER"], 0o755)
		},
		cmd: "yarn add --non-interactive ../dep-1.0.0.tgz",
		did: func(t *testing.T, h *rowHome) bool {
			return h.exists("proj/node_modules/dep/bin.js") && h.nonEmpty(h.env["YARN_CACHE_FOLDER"])
		}},
	pipRun("pip"),
	pipRun("pip3"),
	{row: "curl", needs: []string{"curl"}, dir: "proj", progs: [][]string{{"curl", "-fsSo"}},
		cmd: "curl -fsSo file.txt $URL/file.txt",
		did: func(t *testing.T, h *rowHome) bool {
			b, _ := os.ReadFile(filepath.Join(h.proj, "file.txt"))
			return string(b) == "downloaded\n"
		}},
	{row: "wget", needs: []string{"wget"}, dir: "proj", progs: [][]string{{"wget", "-q"}},
		cmd: "wget -q --tries=1 -O page.html $URL/page.html",
		did: func(t *testing.T, h *rowHome) bool {
			b, _ := os.ReadFile(filepath.Join(h.proj, "page.html"))
			return string(b) == "downloaded\n"
		}},
	sshRun("ssh", "ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p $PORT 127.0.0.1 true"),
	sshRun("scp", "scp -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -P $PORT 127.0.0.1:f ."),
	sshRun("sftp", "sftp -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -P $PORT 127.0.0.1"),
	sshRun("rsync", "rsync -a -e \"ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p $PORT\" 127.0.0.1:f ."),
	killRun("kill", "kill $PID"),
	killRun("pkill", "pkill -x $NAME"),
	killRun("killall", "killall $NAME"),
}

// TestScopeRowsHoldRealRuns runs, for each row of the policy table whose
// program is installed here, a typical command of that program approved
// in a project in a throwaway home, held to the scope Build gives it, and
// checks from outside that it did its work where the row says (a cache
// filled, a commit made, a key saved, a process stopped, a server
// reached). The same command with the row's grant taken out of the scope
// (its places; for a row with none, its network or signals) must not:
// so the row is what makes it work. Network programs work against
// stand-ins on loopback; nothing leaves the machine.
func TestScopeRowsHoldRealRuns(t *testing.T) {
	requireLandlock(t)
	covered := map[string]bool{}
	for _, c := range rowRuns {
		covered[c.row] = true
	}
	// Rows with no run here, and why.
	none := map[string]string{
		"brew": "Homebrew's places are macOS ones",
		"uv":   "uv is neither installed here nor in the registries this project reaches, so no run of it could be tried",
	}
	for _, row := range scope.Rows() {
		if !covered[row] && none[row] == "" {
			t.Errorf("the row %s has no real run here, nor a reason for none", row)
		}
	}
	for _, c := range rowRuns {
		name := c.row
		if c.also != "" {
			name += "_" + c.also
		}
		t.Run(name, func(t *testing.T) {
			for _, p := range c.needs {
				if _, err := exec.LookPath(p); err != nil {
					t.Skipf("%s is not installed here, so its row cannot be run", p)
				}
			}
			for _, with := range []bool{true, false} {
				h, res := runRow(t, c, with)
				if with && c.gap != "" {
					if res.Success || !strings.Contains(res.Error+res.Output, c.gapSays) {
						t.Fatalf("the row's gap (%s) no longer shows: make this a plain case: %s", c.gap, res.JSON())
					}
					t.Skip("known gap in the row: " + c.gap)
				}
				switch {
				case !res.Executed || res.Sandbox != SandboxScoped:
					t.Fatalf("with the row %v: the command did not run held to its scope: %s", with, res.JSON())
				case with && !c.noServer && !res.Success:
					t.Errorf("approved with its row, %q failed: %s", c.cmd, res.JSON())
				case with && !c.did(t, h):
					t.Errorf("approved with its row, %q did not do its work where the row says: %s", c.cmd, res.JSON())
				case !with && c.did(t, h):
					t.Errorf("without its row's grant, %q still did its work, so the row is not what makes it work: %s", c.cmd, res.JSON())
				case !with && !c.noServer && res.Success:
					t.Logf("without its row's grant %q did not write where the row says, yet exited 0: it goes on without its cache", c.cmd)
				}
			}
		})
	}
}

// runRow lays out a fresh home for c and runs it approved, held to the
// scope Build gives it, or to that scope less the row's grant.
func runRow(t *testing.T, c rowRun, with bool) (*rowHome, Result) {
	t.Helper()
	home := t.TempDir()
	h := &rowHome{home: home, proj: filepath.Join(home, "proj"), env: map[string]string{}, banners: make(chan string, 4)}
	if err := os.MkdirAll(h.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	whl := wheel(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		switch {
		case r.URL.Path == "/simple/dep/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintln(w, `<html><body><a href="/files/dep-1.0.0-py3-none-any.whl">dep-1.0.0-py3-none-any.whl</a></body></html>`)
		case strings.HasSuffix(r.URL.Path, ".whl"):
			w.Write(whl)
		default:
			fmt.Fprintln(w, "downloaded")
		}
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL
	// A stand-in ssh server: it says who it is, reads the client's
	// greeting and hangs up.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(conn, "SSH-2.0-HarkTest\r\n")
			line, _ := bufio.NewReader(conn).ReadString('\n')
			h.banners <- line
			conn.Close()
		}
	}()
	if c.setup != nil {
		c.setup(t, h)
	}
	dir := filepath.Join(home, c.dir)
	sc := scope.Build(scope.Input{Dir: dir, Home: home, Programs: c.progs, Env: func(k string) string { return h.env[k] },
		Own: []string{filepath.Join(home, ".config/hark")}})
	if !with {
		sc = withoutRow(sc)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "URL=" + h.url,
		"PORT=" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)}
	if h.sleeper != nil {
		env = append(env, "PID="+fmt.Sprint(h.sleeper.Process.Pid), "NAME="+filepath.Base(h.sleeper.Path))
	}
	for k, v := range h.env {
		env = append(env, k+"="+v)
	}
	r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh", Environ: env})
	res := r.Run(context.Background(), Request{Command: c.cmd, WorkingDirectory: dir, Verdict: confirmed, Scope: &sc})
	return h, res
}

// withoutRow is sc less what the program rows granted: the places they
// added or, where they added none, the network, the agent and signals.
func withoutRow(sc scope.Scope) scope.Scope {
	if len(sc.Why) == 0 {
		sc.Network, sc.Agent, sc.Signals = false, false, false
		return sc
	}
	var write []string
	for _, p := range sc.Write {
		if _, ok := sc.Why[p]; !ok {
			write = append(write, p)
		}
	}
	sc.Write, sc.Why = write, nil
	return sc
}
