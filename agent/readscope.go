package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/shell/rules"
	"github.com/hark-sh/hark/shell/scope"
)

// What a command reads is held by the kernel, not predicted. A command
// whose output leaves Hark (another program's call, or any call while a
// cloud model may be in use) reads the folder it works in, what its scope
// may change, the settings and toolchains of scope.Reads and the system;
// the rest of home is hidden from it (readFence), and the private list is
// hidden from every such run and from every approved one. A place the
// command names itself outside those is put on its card and read only
// after a yes (readGate); a private place is never offered.

// readGate marks a call whose output leaves Hark when it names places
// under home outside what it may read, or asks a system service to read
// for it (serviceRead): a reason the card shows is added, no allow rule
// lets it by, and handleOne asks. reveal are the places a yes lets it
// read.
func (r *run) readGate(ta toolArgs, v *shell.Verdict, rd *rules.Decision) (ask bool, reveal []string) {
	r.secretNoRule = false
	if !r.outputLeaves() {
		return false, nil
	}
	to := "the program that asked"
	if r.client != "" {
		to = r.client
	} else if !r.external {
		to = "the cloud model"
	}
	var why []string
	if v.Tier == shell.Safe {
		if s := serviceRead(ta.Command, ta.WorkingDirectory, r.a.o.Home); s != "" {
			why = append(why, s)
		}
	}
	home := r.a.o.Home
	reveal = namedOutside(ta.Command, ta.WorkingDirectory, home, r.readOpen(ta.WorkingDirectory, nil), r.keepPrivate())
	if len(reveal) > 0 {
		shown := make([]string, len(reveal))
		for i, p := range reveal {
			shown[i] = scope.Tilde(p, home)
		}
		why = append(why, "reads "+strings.Join(shown, ", ")+", outside the folder it works in")
	}
	if len(why) == 0 {
		return false, nil
	}
	v.Reasons = append(v.Reasons, shell.Reason{Command: ta.Command, Why: strings.Join(why, "; ") + "; the output would go to " + to, Category: policy.Privilege})
	if rd.Kind == rules.Allow {
		*rd = rules.Decision{}
	}
	r.secretNoRule = true
	return true, reveal
}

// readOpen are the places a run in dir whose output leaves Hark may read
// under home: dir, the scope's writes, more, and scope.Reads.
func (r *run) readOpen(dir string, sc *scope.Scope, more ...string) []string {
	// The run's own temporary folder is granted by the sandbox itself.
	open := append([]string{dir}, more...)
	if sc != nil {
		open = append(open, sc.Write...)
	}
	return append(open, scope.Reads(r.a.o.Home, os.Getenv)...)
}

// hideList are the places a run may not read (shell.Request.Hide). A
// read-only call whose output stays on the machine hides nothing: the
// voice loop reads what the user asks it to. An approved run hides the
// private list, less what its scope names; a run whose output leaves
// Hark also hides the rest of home but what it may read (readOpen),
// reveal included.
func (r *run) hideList(ta toolArgs, sc *scope.Scope, reveal []string) []string {
	leaves := r.outputLeaves()
	if sc == nil && !leaves {
		return nil
	}
	var out []string
	for _, p := range r.keepPrivate() {
		if sc != nil && slices.ContainsFunc(sc.Write, func(w string) bool { return scope.Under(filepath.Clean(p), w) }) &&
			!slices.ContainsFunc(sc.Keep, func(k string) bool { return filepath.Clean(k) == filepath.Clean(p) }) {
			continue // in the scope and not kept: named by the command, and on its card
		}
		out = append(out, p)
	}
	if leaves {
		out = append(out, readFence(r.a.o.Home, r.readOpen(ta.WorkingDirectory, sc, reveal...))...)
	}
	return out
}

// namedOutside are the places under home that command, run in dir, names
// as its words stand after expansion and that lie outside open: existing
// files and folders, each once, none private (those are never offered).
// A word Hark cannot tell names nothing here: whatever it reads, the
// kernel holds it to open.
func namedOutside(command, dir, home string, open, private []string) []string {
	s, err := plan.Parse(command)
	if err != nil || home == "" {
		return nil
	}
	if dir == "" {
		dir = home
	}
	h := filepath.Clean(home)
	env := plan.Env{Home: h, Dir: dir, Vars: map[string]string{"HOME": h}, Disk: true}
	var out []string
	for _, c := range s.Calls(env) {
		for _, p := range c.Places {
			e := c.Args(env, p)
			if e.Unknown != "" || e.NoRun != "" {
				continue
			}
			for _, f := range e.Fields {
				v := f.Value
				if strings.HasPrefix(v, "-") {
					_, v, _ = strings.Cut(v, "=")
				}
				if v == "" {
					continue
				}
				if !filepath.IsAbs(v) {
					v = filepath.Join(p.Dir, v)
				}
				v = filepath.Clean(v)
				if !scope.Under(v, h) || v == h || slices.Contains(out, v) {
					continue
				}
				if _, err := os.Stat(v); err != nil {
					continue
				}
				real := realish(v)
				if slices.ContainsFunc(open, func(o string) bool { return scope.Under(real, realish(o)) || scope.Under(v, filepath.Clean(o)) }) {
					continue
				}
				if slices.ContainsFunc(private, func(q string) bool {
					q = filepath.Clean(q)
					return scope.Under(v, q) || scope.Under(real, realish(q))
				}) {
					continue
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// readFence are the places under home to hide so that a run reads only
// open there: every entry of home but those that are, or lead to, an open
// place, split on the way down. A link is left out (what it leads to is
// judged where it lies: hidden there, or outside home), and so is a
// folder that cannot be listed. Paths are compared by their real paths;
// nil when an open place holds all of home.
func readFence(home string, open []string) []string {
	h := realish(home)
	if home == "" || h == "/" {
		return nil
	}
	var real []string
	for _, o := range open {
		if !filepath.IsAbs(o) {
			continue
		}
		r := realish(o)
		if scope.Under(h, r) {
			return nil
		}
		if scope.Under(r, h) {
			real = append(real, r)
		}
	}
	var out []string
	var split func(dir string)
	split = func(dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch {
			case slices.ContainsFunc(real, func(r string) bool { return scope.Under(p, r) }):
			case e.Type()&os.ModeSymlink != 0:
			case e.IsDir() && slices.ContainsFunc(real, func(r string) bool { return scope.Under(r, p) }):
				split(p)
			default:
				out = append(out, p)
			}
		}
	}
	split(h)
	return out
}

// realish is p with its links resolved as far as it exists.
func realish(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if d := filepath.Dir(p); d != p {
		return filepath.Join(realish(d), filepath.Base(p))
	}
	return p
}
