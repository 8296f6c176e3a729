package shell

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// The Seatbelt profile cannot run on Linux, so its text is what CI checks:
// any change shows up in review as a diff of testdata/sandbox_darwin.sb.
// Refresh with `go test ./shell -run SeatbeltProfile -update`.
func TestSeatbeltProfileGolden(t *testing.T) {
	golden := filepath.Join("testdata", "sandbox_darwin.sb")
	if *update {
		if err := os.WriteFile(golden, []byte(seatbeltProfile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if seatbeltProfile != string(want) {
		t.Errorf("profile differs from %s; run with -update if the change is intended", golden)
	}
}

// Properties the profile must keep whatever its wording: writes and network
// denied, exceptions only for devices and the run's TMPDIR, the TMPDIR
// parameter used, and balanced parentheses so sandbox-exec can parse it.
func TestSeatbeltProfileShape(t *testing.T) {
	t.Parallel()
	p := seatbeltProfile
	for _, must := range []string{"(version 1)", "(deny file-write*)", "(deny network*)", `(subpath (param "TMPDIR"))`, `(literal "/dev/null")`} {
		if !strings.Contains(p, must) {
			t.Errorf("profile lacks %s", must)
		}
	}
	depth := 0
	for _, line := range strings.Split(p, "\n") {
		if i := strings.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // comments may say anything
		}
		for _, c := range line {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth < 0 {
				t.Fatal("unbalanced ')' in profile")
			}
		}
	}
	if depth != 0 {
		t.Errorf("profile leaves %d parentheses open", depth)
	}
	if strings.Index(p, "(deny file-write*)") > strings.Index(p, "(allow file-write*") {
		t.Error("the narrow allow must come after the broad deny: later rules win")
	}
}

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
			if err != nil || got.readOnly != tt.want.readOnly || got.tmpDir != tt.want.tmpDir || !slices.Equal(got.argv, tt.want.argv) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
