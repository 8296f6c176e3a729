package whisper

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// makeRoot is the repository's root, where the Makefile is.
func makeRoot(t *testing.T) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(self), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI must have %s for this test", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
}

// writeProgram writes an executable file for a test to run at once. The
// write holds the fork lock for reading: a process forked by a parallel
// test while the file is open for writing would keep it open, and running
// the file would then fail with "text file busy".
func writeProgram(t *testing.T, path string, content []byte, perm os.FileMode) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, content, perm)
	syscall.ForkLock.RUnlock()
	if err == nil {
		err = os.Chmod(path, perm) // an existing file keeps its mode; the umask trims a new one's
	}
	if err != nil {
		t.Fatalf("writing the program %s: %v", path, err)
	}
}

// fakeBin writes each program (name → shell script body) into a new
// folder and returns it.
func fakeBin(t *testing.T, dir string, tools map[string]string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range tools {
		writeProgram(t, filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755)
	}
	return bin
}

// ran reads what the fakes recorded, one call a line.
func ran(t *testing.T, record string) []string {
	t.Helper()
	b, err := os.ReadFile(record)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestMakePrereqsOffersTheDistributionsWhisper runs `make prereqs` on
// Linux with fake package managers on a PATH of their own: the package
// manager is asked whether it has whisper.cpp, and when it has, that
// package joins the install line prereqs offers; when it has none, the
// offer is to build whisper.cpp instead. Voice input is optional, so
// declining it, or no terminal, never stops `make run`.
func TestMakePrereqsOffersTheDistributionsWhisper(t *testing.T) {
	t.Parallel()
	needTools(t, "make")
	record := `echo "$(basename "$0") $*" >> "$RECORD"`
	portaudioOnly := `case "$*" in *portaudio*) exit 0;; esac; exit 1`
	aptPolicy := func(candidate string) string {
		if candidate == "" {
			return `exit 0` // apt-cache policy of a name it has never heard of prints nothing
		}
		return `echo "libwhisper-dev:"; echo "  Installed: (none)"; echo "  Candidate: ` + candidate + `"`
	}
	cases := []struct {
		name     string
		tools    map[string]string
		tty      bool
		answer   string
		wantExit int
		says     []string
		lacks    []string
		wantRan  []string
	}{
		{name: "apt has libwhisper-dev: offered, installed on yes",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("1.9.5+dfsg-1")}, tty: true, answer: "y\n",
			says:    []string{"packaged here as libwhisper-dev", "  sudo apt-get install libwhisper-dev", "libwhisper installed: building with whisper.cpp."},
			wantRan: []string{"sudo apt-get install libwhisper-dev", "apt-get install libwhisper-dev"}},
		{name: "apt: with PortAudio missing too, one line for both",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("1.9.5+dfsg-1"), "pkg-config": "exit 1"}, tty: true, answer: "y\n",
			says:    []string{"  sudo apt-get install portaudio19-dev libwhisper-dev"},
			wantRan: []string{"sudo apt-get install portaudio19-dev libwhisper-dev", "apt-get install portaudio19-dev libwhisper-dev"}},
		{name: "apt has libwhisper-dev, no terminal: the line, nothing run, make run goes on",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("1.9.5+dfsg-1")},
			says:  []string{"  sudo apt-get install libwhisper-dev", "building without whisper.cpp"}, lacks: []string{"[y/N]", "make whisper"}},
		{name: "apt has libwhisper-dev, declined: make run goes on without voice",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("1.9.5+dfsg-1")}, tty: true, answer: "n\n",
			says: []string{"Install them now? [y/N]", "building without whisper.cpp"}, lacks: []string{"Build whisper.cpp"}},
		{name: "apt knows no libwhisper-dev (Debian 12): the build is offered instead",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("")},
			says:  []string{"building without whisper.cpp", "run: make whisper"}, lacks: []string{"libwhisper-dev"}},
		{name: "apt has no candidate for it: the same",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("(none)")},
			says:  []string{"run: make whisper"}, lacks: []string{"install libwhisper-dev"}},
		{name: "dnf has whisper-cpp-devel",
			tools: map[string]string{"dnf": `case "$1" in info) echo "Name         : whisper-cpp-devel"; echo "Version      : 1.8.1";; *) ` + record + `;; esac`}, tty: true, answer: "y\n",
			says:    []string{"  sudo dnf install whisper-cpp-devel"},
			wantRan: []string{"sudo dnf install whisper-cpp-devel", "dnf install whisper-cpp-devel"}},
		{name: "dnf has none",
			tools: map[string]string{"dnf": `case "$1" in info) echo "Error: No matching Packages to list" >&2; exit 1;; *) ` + record + `;; esac`},
			says:  []string{"run: make whisper"}, lacks: []string{"whisper-cpp-devel"}},
		{name: "pacman has whisper.cpp",
			tools: map[string]string{"pacman": `case "$1" in -Si) [ "$2" = whisper.cpp ] || exit 1; echo "Repository      : extra"; echo "Name            : whisper.cpp";; *) ` + record + `;; esac`}, tty: true, answer: "yes\n",
			says:    []string{"  sudo pacman -S whisper.cpp"},
			wantRan: []string{"sudo pacman -S whisper.cpp", "pacman -S whisper.cpp"}},
		{name: "none packaged, a terminal, yes: the build says what it lacks and Hark goes on without voice",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("")}, tty: true, answer: "y\n",
			says: []string{"Build whisper.cpp 1.9.3 into", "needs cmake, a C++ compiler and git", "  sudo apt-get install cmake g++ git",
				"whisper.cpp was not built: missing: cmake c++ git", "Hark is built without voice input"}},
		{name: "none packaged, a terminal, no: not built",
			tools: map[string]string{"apt-get": record, "apt-cache": aptPolicy("")}, tty: true, answer: "\n",
			says: []string{"Build whisper.cpp 1.9.3 into", "Not building it"}, lacks: []string{"was not built"}},
	}
	root := makeRoot(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tools := map[string]string{
				"basename":   `echo "${1##*/}"`,
				"uname":      "echo Linux",
				"id":         "echo 1000",
				"sudo":       `echo "sudo $*" >> "$RECORD"; exec "$@"`,
				"pkg-config": portaudioOnly,
			}
			for k, v := range c.tools {
				tools[k] = v
			}
			bin := fakeBin(t, dir, tools)
			rec := filepath.Join(dir, "ran.txt")
			tty := "false"
			if c.tty {
				tty = "true"
			}
			cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "prereqs", "UNAME=Linux", "PREREQS_TTY="+tty)
			cmd.Env = []string{"PATH=" + bin, "RECORD=" + rec, "HOME=" + dir}
			cmd.Stdin = strings.NewReader(c.answer)
			out, err := cmd.CombinedOutput()
			if code := exitCode(t, err); code != c.wantExit {
				t.Errorf("exit %d, want %d\n%s", code, c.wantExit, out)
			}
			for _, s := range c.says {
				if !strings.Contains(string(out), s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range c.lacks {
				if strings.Contains(string(out), s) {
					t.Errorf("output has %q:\n%s", s, out)
				}
			}
			if got := ran(t, rec); strings.Join(got, "|") != strings.Join(c.wantRan, "|") {
				t.Errorf("ran %q, want %q\n%s", got, c.wantRan, out)
			}
		})
	}
}
