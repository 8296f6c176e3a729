package policy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tier is the policy's verdict on a command.
type Tier string

const (
	// Safe commands are provably read-only and run without asking.
	Safe Tier = "safe"
	// Confirm commands may change the machine and run only after the user agrees.
	Confirm Tier = "confirm"
	// Forbidden commands are never run and nobody is asked.
	Forbidden Tier = "forbidden"
)

// Reason explains one offending part of a command.
type Reason struct {
	Command  string   `json:"command"`  // the part of the command the reason is about, e.g. "rm -rf build"
	Why      string   `json:"why"`      // human text, e.g. "rm: deletes files"
	Category Category `json:"category"` // what kind of harm, for the approval UI and the audit log
}

// Category says what kind of harm a reason is about, so that the approval
// prompt and the audit log can group and mark reasons without reading
// their text.
type Category string

// The categories. Every reason has one.
const (
	Delete    Category = "delete"    // removes files or data
	Write     Category = "write"     // creates or changes files
	Network   Category = "network"   // reaches another machine
	Code      Category = "code"      // runs other code: interpreters, command strings, hooks, variables that load code
	Privilege Category = "privilege" // escalates privileges or changes accounts and secrets
	Disk      Category = "disk"      // erases or repartitions disks
	Process   Category = "process"   // stops processes, runs in the background, fork bombs
	Package   Category = "package"   // installs or removes software
	System    Category = "system"    // changes settings, services, power, the terminal
	Parse     Category = "parse"     // the command cannot be read reliably: parse errors, hidden text, nesting
	Unknown   Category = "unknown"   // a program Hark does not know to be read-only
)

// Verdict is the policy's classification of a whole command line.
type Verdict struct {
	Command string   `json:"command"`
	Tier    Tier     `json:"tier"`
	Reasons []Reason `json:"reasons"`
}

// verdict accumulates reasons; the tier only ever gets worse.
type verdict struct {
	dir     string // the working directory ClassifyIn was given, for Options.RepoPrograms
	tier    Tier
	reasons []Reason
	seen    map[Reason]bool // keeps de-duplication linear on long commands
	// last holds, for each reason text and category, the command part it
	// was last added for. Checks add the same reason for the same part
	// many times over (every assignment of a 100 KB command line names the
	// whole line), and comparing the very same string is immediate where
	// hashing it for seen is not.
	last map[lastKey]string
	// texts holds variables the command sets to text that is not a plain
	// number, at any nesting depth (a string run by watch sees exported
	// ones). Arithmetic on them can run code; see arithm.
	texts map[string]bool
	// forbids are the reasons added as Forbidden, for a check run on the
	// words as plan expands them, which may only add refusals.
	forbids []Reason
}

type lastKey struct {
	why string
	cat Category
}

func (v *verdict) setText(name string) {
	if v.texts == nil {
		v.texts = map[string]bool{}
	}
	v.texts[name] = true
}

func rank(t Tier) int {
	switch t {
	case Safe:
		return 0
	case Forbidden:
		return 2
	}
	return 1
}

func (v *verdict) add(t Tier, cat Category, part, why string) {
	if rank(t) > rank(v.tier) {
		v.tier = t
	}
	k := lastKey{why, cat}
	if prev, ok := v.last[k]; ok && prev == part {
		return
	}
	if v.seen == nil {
		v.seen, v.last = map[Reason]bool{}, map[lastKey]string{}
	}
	v.last[k] = part
	r := Reason{Command: part, Why: why, Category: cat}
	if v.seen[r] {
		return
	}
	v.seen[r] = true
	v.reasons = append(v.reasons, r)
	if t == Forbidden {
		v.forbids = append(v.forbids, r)
	}
}

// scanText rejects characters a person reviewing the command cannot see or
// that terminals render misleadingly, and line continuations, which join
// what looks like a second line onto the first command's arguments.
func scanText(v *verdict, s string) {
	if !utf8.ValidString(s) {
		v.add(Confirm, Parse, s, "the command is not valid UTF-8")
	}
	seen := false
	for _, r := range s {
		if r == '\t' || r == '\n' || r == utf8.RuneError || r >= 0x20 && r < 0x7f {
			continue
		}
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co) || invisible(r) {
			if !seen {
				v.add(Confirm, Parse, s, fmt.Sprintf("the command contains an invisible or control character (U+%04X)", r))
				seen = true
			}
		}
	}
	scanComments(v, s)
	if strings.Contains(s, "\\\n") {
		v.add(Confirm, Parse, s, "a backslash at the end of a line joins the next line onto this command")
	}
}

// scanComments flags comments holding code-like text. A comment ends at
// the newline, so "ls # x; rm -rf y" is just ls, but a reviewer could read
// it otherwise. This works on the text rather than the parse tree because
// the parser drops some comments (after a bare `time`, for one); a '#' inside
// quotes may be flagged too, which only costs a confirmation.
func scanComments(v *verdict, s string) {
	if !strings.Contains(s, "#") {
		return
	}
	for _, line := range strings.Split(s, "\n") {
		for i := 0; i < len(line); i++ {
			if line[i] != '#' || i > 0 && strings.IndexByte(" \t;&|()", line[i-1]) < 0 {
				continue
			}
			if rest := line[i+1:]; strings.ContainsAny(rest, ";&|`") || strings.Contains(rest, "$(") {
				v.add(Confirm, Parse, line[i:], line[i:]+": text after # is a comment and does not run")
				return
			}
			break
		}
	}
}

// invisible lists characters outside the Cc/Cf/Zl/Zp/Co categories that
// render as nothing: Hangul fillers, the combining grapheme joiner and
// variation selectors.
func invisible(r rune) bool {
	switch {
	case r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0', r == '\u034f', r == '\u2800':
		return true
	case r >= '\ufe00' && r <= '\ufe0f', r >= 0xe0100 && r <= 0xe01ef:
		return true
	}
	return false
}
