//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hark-sh/hark/shell/scope"
)

// An approved run's ruleset is kept only while a build afresh would make
// the same one: a hidden path made since, an entry added to a folder that
// was listed, or the temporary folder replaced each make the next run
// build it again, and a place swapped for a link stops the run as a build
// afresh does.
func TestKeptRulesetFollowsTheFileSystem(t *testing.T) {
	if abi, err := landlockABI(); err != nil || abi < 1 {
		t.Skip("no Landlock in this kernel")
	}
	home, tmp := t.TempDir(), t.TempDir()
	proj := filepath.Join(home, "proj")
	os.Mkdir(proj, 0o755)
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	sc := &scope.Scope{Write: []string{proj}}
	hide := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".aws", "credentials")}
	key := rulesetKey(tmp, hide, sc)
	build := func() {
		t.Helper()
		fd, _, err := buildRules(tmp, hide, sc, true)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
	}
	kept := func() bool {
		t.Helper()
		fd, _, err := keptRules(key)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
		return fd >= 0
	}
	// Built once the folders' times are older than the build; a folder
	// that another process keeps changing (a busy /tmp around the test's
	// folders) keeps any build from being kept.
	buildKept := func() bool {
		t.Helper()
		for range 20 {
			time.Sleep(2 * depsMargin)
			build()
			if kept() {
				return true
			}
		}
		return false
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"a hidden path made in a folder that was not listed", func() {
			os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
			os.WriteFile(filepath.Join(home, ".aws", "credentials"), nil, 0o600)
		}},
		{"an entry added where the hidden ones are", func() { os.WriteFile(filepath.Join(home, "notes"), nil, 0o644) }},
		{"the temporary folder replaced", func() {
			os.Remove(tmp)
			os.Mkdir(tmp, 0o700)
		}},
	}
	if !buildKept() {
		t.Skip("the folders around the test's own keep changing")
	}
	for _, s := range steps {
		s.change()
		if kept() {
			t.Errorf("%s: the kept ruleset was used", s.name)
		}
		if !buildKept() {
			t.Skip("the folders around the test's own keep changing")
		}
	}
	os.Rename(proj, proj+".old")
	os.Symlink(proj+".old", proj)
	if _, _, err := buildRules(tmp, hide, sc, true); err == nil || !strings.Contains(err.Error(), "changed after the command was approved") {
		t.Errorf("a place swapped for a link: err = %v", err)
	}
}

// The helper enters a ruleset from the runner (RulesetArg) only where fd 4
// is one, and only for an approved run that holds mounts.
func TestHelperTakesOnlyARuleset(t *testing.T) {
	if abi, err := landlockABI(); err != nil || abi < 1 {
		t.Skip("no Landlock in this kernel")
	}
	home, tmp := t.TempDir(), t.TempDir()
	f, _, err := MountsRuleset(tmp, nil, &scope.Scope{Write: []string{home}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !isRuleset(int(f.Fd())) {
		t.Error("a ruleset from MountsRuleset is not taken for one")
	}
	if isRuleset(0) {
		t.Error("stdin is taken for a ruleset")
	}
	for _, args := range [][]string{
		{"-ro", "-tmp", tmp, RulesetArg, "0", "--", "true"},
		{"-ro", "-tmp", tmp, ScopedArg, RulesetArg, "0", "--", "true"},
		{"-ro", "-tmp", tmp, MountsArg, RulesetArg, "0", "--", "true"},
		{"-ro", "-tmp", tmp, ScopedArg, MountsArg, RulesetArg, "x", "--", "true"},
	} {
		if _, err := parseHelperArgs(args); err == nil {
			t.Errorf("%q: accepted", args)
		}
	}
	if _, err := parseHelperArgs([]string{"-ro", "-tmp", tmp, ScopedArg, MountsArg, RulesetArg, "0", "--", "true"}); err != nil {
		t.Error(err)
	}
}
