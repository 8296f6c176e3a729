package policy

import (
	"path"
	"strings"
	"testing"
)

// A repository whose configuration names a program sandboxed git would
// still run (an external diff, a driver, an include) makes the subcommands
// that run drivers ask; the directory asked about is the one git would
// start from, through literal cd and -C; one known only at run time asks.
func TestGitRepoPrograms(t *testing.T) {
	t.Parallel()
	var asked []string
	hostile := map[string]bool{"/work/evil": true, "/work/evil/sub": true, "~/dl/evil": true}
	p := New(Options{RepoPrograms: func(dir string) string {
		asked = append(asked, dir)
		if hostile[path.Clean(dir)] {
			return "diff.external"
		}
		return ""
	}})
	tests := []struct {
		dir, command string
		want         Tier
		asks         string // the directory the hook must be asked about
	}{
		{"/work/evil", "git diff", Confirm, "/work/evil"},
		{"/work/evil", "git status --short", Confirm, "/work/evil"},
		{"/work/evil", "git log -p -3", Confirm, "/work/evil"},
		{"/work/evil", "git show HEAD", Confirm, "/work/evil"},
		{"/work/evil", "git rev-parse HEAD", Safe, ""}, // runs no drivers
		{"/work/good", "git diff", Safe, "/work/good"},
		{"/work/good", "cd ../evil && git diff", Confirm, "/work/good/../evil"},
		{"/work", "cd evil/sub; git blame f", Confirm, "/work/evil/sub"},
		{"/work", "git -C evil diff", Confirm, "/work/evil"},
		{"/", "git -C ~/dl/evil status", Confirm, "~/dl/evil"},
		{"/work", `cd "$D" && git diff`, Confirm, ""},
		{"/work", `git -C "$D" status`, Confirm, ""},
		// Trusted parameters and other tildes are plain words whose
		// directory the shell decides: ~+ and $PWD are the directory the
		// command is in, ~- and $OLDPWD the one before, ~user another home.
		{"/work", "cd ~+/evil; git diff", Confirm, ""},
		{"/work", "cd $PWD/evil && git diff", Confirm, ""},
		{"/work", `cd "${PWD}/evil" && git diff`, Confirm, ""},
		{"/work", "git -C $PWD/evil status", Confirm, ""},
		{"/work", "git -C ~+/evil log -p", Confirm, ""},
		{"/work", "cd evil; cd /work; cd ~-; git diff", Confirm, ""},
		{"/work", "cd $OLDPWD; git diff", Confirm, ""},
		{"/work", "git -C ~root/evil diff", Confirm, ""},
		{"/work", "cd $TMPDIR/evil; git diff", Confirm, ""},
		// The directory stack is not followed: popd, pushd alone and +N or
		// -N return to where an earlier pushd was.
		{"/work", "pushd evil; pushd /tmp; popd; git diff", Confirm, ""},
		{"/work", "pushd evil; pushd /tmp; pushd; git diff", Confirm, ""},
		{"/work", "pushd evil; pushd /tmp; pushd +1; git diff", Confirm, ""},
		{"/work", "pushd evil; pushd /tmp; pushd -0; git diff", Confirm, ""},
		{"/work", "pushd evil; pushd /tmp; cd +1; git diff", Confirm, ""},
		{"/work", "pushd evil; pushd /tmp; cd -1; git diff", Confirm, ""},
		{"/work", "pushd good; git diff", Safe, "/work/good"},
		{"/work", "builtin cd evil; git diff", Confirm, "/work/evil"},
		// A cd that fails, runs in a pipeline or subshell, or is skipped
		// leaves git where the shell was: every earlier place counts.
		{"/work/evil", "cd /nonexistent; git diff", Confirm, "/work/evil"},
		{"/work/evil", "cd /tmp || :; git diff", Confirm, "/work/evil"},
		{"/work/evil", "cd /tmp | cat; git diff", Confirm, "/work/evil"},
		{"/work/evil", "(cd /tmp); git diff", Confirm, "/work/evil"},
		{"/work/evil", "false && cd /tmp; git diff", Confirm, "/work/evil"},
		{"/work/evil", "if false; then cd /tmp; fi; git status", Confirm, "/work/evil"},
		{"/work/evil", "while false; do cd /tmp; done; git log -p", Confirm, "/work/evil"},
		{"/work", "cd evil; cd /tmp 2>/dev/null; git diff", Confirm, "/work/evil"},
		{"/work", "cd good; cd /tmp; git diff", Safe, "/tmp"},
		// reflog is log -g: with -p it diffs through the same drivers.
		{"/work/evil", "git reflog -p", Confirm, "/work/evil"},
		{"/work/evil", "git reflog show -p HEAD", Confirm, "/work/evil"},
		{"/work", "git -C evil reflog --patch", Confirm, "/work/evil"},
		{"/work/good", "git reflog -p", Safe, "/work/good"},
		{"/work", "command pushd evil && git log -p", Confirm, "/work/evil"},
		{"/work", "cd ~/dl/evil; git diff", Confirm, "~/dl/evil"},
		{"/work", "cd ~; git diff", Safe, "~"},
		{"/work", "cd $HOME/dl/evil; git diff", Confirm, "~/dl/evil"},
	}
	for _, tt := range tests {
		asked = nil
		v := p.ClassifyIn(tt.command, tt.dir)
		if v.Tier != tt.want {
			t.Errorf("%s in %s: %s %v, want %s", tt.command, tt.dir, v.Tier, v.Reasons, tt.want)
		}
		if tt.asks != "" && (len(asked) == 0 || asked[len(asked)-1] != tt.asks) {
			t.Errorf("%s in %s: asked about %q, want %q", tt.command, tt.dir, asked, tt.asks)
		}
	}
}

func TestKnows(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"ls": true, "rm": true, "git": true, "sudo": true, "no-such-program-x": false} {
		if Knows(name) != want {
			t.Errorf("Knows(%q) = %v, want %v", name, !want, want)
		}
	}
}

// In the macOS sandbox the programs that need closed system services ask
// rather than fail; elsewhere, and without the option, they stay safe.
func TestSeatbeltAsksForServicePrograms(t *testing.T) {
	t.Parallel()
	mac := New(Options{Seatbelt: true})
	plain := New(Options{})
	for _, cmd := range []string{"diskutil list", "pmset -g batt", "pbpaste", "ifconfig", "docker ps", "scutil --dns", "networksetup -listallnetworkservices", "route get default", "codesign -dv /Applications/Safari.app", "crontab -l"} {
		if v := mac.Classify(cmd); v.Tier != Confirm || !hasReasonText(v, "macOS services") {
			t.Errorf("Seatbelt: %s is %s %v, want confirm", cmd, v.Tier, v.Reasons)
		}
		if v := plain.Classify(cmd); v.Tier == Confirm && hasReasonText(v, "macOS services") {
			t.Errorf("without Seatbelt: %s asks for macOS services", cmd)
		}
	}
	for _, cmd := range []string{"ls -la", "ps aux", "mdfind report", "sw_vers"} {
		if v := mac.Classify(cmd); v.Tier != Safe {
			t.Errorf("Seatbelt: %s is %s %v, want safe", cmd, v.Tier, v.Reasons)
		}
	}
	// pgrep -f reads other processes' arguments, which the profile closes.
	for _, cmd := range []string{"pgrep -f 'node server'", "pgrep -fl java", "pgrep -lf x", "pgrep --full x"} {
		if v := mac.Classify(cmd); v.Tier != Confirm || !hasReasonText(v, "macOS sandbox keeps closed") {
			t.Errorf("Seatbelt: %s is %s %v, want confirm", cmd, v.Tier, v.Reasons)
		}
		if v := plain.Classify(cmd); v.Tier != Safe {
			t.Errorf("without Seatbelt: %s is %s %v, want safe", cmd, v.Tier, v.Reasons)
		}
	}
	for _, cmd := range []string{"pgrep node", "pgrep -l -x Finder", "pgrep -u me zsh"} {
		if v := mac.Classify(cmd); v.Tier != Safe {
			t.Errorf("Seatbelt: %s is %s %v, want safe", cmd, v.Tier, v.Reasons)
		}
	}
	if v := mac.Classify("diskutil eraseDisk JHFS+ x disk2"); v.Tier != Forbidden {
		t.Errorf("an erase stays forbidden: %s", v.Tier)
	}
}

func hasReasonText(v Verdict, sub string) bool {
	for _, r := range v.Reasons {
		if strings.Contains(r.Why, sub) {
			return true
		}
	}
	return false
}
