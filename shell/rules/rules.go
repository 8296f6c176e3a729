// Package rules holds the user's standing answers to approvals: "always
// allow" rules that let a confirm-tier command run without asking, "always
// ask" rules that make even a read-only command wait for the user, and
// "never" rules that refuse a command outright. Rules decide on top of the
// policy's verdict and can only move it within a floor: a forbidden command
// stays forbidden, and a command that touches a protected path (home
// itself, the system roots, keychains, ssh and gpg keys, shell start-up
// files, .git internals) always asks, whatever an allow rule says.
//
// A rule matches on the parsed command, never on its text: the program as
// the policy resolves it, its leading subcommand words, and optionally a
// folder that the working directory and every path argument must stay in.
// The command is read once, through shell/plan, which models how bash will
// expand it and in which folders each part may run (a cd under a condition
// gives several; all of them count). Paths are judged where they land, not
// as they are spelt: patterns are expanded against the disk at every folder
// the command may run in, links are followed and '..' taken physically,
// and /proc/*/root, /proc/self/cwd and the like are taken back to what they
// name, before a folder scope or the floor is applied. A path or folder
// only known when the command runs (/dev/fd/N, a variable Hark does not
// know, a cd to a computed folder) keeps every allow rule from applying.
// The floor treats a repository that a .git file (`gitdir: PATH`, as
// worktrees and submodules write it) or a .git link points to as it
// treats .git itself: its hooks and config run code.
//
// Ask and never rules match the program, then their words in order
// anywhere after it. A word matches an argument spelt the same; a word
// that names a path — it starts with ~ or /, holds a '/' or a '.', or names
// something that exists in the rule's folder or the command's — also
// matches an argument that lands on the same file, so "always ask for cat
// secrets.txt" holds for `cat ./secrets.txt`, `cat secrets.tx?`, `cat
// "$PWD/secrets.txt"`, `cat ~/proj/secrets.txt` run in ~/proj, and a link
// to the file. A relative word is read in the folder the command runs in
// (where the rule's folder scope lets it apply there) and in the rule's
// folder, so a folder-scoped rule also holds for its file named from
// elsewhere. When an argument or a folder cannot be told, a rule that
// might match asks, a never rule included (it asks rather than refuse on
// a guess).
//
// sed and awk carry file names inside their scripts (w FILE, print >
// "FILE"), where neither a folder scope nor the floor sees them: no allow
// rule covers a script that writes such a file, runs commands (sed's e,
// awk's system()) or is read from a file.
package rules

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
)

// Kind is what a rule does with the commands it matches.
type Kind string

// The kinds of rule.
const (
	Allow Kind = "allow" // run without asking (confirm tier only; the floor still asks)
	Ask   Kind = "ask"   // always ask, even for a read-only command
	Never Kind = "never" // refuse, nobody is asked
)

// Examples are commands a rule must and must not decide; they are checked
// every time the rules are loaded, so a hand edit that makes a rule mean
// something else is caught, reported, and the rule ignored.
type Examples struct {
	Match   []string `json:"match"`
	NoMatch []string `json:"noMatch"`
}

// Rule is one standing answer, as stored in rules.json.
type Rule struct {
	Kind Kind `json:"kind"`
	// Program is a command's name as the policy resolves it: /usr/bin/git
	// and git are both "git".
	Program string `json:"program"`
	// Words must follow the program: for an allow rule as its first
	// arguments exactly ("git commit" does not allow "git -c x commit");
	// for ask and never rules anywhere after it in this order, so an
	// option in front cannot slip past them.
	Words []string `json:"words,omitempty"`
	// Folder, when set, limits the rule to commands run in it or below,
	// whose path arguments all land in it once expanded and resolved
	// (links followed). "~/" stands for the home folder.
	Folder   string   `json:"folder,omitempty"`
	Examples Examples `json:"examples"`
	Note     string   `json:"note,omitempty"`
}

// String reads like the rule's meaning: "allow git commit in ~/src/hark".
func (r Rule) String() string {
	s := string(r.Kind) + " " + strings.Join(append([]string{r.Program}, r.Words...), " ")
	switch r.Kind {
	case Allow:
		s = "always allow " + strings.Join(append([]string{r.Program}, r.Words...), " ")
	case Ask:
		s = "always ask for " + strings.Join(append([]string{r.Program}, r.Words...), " ")
	case Never:
		s = "never run " + strings.Join(append([]string{r.Program}, r.Words...), " ")
	}
	if r.Folder != "" {
		s += " in " + r.Folder
	}
	return s
}

// Classifier is the policy as the rules need it; *policy.Policy satisfies it.
type Classifier interface {
	ClassifyIn(command, workingDirectory string) policy.Verdict
}

// call is one simple command of a parsed command line.
type call struct {
	program    string   // resolved name; "" when not a known name
	runsOthers bool     // a wrapper, shell or interpreter
	args       []string // after the program as spelled, decoded; "" for a word that is not literal
	literal    bool     // every word is plain text: no expansion, substitution, brace or ~user
	// words are the arguments as parsed, expanded at each of places
	// (plan's model of where the command runs) when a rule needs the
	// names the program will really be given.
	words  []*syntax.Word
	places []plan.Place
}

// parsed is what the rules read of a command line.
type parsed struct {
	calls []call // every simple command anywhere in the tree, substitutions included
	// single: the whole line is exactly one simple command, with no
	// redirection, assignment, background, negation or substitution.
	single bool
	// reach adds, for ask and never rules, what wrappers and code strings
	// run: `nice git push`, `env X=1 git push`, `bash -c 'git push'` and
	// `eval 'git push'` all reach git push.
	reach []call
	err   error
}

// maxReach bounds how deeply code strings are parsed again.
const maxReach = 3

// parse reads command, run in wd, through plan. The walk does not look
// at the disk: whether a cd succeeds is left open (the line may create
// the folder it enters), so every folder a command may run in is a Place
// of it; patterns are matched against the disk later, at each Place.
func parse(command, wd, home string) parsed {
	return parseDepth(command, plan.Env{Home: home, Dir: wd}, 0)
}

func parseDepth(command string, env plan.Env, depth int) parsed {
	sc, err := plan.Parse(command)
	if err != nil {
		return parsed{err: err}
	}
	var p parsed
	for _, pc := range sc.Calls(env) {
		x := pc.Expr
		if len(x.Args) == 0 {
			continue
		}
		c := decodeCall(x)
		c.places = pc.Places
		if len(c.places) == 0 {
			// The model says it never runs (after exit, or false &&);
			// rules still read it where the line starts rather than take
			// that on trust.
			c.places = []plan.Place{{Dir: env.Dir}}
			if env.Dir == "" {
				c.places[0].Unknown = "the starting folder is not known"
			}
		}
		p.calls = append(p.calls, c)
		p.reach = append(p.reach, c)
		if c.runsOthers || c.program == "eval" {
			p.reach = append(p.reach, reached(c, env, depth)...)
		}
	}
	if f := sc.File; len(f.Stmts) == 1 {
		s := f.Stmts[0]
		x, ok := s.Cmd.(*syntax.CallExpr)
		p.single = ok && len(x.Args) > 0 && len(x.Assigns) == 0 && len(s.Redirs) == 0 &&
			!s.Background && !s.Negated && !s.Coprocess && !s.Disown && len(p.calls) == 1 && p.calls[0].literal
	}
	return p
}

// reached are the commands a wrapper or code-running program may run:
// every suffix of its arguments that starts with a program name, and
// every argument parsed as a command line, in each folder the wrapper
// may run in.
func reached(c call, env plan.Env, depth int) []call {
	var out []call
	for i, a := range c.args {
		if name, runsOthers, ok := policy.Program(a); ok {
			out = append(out, call{program: name, runsOthers: runsOthers, args: c.args[i+1:], literal: c.literal,
				words: c.words[i+1:], places: c.places})
		}
		if depth < maxReach && strings.ContainsAny(a, " ;|&") {
			for _, pl := range c.places {
				sub := env
				sub.Dir = pl.Dir // "" when unknown: the code's own places are unknown too
				if p := parseDepth(a, sub, depth+1); p.err == nil {
					out = append(out, p.reach...)
				}
			}
		}
	}
	return out
}

func decodeCall(x *syntax.CallExpr) call {
	c := call{literal: true, words: x.Args[1:]}
	words := make([]string, 0, len(x.Args))
	for _, w := range x.Args {
		s, ok := literalWord(w)
		if !ok {
			c.literal = false
		}
		words = append(words, s)
	}
	if !c.literal {
		// The name alone may still be known: a never rule about it must
		// see `git push $(…)`.
		if s, ok := literalWord(x.Args[0]); ok {
			c.program, c.runsOthers, _ = policy.Program(s)
		}
		c.args = words[1:]
		return c
	}
	name, runsOthers, ok := policy.Program(words[0])
	if ok {
		c.program, c.runsOthers = name, runsOthers
	}
	c.args = words[1:]
	return c
}

// literalWord decodes a word that means the same text whatever the shell's
// state (plan.Literal), apart from ~user, ~+ and ~-, which name other
// folders. Globs are literal here; the folder check reads them as paths.
func literalWord(w *syntax.Word) (string, bool) {
	if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") && l.Value != "~" && !strings.HasPrefix(l.Value, "~/") {
		return "", false
	}
	return plan.Literal(w)
}

// matchesExact is how an allow rule matches: the program, then exactly
// its words as the first arguments.
func (r Rule) matchesExact(c call) bool {
	if c.program != r.Program || len(c.args) < len(r.Words) {
		return false
	}
	for i, w := range r.Words {
		if c.args[i] != w {
			return false
		}
	}
	return true
}

// within says whether p is dir or inside it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// expandFolder turns a rule's folder into a clean absolute path.
func expandFolder(f, home string) string {
	switch {
	case f == "~":
		return home
	case strings.HasPrefix(f, "~/"):
		return path.Clean(home + f[1:])
	}
	return path.Clean(f)
}

// tildeFolder writes a folder under home as ~/… for people.
func tildeFolder(f, home string) string {
	switch {
	case f == home:
		return "~"
	case strings.HasPrefix(f, home+"/"):
		return "~" + f[len(home):]
	}
	return f
}

// Protected paths: each always asks, however an allow rule reads. A path
// is protected when it is one of these, lies inside one marked subtree,
// or contains one (so home and / themselves are protected, and so is
// ~/Library, which holds the keychains).
var systemTrees = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/boot", "/System", "/Library", "/private/etc", "/Applications"}

var homeTrees = []string{"Library/Keychains", ".ssh", ".gnupg", ".config/fish", ".oh-my-zsh"}

var rcFiles = []string{".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".bashrc", ".bash_profile",
	".bash_login", ".bash_logout", ".profile", ".inputrc", ".config/git/config", ".gitconfig"}

// protectedPath returns the protected path p touches, or "".
func protectedPath(p, home string) string {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".git" {
			return p // a repository's internals: hooks and config run code
		}
	}
	if within(home, p) {
		return p // home itself, or a folder holding it
	}
	trees := make([]string, 0, len(systemTrees)+len(homeTrees))
	trees = append(trees, systemTrees...)
	for _, t := range homeTrees {
		trees = append(trees, home+"/"+t)
	}
	for _, t := range trees {
		if within(p, t) || within(t, p) {
			return t
		}
	}
	for _, f := range rcFiles {
		if f := home + "/" + f; within(f, p) {
			return f
		}
	}
	return ""
}

// allowable explains why an allow rule cannot apply to a command, or
// returns "" when it can. The same refusals keep Always allow from being
// offered.
func allowable(p parsed, v policy.Verdict, reduced func(call) policy.Verdict) string {
	switch {
	case p.err != nil:
		return "the command cannot be parsed"
	case v.Tier == policy.Forbidden:
		return "the command is forbidden; no rule can allow it"
	case len(p.calls) != 1:
		return "it is more than one command (a pipeline, a list or a substitution); allow rules cover one program at a time"
	case !p.single:
		return "it has a redirection, an assignment, a substitution or an expansion whose meaning depends on the shell"
	}
	c := p.calls[0]
	switch {
	case c.program == "":
		return "its program is not named plainly (a path outside the system folders, or computed)"
	case c.runsOthers:
		return c.program + " runs other programs or code, so a rule about it would allow anything"
	}
	// Arguments that make the program run other code (find -exec, git -c,
	// rg --pre, awk's system()) show up as code reasons that the program
	// and its subcommand words alone do not have.
	own := map[string]bool{}
	for _, r := range reduced(c).Reasons {
		if r.Category == policy.Code {
			own[stripLabel(r.Why)] = true
		}
	}
	for _, r := range v.Reasons {
		if r.Category == policy.Code && !own[stripLabel(r.Why)] {
			return "its arguments make it run other code (" + r.Why + ")"
		}
	}
	return ""
}

// stripLabel drops the "git commit: " in front of a reason, which names
// the words the reason was found at, not what it is about.
func stripLabel(why string) string {
	if i := strings.Index(why, ": "); i >= 0 {
		return why[i+2:]
	}
	return why
}

// subcommandWord says whether a leading argument reads like a subcommand
// (commit, run, install) rather than a file, an option or a value.
func subcommandWord(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// fileOperands are the programs whose every operand is a file or folder
// to create or change in place, so that a proposal names no word after
// the program. Their options change only how (a mode, -p, a time); where
// they write is in the operands, and every operand must land in the
// rule's folder. Programs that move, copy, link or overwrite are
// destructive and get no proposal at all.
var fileOperands = map[string]bool{"mkdir": true, "touch": true}

// maxWords bounds the subcommand words of a proposal: `docker compose up`
// needs two, more would name a file.
const maxWords = 2

// quote writes a word for a shell example.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func joinWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

// errRefused is the error of a proposal that is not offered.
type errRefused struct{ why string }

func (e errRefused) Error() string { return "Always allow is not offered: " + e.why }

func refused(format string, a ...any) error { return errRefused{fmt.Sprintf(format, a...)} }
