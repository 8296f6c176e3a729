// Package policy classifies shell commands into tiers (safe, confirm,
// forbidden) on their bash parse tree. Safe is an allowlist of read-only
// programs with checked arguments; every verdict that is not safe carries
// human reasons for each offending part. It imports nothing but the shell
// parser and the standard library, so it can be reviewed on its own.
package policy

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Policy classifies shell commands into tiers by walking their bash parse
// tree. Every simple command anywhere in the tree (pipelines, lists, compound
// commands, function bodies, command and process substitutions, the strings
// given to `sh -c` and `eval`) is judged on its own, and the verdict is the
// worst of its parts.
//
// The safe tier is an allowlist: a command is safe only when every part is a
// known read-only program whose arguments were checked. Nobody can enumerate
// every dangerous command, but one can enumerate the harmless ones.
//
// A Policy holds no per-call state and is safe for concurrent use.
type Policy struct {
	// noSandbox: safe verdicts for programs that run code from their
	// configuration become confirm (see Options.NoSandbox).
	noSandbox    bool
	seatbelt     bool
	repoPrograms func(dir string) string
	parsers      sync.Pool
	// home and homes are Options.Home and Options.Homes, clean.
	home  string
	homes []string
	// realHome is home with its links followed, when Options.Resolve
	// finds it elsewhere.
	realHome string
	resolve  func(string) string
	// homeParents hold home and homes: deleting one deletes every home
	// in it, as deleting /home does, wherever the system keeps them
	// (/var/home on Fedora Silverblue).
	homeParents []string
}

// Options configures a Policy. The zero value is the default policy,
// which assumes safe-tier commands run inside the read-only, no-network
// sandbox.
type Options struct {
	// NoSandbox says safe-tier commands will run without an OS sandbox.
	// The classifier then has to hold on its own, so programs that run
	// code named by their configuration or project files (git, every
	// interpreter and shell, package managers and toolchains: the table
	// entries marked runsConfig) ask even for read-only invocations, with
	// the reason "runs code from its configuration and no sandbox is
	// available".
	NoSandbox bool

	// Seatbelt says safe-tier commands run in the macOS sandbox, whose
	// profile closes the system services some read-only programs need
	// (diskutil, pmset -g, pbpaste, ifconfig …: the entries marked
	// needsMacServices). They would only fail there, so they ask, and run
	// unsandboxed once approved.
	Seatbelt bool

	// RepoPrograms, when set, is asked about the repository that a git
	// subcommand able to run drivers would use, by its directory as the
	// command would see it (the working directory given to ClassifyIn,
	// followed by a literal cd and -C; "" when unknown). It answers with
	// the configuration that names a program git would run there and the
	// sandbox's environment cannot switch off (diff.external, a textconv,
	// diff or filter driver, in the file or one it includes), or with
	// what it could not read in full, or "" for none. The policy stays
	// pure: whoever may read files supplies this.
	RepoPrograms func(dir string) string

	// Home is the home folder commands will run with ($HOME), wherever it
	// is (/home/me, /var/home/me, /Users/me, /root): a path naming it is
	// judged as ~ is. Homes are the other users' home folders (from the
	// user database), judged as ~user is. Either may be empty: ~ and the
	// usual places (/home/*, /Users/*, /root) are protected anyway.
	Home  string
	Homes []string

	// Resolve, when set, is the path an absolute path reaches once its
	// symbolic links are followed (the part that does not exist joined as
	// written). With it a home reached through a link is known by its
	// real path too, and a target through a link (h/ where h is a link
	// to home) is judged where it lands. The policy stays pure: whoever
	// may read the disk supplies it.
	Resolve func(path string) string
}

// New returns a policy configured by o; New(Options{}) is the default.
func New(o Options) *Policy {
	p := &Policy{noSandbox: o.NoSandbox, seatbelt: o.Seatbelt && !o.NoSandbox, repoPrograms: o.RepoPrograms}
	if h := filepath.Clean(o.Home); o.Home != "" && filepath.IsAbs(h) && h != "/" {
		p.home = h
	}
	for _, h := range o.Homes {
		if h = filepath.Clean(h); filepath.IsAbs(h) && h != "/" && h != p.home {
			p.homes = append(p.homes, h)
		}
	}
	if p.resolve = o.Resolve; p.resolve != nil && p.home != "" {
		if r := filepath.Clean(p.resolve(p.home)); filepath.IsAbs(r) && r != "/" && r != p.home {
			p.realHome = r
		}
	}
	for _, h := range append([]string{p.home, p.realHome}, p.homes...) {
		if d := filepath.Dir(h); h != "" && d != "/" && !slices.Contains(p.homeParents, d) {
			p.homeParents = append(p.homeParents, d)
		}
	}
	p.parsers.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)) }
	return p
}

// Classify returns the verdict for command. It is pure: it never runs or
// reads anything, and looks at nothing but the command text — in particular
// never at the purpose a model claims for it.
func (p *Policy) Classify(command string) Verdict { return p.classify(command, "", "") }

func (p *Policy) classify(command, cwd, dir string) Verdict {
	v := &verdict{tier: Safe, dir: dir}
	scanText(v, command)
	if strings.TrimSpace(command) == "" {
		v.add(Confirm, Parse, command, "empty command: there is nothing to run")
	} else {
		p.classifySource(v, command, 0, cwd)
	}
	reasons := withoutSubsumed(v.reasons, v.forbids)
	if reasons == nil {
		reasons = []Reason{}
	}
	return Verdict{Command: command, Tier: v.tier, Reasons: reasons}
}

// withoutSubsumed drops the reasons to ask that a refusal of the same part
// for the same kind of harm makes moot: `export x=~; bash -c 'rm -rf "$x"'`
// is read once not knowing $x (ask) and once knowing it (never run), and
// the list should not say both of one rm.
func withoutSubsumed(reasons, forbids []Reason) []Reason {
	if len(forbids) == 0 {
		return reasons
	}
	out := reasons[:0:0]
	for _, r := range reasons {
		moot := false
		for _, f := range forbids {
			if f != r && f.Command == r.Command && f.Category == r.Category {
				moot = true
				break
			}
		}
		if !moot || slices.Contains(forbids, r) {
			out = append(out, r)
		}
	}
	return out
}

// ClassifyIn is Classify for a command that will run in workingDirectory
// ("~", "~/src", "/", "/Users/me" …). The directory only ever makes the
// verdict stricter: `rm -rf *` run in the home directory or a system root
// is forbidden, while Classify alone cannot know where it runs and asks.
func (p *Policy) ClassifyIn(command, workingDirectory string) Verdict {
	return p.classify(command, planDir(p.homeDir(workingDirectory)), workingDirectory)
}

// homeDir spells a folder under Options.Home from ~, as the policy reads
// home.
func (p *Policy) homeDir(dir string) string {
	if p.home == "" || !filepath.IsAbs(dir) {
		return dir
	}
	d := filepath.Clean(dir)
	switch {
	case d == p.home:
		return "~"
	case strings.HasPrefix(d, p.home+"/"):
		return "~" + d[len(p.home):]
	}
	return dir
}

// homeOf maps a plan path under Options.Home or one of Options.Homes to
// the marks the floor protects (see homeMark).
func (p *Policy) homeOf(v string) string {
	for _, h := range []string{p.home, p.realHome} {
		if h != "" && (v == h || strings.HasPrefix(v, h+"/")) {
			return homeMark + v[len(h):]
		}
	}
	for _, h := range p.homes {
		if v == h || strings.HasPrefix(v, h+"/") {
			return homesMark + "/" + filepath.Base(h) + v[len(h):]
		}
	}
	return v
}

// Program resolves a command's first word the way the classifier does: a
// plain name stands for itself, a path in a standard system directory for
// its base name (/usr/bin/git is git), and anything else (./git, a path in
// a project, a name computed at run time) for no known program (ok false).
// runsOthers says the program runs programs or code it is given — a
// wrapper such as nice, env or xargs, a shell, an interpreter — so a rule
// about its name says nothing about what it will do.
func Program(word string) (name string, runsOthers, ok bool) {
	if word == "" || strings.ContainsAny(word, "$`*?[{") {
		return "", false, false
	}
	name = word
	if strings.Contains(word, "/") {
		if name, ok = systemProgram(word); !ok {
			return "", false, false
		}
	}
	r, known := programs[name]
	if !known {
		if lower := strings.ToLower(name); lower != name {
			r, known = programs[lower]
		}
	}
	if !known {
		r, known = prefixRule(name)
	}
	return name, known && r.runsOthers, true
}
