package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func runDispatch(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	// Swaps the package's default command, so not parallel.
	var gotArgs []string
	register(&command{name: "test-default", hidden: true, run: func(_ context.Context, _ *env, args []string) int {
		gotArgs = args
		return 7
	}})
	defer delete(commands, "test-default")
	saved := defaultCommand
	defaultCommand = "test-default"
	defer func() { defaultCommand = saved }()

	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string // substring
		stderr   string // substring
		wantArgs []string
	}{
		{name: "no arguments runs the default", code: 7, wantArgs: []string{}},
		{name: "a flag goes to the default", args: []string{"--verbose"}, code: 7, wantArgs: []string{"--verbose"}},
		{name: "macOS's process serial number is dropped", args: []string{"-psn_0_1234567"}, code: 7, wantArgs: []string{}},
		{name: "the serial number beside a flag", args: []string{"-psn_0_42", "--verbose"}, code: 7, wantArgs: []string{"--verbose"}},
		{name: "short flag goes to the default", args: []string{"-v"}, code: 7, wantArgs: []string{"-v"}},
		{name: "help flag", args: []string{"--help"}, code: exitOK, stdout: "Usage:"},
		{name: "version flag", args: []string{"--version"}, code: exitOK, stdout: "hark "},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, stderr: `unknown command "frobnicate"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gotArgs = nil
			code, out, errOut := runDispatch(c.args...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
				t.Fatalf("dispatch(%q) = %d, stdout %q, stderr %q", c.args, code, out, errOut)
			}
			if c.wantArgs != nil && !slices.Equal(gotArgs, c.wantArgs) && !(len(gotArgs) == 0 && len(c.wantArgs) == 0) {
				t.Fatalf("default command got %q, want %q", gotArgs, c.wantArgs)
			}
		})
	}
	if _, out, _ := runDispatch("help"); strings.Contains(out, "test-default") || strings.Contains(out, "__sandbox") {
		t.Errorf("help lists hidden commands:\n%s", out)
	}
}

// TestEveryHelpHasOneShape runs -h on every registered command: each exits
// 0 and prints, on stdout, "Usage: hark NAME …", a blank line, what the
// command does, and its options (if any) under "Options:", with durations
// written as in the settings file.
func TestEveryHelpHasOneShape(t *testing.T) {
	t.Setenv("HARK_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for name, c := range commands {
		if c.hidden {
			continue // internal entry points (the sandbox helper) speak a wire protocol, not -h
		}
		for _, flag := range []string{"-h", "--help"} {
			t.Run(name+" "+flag, func(t *testing.T) {
				code, out, errOut := runDispatch(name, flag)
				if code != exitOK {
					t.Errorf("exit %d, want 0", code)
				}
				if errOut != "" {
					t.Errorf("help went to stderr: %q", errOut)
				}
				lines := strings.Split(out, "\n")
				if len(lines) < 3 || !strings.HasPrefix(lines[0], "Usage: hark "+name) || lines[1] != "" || strings.TrimSpace(lines[2]) == "" {
					t.Fatalf("not Usage line, blank, description:\n%s", out)
				}
				if i := strings.Index(out, "Options:"); i >= 0 && !strings.HasSuffix(out[:i], "\n\n") {
					t.Errorf("Options: not set off by a blank line:\n%s", out)
				}
				if strings.Contains(out, "m0s") || strings.Contains(out, "Usage of") {
					t.Errorf("raw flag-package output:\n%s", out)
				}
			})
		}
	}
}
