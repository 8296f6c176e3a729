package policy

import (
	"runtime"
	"strings"
	"testing"
)

// floorCase is a command judged in a folder ("" for Classify alone).
type floorCase struct {
	family string
	dir    string
	cmd    string
	tier   Tier
	reason string
}

// floorCases are the floor's findings of issue 20: every forbidden family
// judged after expansion, as bash would pass the words, in every folder the
// command may run in. Each forbidden or confirm entry once reached a milder
// tier; the safe entries beside them have to stay safe.
var floorCases = []floorCase{
	// Brace expansion into the command name: the name is one of the words.
	{"brace-name", "", "{sudo,} id", Forbidden, "sudo: privilege escalation"},
	{"brace-name", "", "{rm,-rf,/}", Forbidden, "recursive deletion of /"},
	{"brace-name", "", "{doas,} ls", Forbidden, "doas: privilege escalation"},
	{"brace-name", "", "{sudo,true} ls", Forbidden, "sudo: privilege escalation"},
	{"brace-name", "", "{reboot,}", Forbidden, "reboot"},
	{"brace-name", "", "{mkfs.ext4,} /dev/sda1", Forbidden, "mkfs"},
	{"brace-name", "", "{nice,rm} -rf /", Forbidden, "recursive deletion of /"},
	{"brace-name", "", "{echo,hi}", Safe, ""},
	// Past the bound the words are not read, so the floor could not be
	// judged: refused, whatever the program.
	{"brace-overflow", "", "rm -rf {/,{1..20000}}", Forbidden, "a brace expansion too large to check"},
	{"brace-overflow", "", "chmod -R 777 {{1..200}{1..200},/}", Forbidden, "a brace expansion too large to check"},
	{"brace-overflow", "", "echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", Forbidden, "a brace expansion too large to check"},
	{"brace-overflow", "", "echo {1..9000}", Safe, ""},
	{"brace-name", "", "{ls,-la}", Safe, ""},

	// Brace expansion into the options.
	{"brace-flags", "", "rm {-rf,~}", Forbidden, "recursive deletion of ~"},
	{"brace-flags", "", "rm {-r,-f} /", Forbidden, "recursive deletion of /"},
	{"brace-flags", "", "rm -{r,f} /", Forbidden, "recursive deletion of /"},
	{"brace-flags", "", "kill -9 {-1,}", Forbidden, "stopping every process"},
	{"brace-flags", "", "kill {-9,-1}", Forbidden, "stopping every process"},
	{"brace-flags", "", "chmod {-R,777} /", Forbidden, "recursive change of /"},
	{"brace-flags", "", "ls {-l,-a} .", Safe, ""},

	// Brace expansion into the targets.
	{"brace-target", "", "rm -rf {/,x}", Forbidden, "recursive deletion of /"},
	{"brace-target", "", "rm -rf ~/{Documents,}", Forbidden, "recursive deletion of ~"},
	{"brace-target", "", "rm -rf /{usr,tmp}", Forbidden, "recursive deletion of /usr"},
	{"brace-target", "", "rm -rf {~,/tmp/x}", Forbidden, "recursive deletion of ~"},
	{"brace-target", "", "chown -R me {/etc,x}", Forbidden, "recursive change of /etc"},
	{"brace-target", "", "rm -rf {/tmp/a,/tmp/b}", Confirm, "rm: deletes files"},
	{"brace-target", "", "cat notes.{txt,md}", Safe, ""},
	{"brace-target", "", "ls {src,docs}/", Safe, ""},

	// Brace expansion into builtins that read their own options.
	{"brace-builtin", "", "test {-v,'a[$(touch x)]'}", Confirm, "-v: evaluates an array subscript"},
	{"brace-builtin", "", "[ {-v,'a[$(id)]'} ]", Confirm, "-v: evaluates an array subscript"},
	{"brace-builtin", "", "jobs {-x,touch} F", Confirm, "jobs -x: runs a command"},
	{"brace-builtin", "", "set {-k,}", Confirm, "-k changes how the shell reads"},
	{"brace-builtin", "", "set -{k,e}", Confirm, "-k changes how the shell reads"},
	{"brace-builtin", "", "printf {%d,'a[$(id)]'}", Confirm, "evaluated as arithmetic"},
	{"brace-builtin", "", "trap {'rm -rf ~',EXIT}", Forbidden, "recursive deletion of ~"},
	{"brace-builtin", "", "timeout {5,sudo} ls", Forbidden, "sudo: privilege escalation"},
	{"brace-builtin", "", "echo {'sudo id',} | sh", Forbidden, "sudo: privilege escalation"},
	{"brace-builtin", "", "test {-f,x}", Safe, ""},

	// env -C and --chdir run the command in another folder.
	{"env-chdir", "", "env -C / rm -rf bin etc usr", Forbidden, "recursive deletion of /bin"},
	{"env-chdir", "", "env --chdir=/ rm -rf *", Forbidden, "recursive deletion of /"},
	{"env-chdir", "", "env --chdir / rm -rf *", Forbidden, "recursive deletion of /"},
	{"env-chdir", "", "env -C ~ rm -rf *", Forbidden, "recursive deletion of ~"},
	{"env-chdir", "", "env -C/usr rm -rf *", Forbidden, "recursive deletion of /usr"},
	{"env-chdir", "", "env -i -C / rm -rf bin", Forbidden, "recursive deletion of /bin"},
	{"env-chdir", "", "env -C / chmod -R 777 etc", Forbidden, "recursive change of /etc"},
	{"env-chdir", "~/src", "env -C .. rm -rf *", Forbidden, "recursive deletion of ~"},
	{"env-chdir", "", "nice env -C / rm -rf *", Forbidden, "recursive deletion of /"},

	// Variables, parameter operators, arrays and loops name home too.
	{"vars", "", `x=$HOME; rm -rf "$x"`, Forbidden, "recursive deletion of ~"},
	{"vars", "", "x=~/; rm -rf $x", Forbidden, "recursive deletion of ~"},
	{"vars", "", "rm -rf ${HOME:-/tmp}", Forbidden, "recursive deletion of ~"},
	{"vars", "", "rm -rf ${x-$HOME}", Forbidden, "when a variable it uses is unset"},
	{"vars", "", "export x=$HOME; find $x -delete", Forbidden, "deleting everything under ~"},
	{"vars", "", `a=(~); chmod -R 777 "${a[@]}"`, Forbidden, "recursive change of ~"},
	{"vars", "", `for d in ~; do rm -rf "$d"; done`, Forbidden, "recursive deletion of ~"},
	{"vars", "~", `rm -rf "$PWD"`, Forbidden, "recursive deletion of ~"},
	{"vars", "~", `rm -rf "$OLDPWD"`, Forbidden, "recursive deletion of ~"},
	{"vars", "", ": ${x:=~}; rm -rf $x", Forbidden, "recursive deletion of ~"},
	{"vars", "~", "find * -delete", Forbidden, "deleting everything under ~"},
	{"vars", "", "x=~/src/build; rm -rf $x", Confirm, "rm: deletes files"},
	{"env-chdir", "~", "env -C /tmp/x rm -rf *", Confirm, "rm: deletes files"},

	// A cd that may not run leaves the shell where it was, and the floor
	// judges every folder the command may run in.
	{"conditional-cd", "~", "if false; then cd ~/Documents; fi; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "[ -d x ] && cd x; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "true || cd x; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "if [ -d x ]; then cd x; else echo no; fi; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "while false; do cd x; done; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "cd x & rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "(cd x); rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "cd x | true; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "cd x; rm -rf *", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "~", "cd x || echo no; rm -rf .", Forbidden, "recursive deletion of ~"},
	{"conditional-cd", "", "cd / && cd /tmp/x; rm -rf *", Forbidden, "recursive deletion of /"},
	{"conditional-cd", "/", "cd /tmp/x; rm -rf *", Forbidden, "recursive deletion of /"},
	{"conditional-cd", "~", "[ -d x ] && cd x; find . -delete", Forbidden, "deleting everything under ~"},
	{"conditional-cd", "~", "cd x && rm -rf *", Confirm, "rm: deletes files"},
	{"conditional-cd", "~", "cd x || exit; rm -rf *", Confirm, "rm: deletes files"},
	{"conditional-cd", "~/src", "cd build; ls", Safe, ""},

	// Aliases of / and of the command's own folder.
	{"proc-alias", "", "rm -rf /proc/self/root/", Forbidden, "recursive deletion of /"},
	{"proc-alias", "", "rm -rf /proc/1/root/etc", Forbidden, "recursive deletion of /etc"},
	{"proc-alias", "", "chmod -R 777 /proc/self/root", Forbidden, "recursive change of /"},
	{"proc-alias", "", "rm -rf /proc/thread-self/root", Forbidden, "recursive deletion of /"},
	{"proc-alias", "", "rm -rf /proc/self/task/1/root/usr", Forbidden, "recursive deletion of /usr"},
	{"proc-alias", "", "rm -rf /proc/self/root/proc/self/root/home/bob", Forbidden, "recursive deletion of /home/bob"},
	{"proc-alias", "", "find /proc/self/root -delete", Forbidden, "deleting everything under /"},
	{"proc-alias", "~", "rm -rf /proc/self/cwd/*", Forbidden, "recursive deletion of ~"},
	{"proc-alias", "/", "rm -rf /proc/self/cwd", Forbidden, "recursive deletion of /"},
	{"proc-alias", "/", "rm -rf ~+/usr", Forbidden, "recursive deletion of /usr"},
	{"proc-alias", "", "rm -rf /proc/self/root/tmp/x", Confirm, "rm: deletes files"},
	{"proc-alias", "", "rm -rf /dev/fd/3", Confirm, "rm: deletes files"},

	// Walks out of /dev/fd and /proc/… by '..', taken as the kernel takes
	// them: /dev/fd is a link to /proc/self/fd, /proc/self one to /proc/PID,
	// /proc/thread-self one to /proc/PID/task/TID, /proc/net one to
	// /proc/self/net.
	{"proc-walk", "~", "cd /dev/fd/../../proc/self/cwd && rm -rf *", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "~", "rm -rf /dev/fd/../cwd/*", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "/", "rm -rf /dev/fd/../cwd", Forbidden, "recursive deletion of /"},
	{"proc-walk", "", "rm -rf /dev/fd/../root/etc", Forbidden, "recursive deletion of /etc"},
	{"proc-walk", "", "rm -rf /dev/fd/../../1/root/usr", Forbidden, "recursive deletion of /usr"},
	{"proc-walk", "~", "rm -rf /proc/self/fd/../cwd/*", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "~", "cd -P /dev/fd/../../self/cwd && rm -rf *", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "~", "cd /proc/self/fd/../../self/cwd && rm -rf *", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "~", "rm -rf /proc/thread-self/../../cwd/*", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "", "rm -rf /proc/thread-self/../../root/home", Forbidden, "recursive deletion of /home"},
	{"proc-walk", "~", "rm -rf /proc/thread-self/../1/cwd/..", Forbidden, "recursive deletion of ~/.."},
	{"proc-walk", "", "rm -rf /dev/fd/../../proc/self/root", Confirm, "rm: deletes files"},
	{"proc-walk", "", "rm -rf /proc/1/fd/../root/etc", Forbidden, "recursive deletion of /etc"},
	{"proc-walk", "", "rm -rf /proc/1/task/1/fd/../../../root/var", Forbidden, "recursive deletion of /var"},
	{"proc-walk", "~", "rm -rf /proc/net/../cwd/*", Forbidden, "recursive deletion of ~"},
	{"proc-walk", "", "rm -rf /proc/self/../self/root/etc", Forbidden, "recursive deletion of /etc"},
	{"proc-walk", "", "rm -rf /dev/fd/3/..", Confirm, "rm: deletes files"},
	{"proc-walk", "", "rm -rf /dev/stdin/../..", Confirm, "rm: deletes files"},
	{"proc-walk", "", "rm -rf /dev/fd/../fd", Confirm, "rm: deletes files"},
}

// devFdOwnFS says whether /dev/fd is a file system of its own (macOS)
// rather than a link to /proc/self/fd: walks out of it by '..' then lead
// into /dev, and the cases that walk from /dev/fd to /proc do not apply.
var devFdOwnFS = runtime.GOOS == "darwin"

func floorCaseApplies(tc floorCase) bool {
	return !devFdOwnFS || !strings.Contains(tc.cmd, "/dev/fd/..")
}

func init() {
	for _, tc := range floorCases {
		if tc.dir == "" && floorCaseApplies(tc) {
			policyCases = append(policyCases, policyCase{tc.family, tc.cmd, tc.tier, tc.reason})
		}
	}
}

func classifyFloor(p *Policy, tc floorCase) Verdict {
	if tc.dir == "" {
		return p.Classify(tc.cmd)
	}
	return p.ClassifyIn(tc.cmd, tc.dir)
}

func TestFloorCases(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	held := 0
	for _, tc := range floorCases {
		if !floorCaseApplies(tc) {
			continue // see devFdOwnFS
		}
		v := classifyFloor(p, tc)
		ok := v.Tier == tc.tier
		if ok && tc.reason != "" {
			ok = false
			for _, r := range v.Reasons {
				ok = ok || strings.Contains(r.Why, tc.reason)
			}
		}
		if !ok {
			t.Errorf("%s: %q in %q = %s %v, want %s with %q", tc.family, tc.cmd, tc.dir, v.Tier, v.Reasons, tc.tier, tc.reason)
			continue
		}
		held++
	}
	t.Logf("%d of %d floor cases hold", held, len(floorCases))
}
