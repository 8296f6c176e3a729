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
