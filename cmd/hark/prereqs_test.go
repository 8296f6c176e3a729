package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

// TestMakePrereqsOffersTheInstall runs `make prereqs` against fake
// package managers on a PATH of our own: the install line is shown, run
// only after a yes on a terminal, with sudo only for a package manager
// that needs root and only when not root already; without a terminal the
// line is printed and nothing runs, as before.
func TestMakePrereqsOffersTheInstall(t *testing.T) {
	t.Parallel()
	makeBin, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must have make for this test")
		}
		t.Skip("needs make")
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")

	type tc struct {
		name      string
		uname     string            // "Linux" or "Darwin"
		tools     map[string]string // fake programs: name → script body
		tty       bool
		answer    string
		wantExit  int
		wantSays  []string
		wantRan   []string // lines the fakes recorded, in order
		wantNoRun bool
	}
	record := `echo "$(basename "$0") $*" >> "$RECORD"`
	noPortAudio := `case "$*" in *portaudio*) exit 1;; esac; exit 1`
	linux := func(uid string, extra map[string]string) map[string]string {
		m := map[string]string{
			"id":         `echo ` + uid,
			"pkg-config": noPortAudio,
			"apt-get":    record,
			"sudo":       `echo "sudo $*" >> "$RECORD"; exec "$@"`,
		}
		for k, v := range extra {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	cases := []tc{
		{name: "no terminal: the line as before, nothing run",
			uname: "Linux", tools: linux("1000", nil), tty: false,
			wantExit: 2, wantSays: []string{"Install them with:", "  sudo apt-get install portaudio19-dev"}, wantNoRun: true},
		{name: "terminal, no answer",
			uname: "Linux", tools: linux("1000", nil), tty: true, answer: "",
			wantExit: 2, wantSays: []string{"  sudo apt-get install portaudio19-dev", "Install them now? [y/N]"}, wantNoRun: true},
		{name: "terminal, n",
			uname: "Linux", tools: linux("1000", nil), tty: true, answer: "n\n",
			wantExit: 2, wantSays: []string{"Install them now? [y/N]"}, wantNoRun: true},
		{name: "terminal, y, not root: sudo apt-get",
			uname: "Linux", tools: linux("1000", nil), tty: true, answer: "y\n",
			wantExit: 0, wantSays: []string{"+ sudo apt-get install portaudio19-dev", "Installed."},
			wantRan: []string{"sudo apt-get install portaudio19-dev", "apt-get install portaudio19-dev"}},
		{name: "terminal, yes, root: no sudo",
			uname: "Linux", tools: linux("0", nil), tty: true, answer: "yes\n",
			wantExit: 0, wantSays: []string{"  apt-get install portaudio19-dev", "+ apt-get install portaudio19-dev"},
			wantRan: []string{"apt-get install portaudio19-dev"}},
		{name: "pkg-config missing too",
			uname: "Linux", tools: linux("1000", map[string]string{"pkg-config": ""}), tty: true, answer: "y\n",
			wantExit: 0, wantRan: []string{"sudo apt-get install pkg-config portaudio19-dev", "apt-get install pkg-config portaudio19-dev"}},
		{name: "the install fails",
			uname: "Linux", tools: linux("1000", map[string]string{"apt-get": record + "; exit 100"}), tty: true, answer: "y\n",
			wantExit: 2, wantSays: []string{"The install failed"}, wantRan: []string{"sudo apt-get install portaudio19-dev", "apt-get install portaudio19-dev"}},
		{name: "dnf",
			uname: "Linux", tools: linux("1000", map[string]string{"apt-get": "", "dnf": record}), tty: true, answer: "y\n",
			// dnf is first asked whether it has whisper.cpp (it answers nothing here).
			wantExit: 0, wantRan: []string{"dnf info --quiet whisper-cpp-devel", "sudo dnf install portaudio-devel", "dnf install portaudio-devel"}},
		{name: "no known package manager: the names, no offer",
			uname: "Linux", tools: linux("1000", map[string]string{"apt-get": ""}), tty: true, answer: "y\n",
			wantExit: 2, wantSays: []string{"Install them with your package manager"}, wantNoRun: true},
		{name: "nothing missing: no question",
			uname: "Linux", tools: linux("1000", map[string]string{"pkg-config": `case "$*" in *portaudio*) exit 0;; esac; exit 1`}), tty: true, answer: "y\n",
			wantExit: 0, wantSays: []string{"building without whisper.cpp"}, wantNoRun: true},
		{name: "macOS: brew, never sudo",
			uname: "Darwin", tools: map[string]string{"id": "echo 501", "pkg-config": noPortAudio, "brew": record, "ollama": "exit 0", "sudo": record}, tty: true, answer: "y\n",
			wantExit: 0, wantSays: []string{"  brew install portaudio whisper-cpp", "+ brew install portaudio whisper-cpp"}, wantRan: []string{"brew install portaudio whisper-cpp"}},
		{name: "macOS without a terminal stops for portaudio",
			uname: "Darwin", tools: map[string]string{"id": "echo 501", "pkg-config": noPortAudio, "brew": record, "ollama": "exit 0"}, tty: false,
			wantExit: 2, wantSays: []string{"  brew install portaudio", "stopping here"}, wantNoRun: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			// basename is the one outside program the fakes use.
			tools := map[string]string{"basename": `echo "${1##*/}"`, "uname": "echo " + c.uname}
			for k, v := range c.tools {
				tools[k] = v
			}
			for name, body := range tools {
				exectest.WriteProgram(t, filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755)
			}
			rec := filepath.Join(dir, "ran.txt")
			tty := "false"
			if c.tty {
				tty = "true"
			}
			cmd := exec.Command(makeBin, "-s", "--no-print-directory", "-C", root, "prereqs", "UNAME="+c.uname, "PREREQS_TTY="+tty)
			cmd.Env = []string{"PATH=" + bin, "RECORD=" + rec, "HOME=" + dir}
			cmd.Stdin = strings.NewReader(c.answer)
			out, err := cmd.CombinedOutput()
			exit := 0
			if ee, ok := err.(*exec.ExitError); ok {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != c.wantExit {
				t.Errorf("exit %d, want %d\n%s", exit, c.wantExit, out)
			}
			for _, s := range c.wantSays {
				if !strings.Contains(string(out), s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if !c.tty && strings.Contains(string(out), "[y/N]") {
				t.Errorf("asked without a terminal:\n%s", out)
			}
			ranB, _ := os.ReadFile(rec)
			ran := strings.Split(strings.TrimSpace(string(ranB)), "\n")
			if len(ranB) == 0 {
				ran = nil
			}
			if c.wantNoRun && len(ran) > 0 {
				t.Errorf("ran %q, want nothing run", ran)
			}
			if !c.wantNoRun && strings.Join(ran, "|") != strings.Join(c.wantRan, "|") {
				t.Errorf("ran %q, want %q\n%s", ran, c.wantRan, out)
			}
		})
	}
}
