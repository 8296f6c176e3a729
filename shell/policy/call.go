package policy

import (
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"mvdan.cc/sh/v3/syntax"
)

// call classifies a simple command: its assignments, the commands hidden in
// its words, and the program it runs.
func (c *classifier) call(x *syntax.CallExpr) {
	text := c.text(x)
	for _, a := range x.Assigns {
		// NAME=value before a program is in that program's environment.
		c.assign(a, text, len(x.Args) > 0)
	}
	for _, w := range x.Args {
		c.nested(w)
	}
	if len(x.Args) == 0 {
		return
	}
	c.cwd = c.callDirs(x)
	args, overflow := c.wordsWithin(x)
	if overflow {
		c.add(Forbidden, Code, text, "a brace expansion too large to check (more than 10,000 words): Hark does not run words it cannot read")
		return
	}
	c.opaque = c.cannotTell(x)
	c.run(text, "", args, false)
	c.opaque = false
	c.seeThrough(x, text, args)
}

// cannotTell says whether plan cannot tell x's words in some state the
// shell may be in.
func (c *classifier) cannotTell(x *syntax.CallExpr) bool {
	if len(c.places[x]) == 0 {
		return true
	}
	for _, p := range c.places[x] {
		if p.Unknown != "" {
			return true
		}
		env := planEnv
		env.Dir = p.Dir
		if ex := env.Expand(p, x.Args); ex.Unknown != "" {
			return true
		}
	}
	return false
}

// seeThrough judges the command again on its words as plan expands them
// in each state the shell may be in (variables the line set, ${x:-…} and
// the other operators, arrays, loop items, $PWD and $OLDPWD, the home
// folder however spelt), and once more with every variable it cannot tell
// taken as unset. Only the refusals of those runs count: the words as
// written decided everything else, so what plan follows can make a verdict
// stricter, never milder.
func (c *classifier) seeThrough(x *syntax.CallExpr, text string, args []arg) {
	envs := []plan.Env{planEnv}
	if c.p.home != "" {
		// $HOME by its real path as well: ${HOME:0:5} is /var/ when
		// home is /var/home/me, which no cut of the symbolic mark says.
		real := planEnv
		real.Home = c.p.home
		envs = append(envs, real)
	}
	// One refusal is enough: the later readings would name the same
	// folder again under another spelling (~/.. and /var/home).
	n := len(c.v.forbids)
	for _, unset := range []bool{false, true} {
		for _, env := range envs {
			env.Unset = unset
			c.seeThroughIn(x, text, args, env)
			if len(c.v.forbids) > n {
				return
			}
		}
	}
}

// seeThroughIn is one run of seeThrough, with env's reading of $HOME and
// of variables it cannot tell.
func (c *classifier) seeThroughIn(x *syntax.CallExpr, text string, args []arg, env plan.Env) {
	for _, p := range c.places[x] {
		if p.Unknown != "" {
			continue
		}
		// With no cd before it (none set OLDPWD), the line started here.
		env.Dir = p.Dir
		ex := env.Expand(p, x.Args)
		if ex.Unknown != "" || ex.NoRun != "" || len(ex.Fields) == 0 {
			continue
		}
		alt := make([]arg, len(ex.Fields))
		for i, f := range ex.Fields {
			alt[i] = fromPlan(c.p.homeOf(f.Value))
			alt[i].glob = f.Pattern
		}
		exports := env.Exports(p, x.Assigns)
		if sameArgs(alt, args) && exports == nil {
			continue
		}
		note := ""
		if env.Unset {
			note = " (when a variable it uses is unset or empty)"
		}
		saved := c.exports
		c.exports = exports
		c.floorOnly(text, alt, p.Dir, note)
		c.exports = saved
	}
}

func sameArgs(a, b []arg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].val != b[i].val || a[i].plain() != b[i].plain() {
			return false
		}
	}
	return true
}

// floorOnly runs the program's check on args in the plan folder dir and
// keeps only what it refuses.
func (c *classifier) floorOnly(text string, args []arg, dir, note string) {
	saved, savedCwd := c.v, c.cwd
	scratch := &verdict{tier: Safe, dir: saved.dir, texts: saved.texts}
	c.v, c.cwd = scratch, dir
	c.run(text, "", args, false)
	c.v, c.cwd = saved, savedCwd
	for _, r := range scratch.forbids {
		c.add(Forbidden, r.Category, r.Command, r.Why+note)
	}
}

// run classifies the program args[0] with its arguments. prefix labels the
// wrappers it runs under ("xargs ", "find -exec "); extra says arguments are
// appended at run time, so the visible ones are not the whole story.
func (c *classifier) run(text, prefix string, args []arg, extra bool) {
	if len(args) == 0 {
		return
	}
	name := args[0]
	if name.expanded || name.glob || name.brace {
		c.add(Confirm, Code, text, prefix+name.val+": the program name is computed at run time")
		return
	}
	prog := name.val
	if strings.Contains(prog, "/") {
		base, ok := systemProgram(prog)
		if !ok {
			c.add(Confirm, Code, text, prefix+prog+": runs a program outside the system directories")
			return
		}
		prog = base
	}
	in := &invocation{c: c, text: text, label: prefix + prog, name: prog, args: args[1:], extra: extra}
	for _, a := range in.args {
		if a.escapedOp && !(prog == "find" && a.val == ";" && findRunsCommands(in.args)) {
			in.confirmAs(Parse, "", "an escaped ; & or | is passed as an argument, which reads like a second command")
			break
		}
	}
	if c.funcs[prog] {
		return // a function declared in this command: its body was classified where declared
	}
	r, ok := programs[prog]
	if ok && extra && !r.anyArgs {
		// xargs and find -exec {} + append words nobody has seen: a wrapper
		// given them runs whatever they name, and a checked program can
		// be handed the very option its check refuses. Only programs that
		// are read-only whatever their arguments, and wrappers (which pass
		// the unknown words on to what they run), stay safe.
		n := len(c.v.reasons)
		c.judge(r, in)
		if len(c.v.reasons) == n {
			in.confirm("its arguments arrive at run time, so they cannot be checked")
		}
		return
	}
	if !ok {
		// macOS file systems ignore case, so `RM x` runs rm there. Judge the
		// lower-case program, but never let the spelling make it safe.
		if lower := strings.ToLower(prog); lower != prog {
			if r, ok = programs[lower]; ok {
				in.name = lower
				c.judge(r, in)
				in.confirmAs(Unknown, "", "not a known read-only program (spelled in capitals)")
				return
			}
		}
		if r, ok := prefixRule(prog); ok {
			c.judge(r, in)
			return
		}
		in.confirmAs(Unknown, "", "not a known read-only program")
		return
	}
	c.judge(r, in)
}

// systemProgram maps a path in a standard system directory to the program's
// base name; anything else could be any program.
func systemProgram(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	p = cleanPath(p)
	i := strings.LastIndexByte(p, '/')
	dir, base := p[:i], p[i+1:]
	if base == "" {
		return "", false
	}
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin", "/usr/libexec", "/opt/local/bin", "/opt/local/sbin", "/snap/bin":
		return base, true
	}
	return "", false
}

// invocation is one program run with its arguments, as the program tables see it.
type invocation struct {
	c     *classifier
	text  string // the simple command's source text, for Reason.Command
	label string // how reasons name the program, e.g. "rm" or "xargs rm"
	name  string
	args  []arg    // after the program name
	extra bool     // more arguments are appended at run time (xargs, find -exec)
	cat   Category // the program's category, for its reasons
}

func (in *invocation) confirm(why string) { in.c.add(Confirm, in.cat, in.text, in.label+": "+why) }

func (in *invocation) forbid(why string) { in.c.add(Forbidden, in.cat, in.text, in.label+": "+why) }

// confirmAs and forbidAs are for reasons of another category than the
// program's own, e.g. a package manager's verb that uses the network.
func (in *invocation) confirmAs(cat Category, opt, why string) {
	in.c.add(Confirm, cat, in.text, strings.TrimSuffix(in.label+" "+opt, " ")+": "+why)
}

func (in *invocation) forbidAs(cat Category, opt, why string) {
	in.c.add(Forbidden, cat, in.text, strings.TrimSuffix(in.label+" "+opt, " ")+": "+why)
}

// confirmOpt and forbidOpt name the option or verb responsible, e.g.
// "sed -i: edits files in place".
func (in *invocation) confirmOpt(opt, why string) {
	in.c.add(Confirm, in.cat, in.text, in.label+" "+opt+": "+why)
}

func (in *invocation) forbidOpt(opt, why string) {
	in.c.add(Forbidden, in.cat, in.text, in.label+" "+opt+": "+why)
}

// runs classifies the command a wrapper runs.
func (in *invocation) runs(args []arg, extra bool) {
	in.c.run(in.text, in.label+" ", args, extra || in.extra)
}

// sourceChild classifies the script of a shell the program starts, whose
// positional parameters are args ($0 first, nil when not known).
func (in *invocation) sourceChild(code string, args []string) {
	in.c.p.classifyChild(in.c.v, code, in.c.depth+1, in.c.cwd, child{args: args, exports: in.c.exports})
}

// source classifies a string the program runs as shell code.
func (in *invocation) source(code string) {
	in.c.p.classifySource(in.c.v, code, in.c.depth+1, in.c.cwd)
}

// noSandboxReason is the reason a read-only invocation asks under
// Options.NoSandbox.
const noSandboxReason = "runs code from its configuration and no sandbox is available"

// seatbeltReason is the reason a read-only invocation asks under
// Options.Seatbelt.
const seatbeltReason = "needs macOS services that the sandbox keeps closed, so it runs only after you approve"

// judge runs a program's check and, without a sandbox, turns a safe
// verdict on a program that runs code from its configuration into confirm.
func (c *classifier) judge(r rule, in *invocation) {
	in.cat = r.category
	n := len(c.v.reasons)
	if r.check != nil {
		r.check(in)
	}
	if c.p.noSandbox && len(c.v.reasons) == n && r.config {
		in.confirmAs(Code, "", noSandboxReason)
	}
	if c.p.seatbelt && len(c.v.reasons) == n && r.macServices {
		in.confirmAs(System, "", seatbeltReason)
	}
}
