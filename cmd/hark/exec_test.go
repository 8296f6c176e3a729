package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

type execRun struct {
	code           int
	stdout, stderr string
	result         shell.Result
}

// runExecCLI drives `hark exec` through dispatch with buffers, as a person
// at a terminal (terminal=true, answering with stdin) or a script would.
func runExecCLI(t *testing.T, stdin string, terminal bool, args ...string) execRun {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, isTerminal: terminal}
	code := dispatch(context.Background(), e, append([]string{"exec"}, args...))
	r := execRun{code: code, stdout: out.String(), stderr: errb.String()}
	if code == exitOK {
		if !json.Valid(out.Bytes()) || strings.Count(out.String(), "\n") != 1 {
			t.Fatalf("stdout is not one JSON object: %q", out.String())
		}
		if err := json.Unmarshal(out.Bytes(), &r.result); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// execHome isolates the settings, which exec reads its defaults from, and
// the home folder, where commands run by default: a policy regression in a
// test that passes --yes must not touch the real one.
func execHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HARK_HOME", home)
	t.Setenv("HOME", t.TempDir())
	return home
}

func TestExecTiers(t *testing.T) {
	execHome(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	landlock, _ := shell.SandboxStatus()
	wantSafeSandbox := shell.SandboxUnavailable
	if landlock {
		wantSafeSandbox = shell.SandboxApplied
	}
	tests := []struct {
		name       string
		stdin      string
		terminal   bool
		args       []string
		wantRun    bool // the marker file exists afterwards
		wantResult func(t *testing.T, r shell.Result)
		wantStderr string
	}{
		{
			name: "safe runs sandboxed",
			args: []string{"--dir", dir, "--", "echo hello"},
			wantResult: func(t *testing.T, r shell.Result) {
				if !r.Executed || !r.Success || r.Output != "hello\n" || r.Tier != shell.Safe || r.Sandbox != wantSafeSandbox || r.WorkingDirectory != dir {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "failing command is still exit 0, status as data",
			args: []string{"--", "ls /no/such/place"},
			wantResult: func(t *testing.T, r shell.Result) {
				if !r.Executed || r.Success || r.ExitCode == 0 || !strings.Contains(r.Error, "No such file") {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "forbidden is never run, even with --yes",
			args: []string{"--yes", "--", "sudo touch " + marker},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Executed || r.Tier != shell.Forbidden || !strings.Contains(r.Error, "privilege escalation") {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "the working directory counts: rm -rf * at home is forbidden",
			args: []string{"--yes", "--", "rm -rf *"},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Executed || r.Tier != shell.Forbidden {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "confirm without a terminal is not run",
			args: []string{"--", "touch " + marker},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Executed || r.Tier != shell.Confirm || !strings.Contains(r.Error, "needs confirmation: re-run with --yes or from a terminal") || len(r.Reasons) == 0 {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name:    "confirm with --yes runs held to its scope",
			args:    []string{"--yes", "--", "touch " + marker},
			wantRun: true,
			wantResult: func(t *testing.T, r shell.Result) {
				want := shell.SandboxScoped
				if ok, _ := shell.SandboxStatus(); !ok {
					want = shell.SandboxUnavailable
				}
				if !r.Executed || !r.Success || r.Sandbox != want || want == shell.SandboxScoped && (r.Scope == nil || len(r.Scope.Write) != 1) {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name:       "confirm answered yes at the terminal",
			stdin:      "y\n",
			terminal:   true,
			args:       []string{"--", "touch " + marker},
			wantRun:    true,
			wantStderr: "Run this? [N]o (safe choice) / [y]es",
			wantResult: func(t *testing.T, r shell.Result) {
				if !r.Executed || !r.Success {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name:       "confirm shows the command and reasons before asking",
			stdin:      "n\n",
			terminal:   true,
			args:       []string{"--", "touch " + marker},
			wantStderr: "touch: creates or updates files",
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Executed || !strings.Contains(r.Error, "The user denied this command") {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name:     "confirm with no answer is declined",
			stdin:    "",
			terminal: true,
			args:     []string{"--", "touch " + marker},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Executed {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "missing directory is reported, not run",
			args: []string{"--dir", filepath.Join(dir, "nope"), "--", "echo hi"},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Executed || !strings.Contains(r.Error, "does not exist") {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "timeout",
			args: []string{"--timeout", "300ms", "--", "sleep 20"},
			wantResult: func(t *testing.T, r shell.Result) {
				if !r.TimedOut || r.Success {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			// With no sandbox even a safe command is asked about.
			name:     "sandbox off for a safe command",
			stdin:    "y\n",
			terminal: true,
			args:     []string{"--sandbox", "off", "--", "echo hi"},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Sandbox != shell.SandboxNotApplied || !r.Success {
					t.Errorf("%+v", r)
				}
			},
		},
		{
			name: "words after -- are joined",
			args: []string{"--", "echo", "two", "words"},
			wantResult: func(t *testing.T, r shell.Result) {
				if r.Command != "echo two words" || r.Output != "two words\n" {
					t.Errorf("%+v", r)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			r := runExecCLI(t, tt.stdin, tt.terminal, tt.args...)
			if r.code != exitOK {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			tt.wantResult(t, r.result)
			_, err := os.Stat(marker)
			if ran := err == nil; ran != tt.wantRun {
				t.Errorf("marker created %v, want %v", ran, tt.wantRun)
			}
			if !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.wantStderr)
			}
		})
	}
}

// The sandbox applies under exec, so a safe-looking command cannot write.
func TestExecSandboxBlocksWrites(t *testing.T) {
	execHome(t)
	ok, detail := shell.SandboxStatus()
	if runtime.GOOS != "linux" {
		t.Skip("this test drives the Landlock sandbox, which only Linux has")
	}
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI's kernel must offer Landlock, but the sandbox is unavailable: " + detail)
		}
		t.Skip("no sandbox to test here: " + detail)
	}
	target := filepath.Join(t.TempDir(), "f")
	r := runExecCLI(t, "", false, "--sandbox", "read-only", "--yes", "--", "touch "+target)
	if r.result.Sandbox != shell.SandboxApplied || r.result.Success {
		t.Errorf("%+v", r.result)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the sandboxed command wrote a file")
	}
}

func TestExecUsage(t *testing.T) {
	execHome(t)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no command", []string{}, exitUsage, "no command given"},
		{"only a separator", []string{"--"}, exitUsage, "no command given"},
		{"bad sandbox mode", []string{"--sandbox", "tight", "--", "ls"}, exitUsage, "--sandbox must be auto, read-only or off"},
		{"bad timeout", []string{"--timeout", "soon", "--", "ls"}, exitUsage, "invalid value"},
		{"non-positive timeout", []string{"--timeout", "0s", "--", "ls"}, exitUsage, "must be positive"},
		{"unknown flag", []string{"--fast", "--", "ls"}, exitUsage, "flag provided but not defined"},
		{"help", []string{"-h"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, append([]string{"exec"}, tt.args...))
			if code != tt.wantCode || !strings.Contains(errb.String(), tt.wantStderr) {
				t.Errorf("exit %d stderr %q; want %d with %q", code, errb.String(), tt.wantCode, tt.wantStderr)
			}
			if tt.wantCode == exitOK && !strings.Contains(out.String(), "Usage: hark exec") {
				t.Errorf("help output %q", out.String())
			}
		})
	}
}

// Settings supply exec's defaults; a broken settings file is a warning,
// not a failure.
func TestExecSettings(t *testing.T) {
	home := execHome(t)
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"outputLimit": 1024, "sandbox": "off"}`)
	r := runExecCLI(t, "y\n", true, "--", "seq 1 10000")
	if r.code != exitOK || !r.result.Truncated || len(r.result.Output) > 1024+100 || r.result.Sandbox != shell.SandboxNotApplied {
		t.Errorf("settings not applied (stderr %q): truncated %v, %d bytes, sandbox %q", r.stderr, r.result.Truncated, len(r.result.Output), r.result.Sandbox)
	}
	write(`{not json`)
	r = runExecCLI(t, "", false, "--", "echo ok")
	if r.code != exitOK || r.result.Output != "ok\n" || !strings.Contains(r.stderr, "warning") {
		t.Errorf("exit %d, output %q, stderr %q", r.code, r.result.Output, r.stderr)
	}
}

func TestSandboxHelperIsHidden(t *testing.T) {
	var out bytes.Buffer
	printHelp(&out)
	if strings.Contains(out.String(), shell.HelperCommand) {
		t.Errorf("help lists the internal %s entry point", shell.HelperCommand)
	}
	if c, ok := commands[shell.HelperCommand]; !ok || !c.hidden {
		t.Errorf("%s is not registered as a hidden command", shell.HelperCommand)
	}
}

func TestExecRules(t *testing.T) {
	hh := execHome(t)
	dir := t.TempDir()
	first := runExecCLI(t, "a\ny\n", true, "--dir", dir, "--", "touch m1.txt")
	if first.code != exitOK || !first.result.Executed || first.result.Rule != "added rule 1: always allow touch in "+dir {
		t.Fatalf("always allow at the prompt: %+v", first)
	}
	if _, err := os.Stat(filepath.Join(dir, "m1.txt")); err != nil {
		t.Fatal(err)
	}
	// No terminal, no --yes: the rule alone lets it run.
	again := runExecCLI(t, "", false, "--dir", dir, "--", "touch m2.txt")
	if !again.result.Executed || again.result.Rule != "rule 1: always allow touch in "+dir {
		t.Fatalf("allowed by the rule: %+v", again)
	}
	other := runExecCLI(t, "", false, "--dir", dir, "--", "mkdir sub")
	if other.result.Executed || other.result.Error != needsConfirmation {
		t.Fatalf("a command no rule allows: %+v", other)
	}
	// A never rule refuses even with --yes.
	var out, errb bytes.Buffer
	st := rules.Open(filepath.Join(hh, rules.FileName), os.Getenv("HOME"), shell.NewPolicy())
	if code := rulesCommand(&env{stdout: &out, stderr: &errb}, st, shell.NewPolicy(), os.Getenv("HOME"),
		[]string{"add", "never", "mkdir", "--match", "mkdir -p x", "--no-match", "touch x"}); code != exitOK {
		t.Fatalf("add never rule: %s", errb.String())
	}
	never := runExecCLI(t, "", false, "--yes", "--dir", dir, "--", "mkdir sub")
	if never.result.Executed || !strings.Contains(never.result.Error, "Refused by the user's rule \"never run mkdir") || never.result.Rule == "" {
		t.Fatalf("never rule: %+v", never)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); err == nil {
		t.Fatal("a command a never rule refuses ran")
	}
}

// Before asking, exec says what the command would touch, looked at in the
// sandbox; without one it says that it did not look.
func TestExecShowsPreviewBeforeAsking(t *testing.T) {
	execHome(t)
	dir := t.TempDir()
	victim := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(victim, []byte("1234"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "preview: Deletes 1 file, 4 B\n  report.txt: file, 4 B\n"
	if ok, _ := shell.SandboxStatus(); !ok {
		want = "preview: Preview unavailable"
	}
	r := runExecCLI(t, "n\n", true, "--dir", dir, "--", "rm report.txt")
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if strings.Index(r.stderr, "preview:") > strings.Index(r.stderr, "Run this?") {
		t.Errorf("the preview comes after the question:\n%s", r.stderr)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("declined rm ran: %v", err)
	}
	// A missing file: the preview says nothing would happen.
	if ok, _ := shell.SandboxStatus(); ok {
		r = runExecCLI(t, "n\n", true, "--dir", dir, "--", "rm -rf old-builds")
		if !strings.Contains(r.stderr, "preview: Nothing would happen") {
			t.Errorf("stderr lacks the nothing-to-do preview:\n%s", r.stderr)
		}
	}
	// Sizes add up as printed, through the sandboxed helper: four equal
	// files read 110.6 KB each under 442.4 KB (not 111 KB under 442 KB),
	// and past 12 lines the last one counts the rest with their size.
	if ok, _ := shell.SandboxStatus(); ok {
		photos := t.TempDir()
		for i := range 15 {
			f, err := os.Create(filepath.Join(photos, fmt.Sprintf("p%02d.jpg", i)))
			if err == nil {
				err = f.Truncate(110_592)
				f.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		r = runExecCLI(t, "n\n", true, "--dir", photos, "--", "rm p00.jpg p01.jpg p02.jpg p03.jpg")
		if want := "preview: Deletes 4 files, 442.4 KB\n  p00.jpg: file, 110.6 KB\n  p01.jpg: file, 110.6 KB\n  p02.jpg: file, 110.6 KB\n  p03.jpg: file, 110.6 KB\n"; !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
		r = runExecCLI(t, "n\n", true, "--dir", photos, "--", "rm p*.jpg")
		for _, want := range []string{"preview: Deletes 15 files, 1,658,880 B\n", "  p10.jpg: file, 110,592 B\n  … and 4 more lines: 4 files, 442,368 B\n"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	}
}

// TestExecSecretReadsHeldByTheKernel: hark exec is a way in for other
// programs too, so its command reads the folder it works in and the
// system: a key or Hark's own settings (HARK_HOME's included) never reach
// its result, and nobody is offered them; a file of home outside the
// folder is read only after a yes on a terminal, and --yes does not give
// it.
func TestExecSecretReadsHeldByTheKernel(t *testing.T) {
	harkHome := execHome(t)
	home := os.Getenv("HOME")
	const key = "FAKE-PRIVATE-KEY"
	project := filepath.Join(home, "proj")
	for name, body := range map[string]string{filepath.Join(home, ".ssh/id_rsa"): key, filepath.Join(harkHome, "settings.json"): `{"openaiAPIKey":"` + key + `"}`,
		filepath.Join(home, "Documents/note.txt"): "NOTE-OUTSIDE", filepath.Join(project, "a.txt"): "in the project"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"cat ~/.ssh/id_rsa", "cat ~/.s*/id*", "cat " + filepath.Join(harkHome, "settings.json")} {
		for _, tty := range []bool{false, true} {
			r := runExecCLI(t, "y\n", tty, "--dir", project, "--", c)
			if strings.Contains(r.result.Output, key) || strings.Contains(r.stderr, "reads ~/.ssh") {
				t.Errorf("%s (terminal %v): the key was read or offered: %+v, stderr %q", c, tty, r.result, r.stderr)
			}
		}
	}
	note := "cat ~/Documents/note.txt"
	if r := runExecCLI(t, "", false, "--dir", project, "--", note); r.result.Executed || !strings.Contains(r.result.Error, "needs confirmation") {
		t.Errorf("without a terminal: %+v", r.result)
	}
	if r := runExecCLI(t, "n\n", true, "--dir", project, "--", note); r.result.Executed || !strings.Contains(r.stderr, "reads ~/Documents/note.txt, outside the folder it works in") {
		t.Errorf("answered no: executed %v, stderr %q", r.result.Executed, r.stderr)
	}
	if r := runExecCLI(t, "y\n", true, "--dir", project, "--", note); r.result.Output != "NOTE-OUTSIDE" {
		t.Errorf("answered yes: %+v, stderr %q", r.result, r.stderr)
	}
	if r := runExecCLI(t, "", false, "--yes", "--dir", project, "--", note); strings.Contains(r.result.Output, "NOTE") {
		t.Errorf("--yes read outside the folder: %+v", r.result)
	}
	if r := runExecCLI(t, "", false, "--dir", project, "--", "cat a.txt"); r.result.Output != "in the project" {
		t.Errorf("the project's own file: %+v", r.result)
	}
	r := runExecCLI(t, "", false, "--dir", filepath.Join(home, ".ssh"), "--", "ls")
	if r.result.Executed || !strings.Contains(r.result.Error, "holds credentials") {
		t.Errorf("--dir ~/.ssh: %+v", r.result)
	}
}

// TestExecYesDeletionSaysWhatWasDecided: --yes on a deletion under home
// moves the targets to the Trash instead of running rm. The result must
// say so in full: the tier and the reasons the command needed a
// confirmation, and that --yes (not a confirmation switch, which hark exec
// does not read) is why nobody was asked.
func TestExecYesDeletionSaysWhatWasDecided(t *testing.T) {
	execHome(t)
	home := os.Getenv("HOME")
	old := filepath.Join(home, "Downloads", "old_builds")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "a.zip"), []byte("zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runExecCLI(t, "", false, "--yes", "--", "rm -r ~/Downloads/old_builds")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	res := r.result
	if _, err := os.Stat(old); err == nil {
		t.Fatalf("old_builds is still there: %+v", res)
	}
	if res.Executed || !res.Success {
		t.Errorf("want the deletion trashed, not run: executed %v, success %v", res.Executed, res.Success)
	}
	if res.Tier != shell.Confirm {
		t.Errorf("tier %q, want %q", res.Tier, shell.Confirm)
	}
	if len(res.Reasons) == 0 {
		t.Error("no reasons: the client cannot tell why the command needed a confirmation")
	}
	for _, want := range []string{"--yes", "Moved 1 item to the Trash", "The command itself did not run"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q: %q", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "Confirmation is off") {
		t.Errorf("output blames a confirmation switch nobody turned off: %q", res.Output)
	}
	// As hark mcp's result does, it names the decision and says why.
	var told struct {
		Decision, Why string
		Trashed       bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &told); err != nil {
		t.Fatal(err)
	}
	if told.Decision != agent.DecisionUnconfirmedRun || !told.Trashed || !strings.Contains(told.Why, "--yes") || !strings.Contains(told.Why, "Trash") {
		t.Errorf("decision %q, trashed %v, why %q: want unconfirmed-run, trashed, and why naming --yes and the Trash", told.Decision, told.Trashed, told.Why)
	}
}

// TestExecSaysWhatWasDecided: every hark exec result names the decision
// and why, as hark mcp's does.
func TestExecSaysWhatWasDecided(t *testing.T) {
	execHome(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		args     []string
		decision string
		why      string
	}{
		{"read-only", []string{"--dir", dir, "--", "ls"}, agent.DecisionAuto, "read-only"},
		{"--yes", []string{"--yes", "--dir", dir, "--", "touch made-by-yes"}, agent.DecisionUnconfirmedRun, "--yes"},
		{"refused", []string{"--yes", "--", "sudo true"}, agent.DecisionRefused, "never"},
		{"nobody to ask", []string{"--dir", dir, "--", "touch not-made"}, agent.DecisionNotAsked, "needs confirmation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runExecCLI(t, "", false, tc.args...)
			var told struct{ Decision, Why string }
			if err := json.Unmarshal([]byte(r.stdout), &told); err != nil {
				t.Fatal(err)
			}
			if told.Decision != tc.decision || !strings.Contains(told.Why, tc.why) {
				t.Errorf("decision %q, why %q; want %q and a why with %q", told.Decision, told.Why, tc.decision, tc.why)
			}
		})
	}
}
