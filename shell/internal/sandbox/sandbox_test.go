package sandbox

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// update rewrites golden files in testdata instead of comparing with them.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestParseHelperArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    helperArgs
		wantErr string
	}{
		{"unsandboxed", []string{"--", "/bin/sh", "-c", "ls"}, helperArgs{argv: []string{"/bin/sh", "-c", "ls"}}, ""},
		{"read-only", []string{"-ro", "-tmp", "/tmp/x", "--", "/bin/sh", "-c", "ls -- -ro"}, helperArgs{readOnly: true, tmpDir: "/tmp/x", argv: []string{"/bin/sh", "-c", "ls -- -ro"}}, ""},
		{"no command", []string{"-ro", "-tmp", "/t", "--"}, helperArgs{}, "no command"},
		{"no separator", []string{"/bin/sh"}, helperArgs{}, "unknown argument"},
		{"read-only without a temp folder", []string{"-ro", "--", "sh"}, helperArgs{}, "-ro needs -tmp"},
		{"-tmp without a value", []string{"-tmp"}, helperArgs{}, "-tmp needs a folder"},
		{"memory cap", []string{"-ro", "-tmp", "/t", "-mem", "4294967296", "--", "sh"}, helperArgs{readOnly: true, tmpDir: "/t", memLimit: 4 << 30, argv: []string{"sh"}}, ""},
		{"-mem without a value", []string{"-mem"}, helperArgs{}, "-mem needs a number"},
		{"-mem not a number", []string{"-mem", "4G", "--", "sh"}, helperArgs{}, "not a number of bytes"},
		{"paths to hide", []string{"-ro", "-tmp", "/t", "-hide", "/h/.ssh", "-hide", "/h/.aws", "--", "sh"}, helperArgs{readOnly: true, tmpDir: "/t", hide: []string{"/h/.ssh", "/h/.aws"}, argv: []string{"sh"}}, ""},
		{"-hide without a value", []string{"-ro", "-tmp", "/t", "-hide"}, helperArgs{}, "-hide needs a path"},
		{"-hide without the sandbox", []string{"-hide", "/h/.ssh", "--", "sh"}, helperArgs{}, "-hide needs -ro"},
		{"-mem zero", []string{"-mem", "0", "--", "sh"}, helperArgs{}, "not a number of bytes"},
		{"approved folder", WithPin([]string{"hark", HelperCommand, "-ro", "-tmp", "/t", "--", "sh"}, "/h/proj")[2:], helperArgs{readOnly: true, tmpDir: "/t", pin: "/h/proj", argv: []string{"sh"}}, ""},
		{"-pin relative", []string{"-pin", "proj", "--", "sh"}, helperArgs{}, "-pin needs an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseHelperArgs(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.readOnly != tt.want.readOnly || got.tmpDir != tt.want.tmpDir || got.memLimit != tt.want.memLimit || got.pin != tt.want.pin || !slices.Equal(got.hide, tt.want.hide) || !slices.Equal(got.argv, tt.want.argv) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
