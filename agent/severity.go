package agent

import (
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/policy"
)

// Reasons are shown most harmful first, so that whatever a surface has
// room for starts with what can lose data. The policy lists them in the
// order the command names them, which puts "mkdir: creates directories"
// ahead of the "rm: deletes files" that follows it in a long command.

// overwriters are programs whose ordinary use can replace or destroy
// existing files: a rule allowing one of them also allows its
// overwriting forms, so they count as destructive like rm does.
var overwriters = map[string]bool{
	"cp": true, "mv": true, "install": true, "rsync": true, "dd": true,
	"tee": true, "truncate": true, "shred": true, "ln": true,
}

// Destructive reports whether r is about losing data: a deletion, an
// erased disk, or an overwrite (a redirection that truncates, or a program
// that replaces files). Such a reason is never folded away, and such a
// command is never one click from an Always allow rule.
func Destructive(r shell.Reason) bool {
	switch r.Category {
	case policy.Delete, policy.Disk:
		return true
	case policy.Write:
		if strings.Contains(r.Why, "overwrit") || strings.Contains(r.Why, "replac") {
			return true
		}
		return overwriters[reasonProgram(r)]
	}
	return false
}

// reasonProgram is the program a reason names before its colon
// ("mv: moves or renames files" → "mv"); "" for a redirection's reason.
func reasonProgram(r shell.Reason) string {
	p, _, ok := strings.Cut(r.Why, ": ")
	if !ok || strings.ContainsAny(p, " <>") {
		return ""
	}
	return p
}

// severity ranks a reason: lower is shown first. Data loss comes first,
// then what reaches beyond the folder (privileges, the network, other
// code), then changes to the system, and plain creation last.
func severity(r shell.Reason) int {
	if Destructive(r) {
		if r.Category == policy.Disk {
			return 0
		}
		if r.Category == policy.Delete {
			return 1
		}
		return 2
	}
	switch r.Category {
	case policy.Privilege:
		return 3
	case policy.Network:
		return 4
	case policy.Code:
		return 5
	case policy.Package:
		return 6
	case policy.System:
		return 7
	case policy.Process:
		return 8
	case policy.Parse:
		return 9
	case policy.Unknown:
		return 10
	}
	return 11 // writes that create or change files
}

// OrderReasons returns rs most harmful first (deletions, overwrites, the
// network, code … before creating files), keeping the policy's order
// among reasons of the same rank. rs itself is not changed.
func OrderReasons(rs []shell.Reason) []shell.Reason {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b shell.Reason) int { return severity(a) - severity(b) })
	return out
}

// AnyDestructive reports whether any of rs is Destructive.
func AnyDestructive(rs []shell.Reason) bool {
	return slices.ContainsFunc(rs, Destructive)
}
