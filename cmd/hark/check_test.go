package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
)

func TestCheckCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		command  string
		tier     shell.Tier
		whySub   string
		nReasons int // -1: at least one
	}{
		{"after dashes", []string{"check", "--", "ls -la"}, "ls -la", shell.Safe, "", 0},
		{"words joined", []string{"check", "ls", "-la", "|", "wc", "-l"}, "ls -la | wc -l", shell.Safe, "", 0},
		{"confirm", []string{"check", "--", "rm -rf build"}, "rm -rf build", shell.Confirm, "rm: deletes files", 1},
		{"forbidden", []string{"check", "--", "sudo rm -rf /"}, "sudo rm -rf /", shell.Forbidden, "privilege escalation", -1},
		{"redirect", []string{"check", "echo x > ~/.zshrc"}, "echo x > ~/.zshrc", shell.Confirm, "> ~/.zshrc: overwrites a file", 1},
		{"dash command after --", []string{"check", "--", "-x"}, "-x", shell.Confirm, "", -1},
		{"in a directory", []string{"check", "--dir", "~", "--", "rm -rf *"}, "rm -rf *", shell.Forbidden, "recursive deletion of ~", 1},
		{"dir with equals", []string{"check", "--dir=/tmp", "rm -rf *"}, "rm -rf *", shell.Confirm, "rm: deletes files", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), &env{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader("")}, tc.args)
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s", code, stderr.String())
			}
			// The reasons key must be an array even when empty.
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
			}
			if r := strings.TrimSpace(string(raw["reasons"])); !strings.HasPrefix(r, "[") {
				t.Errorf("reasons = %s, want an array", r)
			}
			var v shell.Verdict
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			if v.Command != tc.command || v.Tier != tc.tier {
				t.Errorf("got command %q tier %s, want %q %s", v.Command, v.Tier, tc.command, tc.tier)
			}
			if tc.nReasons >= 0 && len(v.Reasons) != tc.nReasons || tc.nReasons < 0 && len(v.Reasons) == 0 {
				t.Errorf("reasons = %v, want %d", v.Reasons, tc.nReasons)
			}
			if tc.whySub != "" && !strings.Contains(stdout.String(), tc.whySub) {
				t.Errorf("output %s lacks %q", stdout.String(), tc.whySub)
			}
		})
	}
}

func TestCheckCommandUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no command", []string{"check"}, exitUsage},
		{"only dashes", []string{"check", "--"}, exitUsage},
		{"blank", []string{"check", "--", "  "}, exitUsage},
		{"unknown option", []string{"check", "-x"}, exitUsage},
		{"help", []string{"check", "-h"}, exitOK},
		{"dir without value", []string{"check", "--dir"}, exitUsage},
		{"dir without command", []string{"check", "--dir", "~"}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), &env{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader("")}, tc.args)
			if code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			if !strings.Contains(stdout.String()+stderr.String(), "Usage: hark check") {
				t.Errorf("no usage text; stdout %q stderr %q", stdout.String(), stderr.String())
			}
			if tc.code == exitUsage && stdout.Len() != 0 {
				t.Errorf("usage error wrote to stdout: %q", stdout.String())
			}
		})
	}
}
