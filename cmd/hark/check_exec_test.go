package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
)

// homeForms name the home folder through variables, operators, arrays,
// loops, $PWD and $OLDPWD, and by its path (here under the temporary
// folder, far from /home); destructive floor members are put before them.
func homeForms(home string) []string {
	spell := []struct{ set, word string }{
		{"x=$HOME; ", `"$x"`}, {"x=~; ", "$x"}, {"x=~/; ", "$x"}, {"", "${HOME:-/tmp}"}, {"", "${HOME:=/tmp}"},
		{"", "${HOME%/}"}, {"", "${x-$HOME}"}, {"", `"$HOME"/`}, {"", "$HOME/."}, {"export x=$HOME; ", "$x"},
		{"declare x=$HOME; ", "$x"}, {"a=(~); ", `"${a[@]}"`}, {"", home}, {"", home + "/"}, {"", home + "/*"},
		{"x=" + home + "; ", "$x"}, {": ${x:=~}; ", "$x"}, {"cd ~; ", `"$PWD"`}, {"cd ~ && cd /tmp && ", `"$OLDPWD"`},
		{"cd && ", "*"}, {"", "~/*"}, {"", "~/.*"},
	}
	var out []string
	for _, s := range spell {
		for _, v := range []string{"rm -rf %s", "find %s -delete", "chmod -R 777 %s", "chown -R nobody %s", "mv %s /tmp/away", "rsync -a --delete /tmp/empty/ %s"} {
			out = append(out, s.set+strings.ReplaceAll(v, "%s", s.word))
		}
	}
	out = append(out, `for d in ~; do rm -rf "$d"; done`, `rm -rf "$HOME/src/.."`)
	return out
}

func checkTier(t *testing.T, dir, cmd string) shell.Tier {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	args := []string{"check"}
	if dir != "" {
		args = append(args, "--dir", dir)
	}
	if code := dispatch(context.Background(), e, append(args, "--", cmd)); code != exitOK {
		t.Fatalf("check %q: exit %d: %s", cmd, code, errb.String())
	}
	var v shell.Verdict
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v.Tier
}

// TestCheckAgreesWithExec: hark check and hark exec reach the same
// verdict for the same folder and environment, through their real code
// paths, and every form that names the home folder is forbidden in both,
// in each way of giving the folder. Nothing here is approved, so nothing
// that asks runs, and a marker in home must survive.
func TestCheckAgreesWithExec(t *testing.T) {
	execHome(t)
	home := os.Getenv("HOME")
	if err := os.MkdirAll(filepath.Join(home, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(home, "marker")
	if err := os.WriteFile(marker, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "~", "~/src", home, filepath.Join(home, "src"), "src"} {
		for _, cmd := range homeForms(home) {
			ct := checkTier(t, dir, cmd)
			args := []string{"--sandbox", "read-only"}
			if dir != "" {
				args = append(args, "--dir", dir)
			}
			r := runExecCLI(t, "", false, append(args, "--", cmd)...)
			if r.code != exitOK {
				t.Fatalf("exec %q: exit %d: %s", cmd, r.code, r.stderr)
			}
			if r.result.Tier != ct {
				t.Errorf("in %q: check says %s, exec %s: %q", dir, ct, r.result.Tier, cmd)
			}
			if ct != shell.Forbidden {
				t.Errorf("in %q: %q is %s, want forbidden", dir, cmd, ct)
			}
			if r.result.Executed {
				t.Errorf("in %q: %q ran", dir, cmd)
			}
		}
	}
	// A folder that is a link to home is home: exec resolves it before
	// the policy sees it, and check must judge the same folder.
	link := filepath.Join(t.TempDir(), "lnk")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, link + "/", "~", home} {
		for _, cmd := range []string{"rm -rf *", `rm -rf "$PWD"`, "rm -rf .", "find . -delete", "rm -rf ./*", "chmod -R 777 .",
			"rm -rf .[!.]* *", `find "$PWD" -delete`, "mv * /tmp/away"} {
			t.Run(dir+"/"+cmd, func(t *testing.T) {
				ct := checkTier(t, dir, cmd)
				r := runExecCLI(t, "", false, "--sandbox", "read-only", "--dir", dir, "--", cmd)
				if r.result.Tier != ct || ct != shell.Forbidden {
					t.Errorf("check says %s, exec %s; want forbidden", ct, r.result.Tier)
				}
				if r.result.Executed {
					t.Error("it ran")
				}
			})
		}
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "keep" {
		t.Errorf("the marker in home: %q, %v", b, err)
	}
}
