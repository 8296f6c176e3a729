//go:build unix

package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// testRunner is a Runner with a known environment and home, so results do
// not depend on who runs the tests.
func testRunner(t *testing.T, o RunnerOptions) *Runner {
	t.Helper()
	if o.Home == "" {
		o.Home = t.TempDir()
	}
	if o.Environ == nil {
		o.Environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + o.Home, "LANG=C.UTF-8"}
	}
	return NewRunner(o)
}

var confirmed = Verdict{Tier: Confirm, Reasons: []Reason{{Command: "x", Why: "test"}}}

// runMode is one way a command can be started.
type runMode struct {
	name               string
	direct, perCommand bool
}

func (m runMode) apply(r *Runner) { r.direct, r.perCommand = m.direct, m.perCommand }

// runModes are the ways a command can be started: directly (how macOS runs)
// and on Linux through the long-lived zygote (the default) and through a
// helper process per command (the fallback).
func runModes() []runMode {
	modes := []runMode{{name: "direct", direct: true}}
	if runtime.GOOS == "linux" {
		modes = append(modes, runMode{name: "zygote"}, runMode{name: "per-command helper", perCommand: true})
	}
	return modes
}

func TestRunResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		command  string
		check    func(t *testing.T, r Result)
		exitCode int
	}{
		{
			name:    "stdout and stderr are separate",
			command: "echo out; echo err >&2",
			check: func(t *testing.T, r Result) {
				if r.Output != "out\n" || r.Error != "err\n" {
					t.Errorf("output %q, error %q", r.Output, r.Error)
				}
			},
		},
		{
			name:     "exit status is data",
			command:  "echo partial; exit 3",
			exitCode: 3,
			check: func(t *testing.T, r Result) {
				if r.Success || !r.Executed || r.Output != "partial\n" {
					t.Errorf("success %v executed %v output %q", r.Success, r.Executed, r.Output)
				}
			},
		},
		{
			name:     "death by signal is 128+N",
			command:  "kill -9 $$",
			exitCode: 137,
		},
		{
			name:    "stdin is closed",
			command: "cat; echo \"status $?\"",
			check: func(t *testing.T, r Result) {
				if r.Output != "status 0\n" {
					t.Errorf("cat did not see end of input at once: %q", r.Output)
				}
			},
		},
		{
			name:    "ANSI escapes stripped",
			command: `printf '\033[1;31mred\033[0m \033]0;title\007plain\r\n'`,
			check: func(t *testing.T, r Result) {
				if r.Output != "red plain\n" {
					t.Errorf("output %q", r.Output)
				}
			},
		},
		{
			name:    "non-interactive environment",
			command: `echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $TERM $NO_COLOR"`,
			check: func(t *testing.T, r Result) {
				if r.Output != "cat cat 0 dumb 1\n" {
					t.Errorf("output %q", r.Output)
				}
			},
		},
		{
			name:    "binary output gives valid JSON",
			command: "head -c 200000 /dev/urandom; head -c 5000 /dev/urandom >&2",
			check: func(t *testing.T, r Result) {
				b := r.JSON()
				if !json.Valid(b) || !utf8.Valid(b) {
					t.Fatalf("invalid JSON for binary output")
				}
				var back Result
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				if !utf8.ValidString(back.Output) || !back.Truncated {
					t.Errorf("output not cleaned or not truncated: truncated=%v", back.Truncated)
				}
			},
		},
	}
	for _, mode := range runModes() {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := testRunner(t, RunnerOptions{})
				mode.apply(r)
				res := r.Run(context.Background(), Request{Command: tt.command, Verdict: confirmed})
				if !res.Executed || res.ExitCode != tt.exitCode {
					t.Fatalf("executed %v exit %d (want %d): %s", res.Executed, res.ExitCode, tt.exitCode, res.JSON())
				}
				if res.Sandbox != SandboxNotApplied || res.Tier != Confirm || len(res.Reasons) != 1 {
					t.Errorf("sandbox %q tier %q reasons %v", res.Sandbox, res.Tier, res.Reasons)
				}
				if tt.check != nil {
					tt.check(t, res)
				}
			})
		}
	}
}

// Approved commands lose every credential-looking variable; commands that
// run unasked (the safe tier) keep only the allowlisted ones. Neither sees a
// credential, so neither can put one in the output the model reads.
func TestRunSecretsStripped(t *testing.T) {
	t.Parallel()
	secrets := []string{
		"GITHUB_TOKEN=ghp_secret", "DB_PASSWORD=hunter2", "GITHUB_PAT=github_pat_s1", "GITLAB_PAT=glpat_s2",
		"BW_SESSION=bw_s3", "OP_SESSION_abc=op_s4", "SSHPASS=sp_s5", "DATABASE_URL=postgres://u:pw_s6@h/db",
		"CI_JOB_JWT=eyJ_s7", "SLACK_WEBHOOK_URL=https://hooks.example/s8", "PGPASS=pg_s9",
	}
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "KEPT_TOKEN=kept", "PLAIN=visible"}, secrets...)
	r := testRunner(t, RunnerOptions{Environ: environ, KeepEnv: []string{"KEPT_TOKEN"}})
	tests := []struct {
		name    string
		verdict Verdict
		kept    []string
		gone    []string
	}{
		{"approved", confirmed, []string{"KEPT_TOKEN=kept", "PLAIN=visible", "LANG=C.UTF-8"}, nil},
		{"safe", Verdict{Tier: Safe}, []string{"KEPT_TOKEN=kept", "LANG=C.UTF-8"}, []string{"PLAIN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Run(context.Background(), Request{Command: "env", Verdict: tt.verdict})
			if !res.Success {
				t.Fatalf("env failed: %s", res.JSON())
			}
			for _, kv := range secrets {
				name, value, _ := strings.Cut(kv, "=")
				if strings.Contains(res.Output, name+"=") || strings.Contains(res.Output, value) {
					t.Errorf("%s reached the command", name)
				}
			}
			for _, name := range tt.gone {
				if strings.Contains(res.Output, name+"=") {
					t.Errorf("%s reached the command", name)
				}
			}
			for _, kept := range tt.kept {
				if !strings.Contains(res.Output, kept) {
					t.Errorf("%q missing from the command's environment:\n%s", kept, res.Output)
				}
			}
		})
	}
}

func TestRunWorkingDirectory(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, wantDir, wantErr string
	}{
		{"default is home", "", home, ""},
		{"tilde is home", "~", home, ""},
		{"tilde slash", "~/proj", filepath.Join(home, "proj"), ""},
		{"relative is under home", "proj", filepath.Join(home, "proj"), ""},
		{"absolute", filepath.Join(home, "proj"), filepath.Join(home, "proj"), ""},
		{"missing directory", "~/nope", "", "does not exist"},
		{"a file, not a directory", file, "", "is a file, not a folder"},
		{"other user's home", "~root/x", "", "~user is not supported"},
	}
	r := testRunner(t, RunnerOptions{Home: home})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "ran")
			res := r.Run(context.Background(), Request{Command: "pwd; touch " + marker, WorkingDirectory: tt.dir, Verdict: confirmed})
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			if tt.wantErr != "" {
				if res.Executed || ran || res.Success || !strings.Contains(res.Error, tt.wantErr) {
					t.Errorf("want not run with %q; executed %v ran %v error %q", tt.wantErr, res.Executed, ran, res.Error)
				}
				return
			}
			if !res.Executed || res.Output != tt.wantDir+"\n" || res.WorkingDirectory != tt.wantDir {
				t.Errorf("ran in %q (result says %q), want %q: %s", res.Output, res.WorkingDirectory, tt.wantDir, res.Error)
			}
		})
	}
}

func TestRunRefuses(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	tests := []struct {
		name    string
		req     Request
		wantErr string
	}{
		{"forbidden verdict", Request{Command: "touch " + marker, Verdict: Verdict{Tier: Forbidden, Reasons: []Reason{{Command: "sudo x", Why: "sudo: privilege escalation is never run"}}}}, "sudo: privilege escalation is never run"},
		{"forbidden even with the sandbox off", Request{Command: "touch " + marker, Sandbox: SandboxOff, Verdict: Verdict{Tier: Forbidden}}, "forbids"},
		{"empty command", Request{Command: "  ", Verdict: confirmed}, "empty"},
	}
	r := testRunner(t, RunnerOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := r.Run(context.Background(), tt.req)
			if res.Executed || res.Success || !strings.Contains(res.Error, tt.wantErr) {
				t.Errorf("executed %v success %v error %q, want %q", res.Executed, res.Success, res.Error, tt.wantErr)
			}
			if res.Tier != tt.req.Verdict.Tier || !json.Valid(res.JSON()) {
				t.Errorf("tier %q json %s", res.Tier, res.JSON())
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a refused command ran")
	}
}

func TestResultJSONFields(t *testing.T) {
	t.Parallel()
	r := testRunner(t, RunnerOptions{})
	res := r.Run(context.Background(), Request{Command: "echo hi", Purpose: "greet", Verdict: confirmed})
	var fields map[string]any
	if err := json.Unmarshal(res.JSON(), &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"success", "command", "workingDirectory", "purpose", "tier", "reasons", "executed",
		"exitCode", "output", "error", "timedOut", "truncated", "executionTimeMs", "sandbox"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("field %q missing from %s", k, res.JSON())
		}
	}
	if fields["success"] != true || fields["output"] != "hi\n" || fields["purpose"] != "greet" {
		t.Errorf("unexpected values: %s", res.JSON())
	}
	// Every field is present even when empty, so the model always sees the
	// same shape.
	var empty map[string]any
	if err := json.Unmarshal(NotRun(Request{}, "x").JSON(), &empty); err != nil {
		t.Fatal(err)
	}
	if len(empty) != len(fields) {
		t.Errorf("an empty result has %d fields, a full one %d: %s", len(empty), len(fields), NotRun(Request{}, "x").JSON())
	}
}

// A command that finishes while a background job still holds its output
// pipes must return promptly, and the job must not outlive it.
func TestRunBackgroundJobDoesNotHang(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, command string }{
		{"plain background job", "sleep 30 & echo $!; echo done"},
		{"background job ignoring SIGTERM", "(trap '' TERM; exec sleep 30) & echo $!; echo done"},
	}
	for _, mode := range runModes() {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := testRunner(t, RunnerOptions{Timeout: 20 * time.Second})
				mode.apply(r)
				// The command's own timeout is far away; this deadline only
				// keeps a regression from hanging the suite.
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				res := r.Run(ctx, Request{Command: tt.command, Verdict: confirmed})
				if ctx.Err() != nil || res.TimedOut || !res.Success {
					t.Fatalf("did not return on its own: ctx %v, %s", ctx.Err(), res.JSON())
				}
				pids := pidsFrom(t, res.Output)
				if len(pids) != 1 || !strings.HasSuffix(res.Output, "done\n") {
					t.Fatalf("output %q", res.Output)
				}
				waitGone(t, pids)
			})
		}
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	for _, mode := range runModes() {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			r := testRunner(t, RunnerOptions{Timeout: time.Second})
			mode.apply(r)
			res := r.Run(context.Background(), Request{Command: "sleep 2 & echo $!; echo started; sleep 30", Verdict: confirmed})
			if !res.TimedOut || res.Success || !res.Executed || !strings.Contains(res.Error, "timed out after 1s") {
				t.Fatalf("want a timeout: %s", res.JSON())
			}
			if res.ExecutionTimeMs >= 10_000 {
				t.Errorf("took %d ms", res.ExecutionTimeMs)
			}
			waitGone(t, pidsFrom(t, res.Output))
		})
	}
}

func TestRunCancel(t *testing.T) {
	t.Parallel()
	r := testRunner(t, RunnerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res := r.Run(ctx, Request{Command: "sleep 30", Verdict: confirmed})
	if res.TimedOut || res.Success || !strings.Contains(res.Error, "cancelled") {
		t.Errorf("want a cancellation: %s", res.JSON())
	}
}

func TestRunRequestTimeoutWins(t *testing.T) {
	t.Parallel()
	r := testRunner(t, RunnerOptions{Timeout: time.Hour})
	res := r.Run(context.Background(), Request{Command: "sleep 30", Verdict: confirmed, Timeout: 200 * time.Millisecond})
	if !res.TimedOut {
		t.Errorf("request timeout ignored: %s", res.JSON())
	}
}

// TestRunLargeOutputBoundedMemory writes 100 MB through each stream's
// capture, started directly and (on Linux) through the zygote, whose
// output loop reads the pipes itself. Not parallel: it measures the
// process's allocations.
func TestRunLargeOutputBoundedMemory(t *testing.T) {
	const total = 100_000_000
	for _, mode := range runModes() {
		if mode.perCommand {
			continue // the runner's side is the direct one's
		}
		// Not parallel: each measures the process's allocations.
		t.Run(mode.name, func(t *testing.T) {
			r := testRunner(t, RunnerOptions{})
			mode.apply(r)
			if !mode.direct {
				// Started before measuring: it starts once per process.
				r.Run(context.Background(), Request{Command: "true", Verdict: confirmed})
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res := r.Run(context.Background(), Request{
				Command: "yes 'the quick brown fox jumps over the lazy dog' | head -c 100000000",
				Verdict: confirmed,
			})
			runtime.ReadMemStats(&after)
			if !res.Success || !res.Truncated {
				t.Fatalf("%.300s", res.JSON())
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			if allocated > 4<<20 {
				t.Errorf("allocated %d bytes for %d bytes of output; want under 4 MiB", allocated, total)
			}
			kept := strings.Replace(res.Output, omittedMarker(int64(omittedCount(t, res.Output))), "", 1)
			if got := len(kept) + omittedCount(t, res.Output); got != total {
				t.Errorf("kept %d + omitted %d = %d, want %d", len(kept), omittedCount(t, res.Output), got, total)
			}
			if len(res.Output) > DefaultOutputLimit+100 {
				t.Errorf("output is %d bytes, over the %d limit", len(res.Output), DefaultOutputLimit)
			}
			t.Logf("100 MB of output: %d bytes allocated, %d kept", allocated, len(res.Output))
		})
	}
}

// pidsFrom reads the PIDs a test command printed, one per line; other lines
// are ignored.
func pidsFrom(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, line := range strings.Split(out, "\n") {
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && n > 1 {
			pids = append(pids, n)
		}
	}
	if len(pids) == 0 {
		t.Fatalf("the command printed no PIDs: %q", out)
	}
	return pids
}

// alive reports whether pid is a running process; a zombie has finished and
// only waits for its parent to collect it.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil { // on Linux it just exited; elsewhere there is no /proc to ask
		return runtime.GOOS != "linux"
	}
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// waitGone fails unless every pid dies within a few seconds; signals take a
// moment to be delivered to processes that were killed rather than reaped.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d survived the command", pid)
				syscall.Kill(pid, syscall.SIGKILL) // do not leak it past the test
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// The helper's marker never reaches the command, and a process that carries
// it (an executable started as the helper without serving it) does not start
// helpers of its own, so a mistake cannot recurse.
func TestHelperMarker(t *testing.T) {
	r := testRunner(t, RunnerOptions{})
	res := r.Run(context.Background(), Request{Command: "env | grep " + helperEnv + " || echo clean", Verdict: confirmed})
	if res.Output != "clean\n" {
		t.Errorf("the command saw the helper marker: %q", res.Output)
	}
	t.Setenv(helperEnv, "1")
	if r := NewRunner(RunnerOptions{}); r.helper != "" {
		t.Errorf("a runner inside a helper would start helper %q", r.helper)
	}
}

func TestResultJSONKeepsShellSyntaxReadable(t *testing.T) {
	t.Parallel()
	b := NotRun(Request{Command: "a && b > c <d"}, "x").JSON()
	if !strings.Contains(string(b), `"a && b > c <d"`) || bytes.HasSuffix(b, []byte("\n")) || !json.Valid(b) {
		t.Errorf("%s", b)
	}
}

// OnOutput hears every write, on both streams, and a silent command never
// calls it: the folder-prompt watcher tells a stalled command from a busy
// one by it.
func TestRunnerReportsOutputActivity(t *testing.T) {
	t.Parallel()
	r := testRunner(t, RunnerOptions{})
	var mu sync.Mutex
	calls := 0
	on := func() { mu.Lock(); calls++; mu.Unlock() }
	res := r.Run(context.Background(), Request{Command: "echo out; echo err >&2", Verdict: Verdict{Tier: Confirm}, Sandbox: SandboxOff, OnOutput: on})
	if !res.Success || res.Output != "out\n" || !strings.Contains(res.Error, "err") {
		t.Fatalf("Run = %+v", res)
	}
	mu.Lock()
	got := calls
	calls = 0
	mu.Unlock()
	if got < 2 {
		t.Errorf("OnOutput called %d times for two writes", got)
	}
	r.Run(context.Background(), Request{Command: "true", Verdict: Verdict{Tier: Confirm}, Sandbox: SandboxOff, OnOutput: on})
	mu.Lock()
	defer mu.Unlock()
	if calls != 0 {
		t.Errorf("a silent command called OnOutput %d times", calls)
	}
}

// A sandboxed run's temporary folder is kept for the next run while the
// process lives, and ReleaseTemps (hark's main calls it before exiting)
// leaves nothing behind in $TMPDIR.
func TestReleaseTempsLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := testRunner(t, RunnerOptions{})
	for range 3 {
		res := r.Run(context.Background(), Request{Command: "echo x > \"$TMPDIR/f\" && rm \"$TMPDIR/f\"", Verdict: Verdict{Tier: Safe}, Sandbox: SandboxReadOnly})
		if !res.Success || res.Sandbox != SandboxApplied {
			t.Skipf("no sandbox on this machine to make a temporary folder for: %s", res.JSON())
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "hark-run-*"))
	if len(left) != 1 {
		t.Fatalf("after three runs one folder should wait for the next run, found %v", left)
	}
	if ents, _ := os.ReadDir(left[0]); len(ents) != 0 {
		t.Fatalf("the kept folder is not empty: %v", ents)
	}
	ReleaseTemps()
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("after ReleaseTemps: %v", left)
	}
}

// TestRunStartsWithOldPwdHere: a command sees $PWD and $OLDPWD as the
// folder it runs in, whatever the parent's were, sandboxed or not: the
// policy judges `rm -rf "$OLDPWD"` on that.
func TestRunStartsWithOldPwdHere(t *testing.T) {
	home := t.TempDir()
	r := testRunner(t, RunnerOptions{Home: home, Environ: []string{"PATH=/usr/bin:/bin", "HOME=" + home, "OLDPWD=/", "PWD=/etc"}})
	for _, v := range []Verdict{confirmed, {Tier: Safe}} {
		res := r.Run(context.Background(), Request{Command: `echo "$PWD|$OLDPWD|${OLDPWD:+set}"`, WorkingDirectory: home, Verdict: v})
		if want := home + "|" + home + "|set\n"; res.Executed && res.Output != want {
			t.Errorf("%s: %q, want %q", v.Tier, res.Output, want)
		} else if !res.Executed && v.Tier != Safe {
			t.Errorf("%s: not run: %s", v.Tier, res.Error)
		}
	}
}
