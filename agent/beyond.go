package agent

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/scope"
)

// Going further is a second, separate decision. A run held to its scope
// that fails because the kernel refused something outside it is put to
// the user once more: "Also allow changing X (this run)" when its output
// names the places it was refused, or "Run without limits" when it names
// none. Neither is inherited from the first yes, a rule, confirmation off
// or a client's request: it is always asked, and a spoken answer cannot
// give it (the app's needsClick).

// refusalWords are what programs print when the kernel refuses them a
// file or a connection.
var refusalWords = []string{"permission denied", "operation not permitted", "read-only file system"}

// networkWords are what programs print when they cannot reach another
// machine, which a scope without the network makes them do.
var networkWords = []string{"could not resolve host", "temporary failure in name resolution", "name or service not known",
	"network is unreachable", "failed to connect", "connection refused", "could not resolve hostname"}

// pathInOutput is a path a program printed: absolute, under ~, or
// relative to the folder the command ran in (./x, ../x).
var pathInOutput = regexp.MustCompile(`(?:^|[\s'"‘“(=:])((?:/|~/|\.\.?/)[^\s'"’”():]+)`)

// beyond is what a run was refused outside its scope, as its output
// tells it: places, the network, or (unnamed) a refusal whose place the
// output does not name outside the scope.
type beyond struct {
	places  []string
	network bool
	unnamed bool
	// unremove are broad places the scope let the run make and write in
	// but not remove or rename in (Scope.NoRemove), when the refusal
	// names no place: what the kernel withheld is that right there, so
	// that alone is asked for (zip and editors write a file and rename
	// it into place).
	unremove []string
}

// refusedOutside reads a scoped run's failure for the kernel's refusals
// outside sc: the places named in lines that say "permission denied" and
// the like that lie outside every writable place, and a failed
// connection where the scope had no network. ok is false when the run
// succeeded or nothing points outside the scope.
func refusedOutside(res shell.Result, sc *scope.Scope, home string) (b beyond, ok bool) {
	if sc == nil || !res.Executed || res.Success || res.Sandbox != shell.SandboxScoped {
		return b, false
	}
	refused := false
	for _, line := range strings.Split(res.Error+"\n"+res.Output, "\n") {
		low := strings.ToLower(line)
		if !sc.Network && slices.ContainsFunc(networkWords, func(w string) bool { return strings.Contains(low, w) }) {
			b.network = true
		}
		if !slices.ContainsFunc(refusalWords, func(w string) bool { return strings.Contains(low, w) }) {
			continue
		}
		refused = true
		for _, m := range pathInOutput.FindAllStringSubmatch(line, -1) {
			p := strings.TrimRight(m[1], ".,;")
			switch {
			case strings.HasPrefix(p, "~/") && home != "":
				p = filepath.Join(home, p[2:])
			case strings.HasPrefix(p, "."):
				if !filepath.IsAbs(res.WorkingDirectory) {
					continue
				}
				p = filepath.Join(res.WorkingDirectory, p)
			}
			p = filepath.Clean(p)
			if inScope(p, sc) || slices.Contains(b.places, p) || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/") {
				continue
			}
			if _, err := os.Lstat(p); err != nil && scope.IsBroad(filepath.Dir(p), home) {
				continue // widen would grant all of home or a system root for a name the card shows alone
			}
			b.places = append(b.places, p)
		}
		if len(b.places) == 0 && strings.Contains(low, "connect") && !sc.Network {
			b.network = true
		}
	}
	b.unnamed = refused && len(b.places) == 0 && !b.network
	if b.unnamed && len(sc.NoRemove) > 0 {
		b.unremove, b.unnamed = sc.NoRemove, false
	}
	return b, len(b.places) > 0 || b.network || b.unnamed || len(b.unremove) > 0
}

// inScope says whether p lies in a writable place of sc and is not kept.
func inScope(p string, sc *scope.Scope) bool {
	for _, k := range sc.Keep {
		if scope.Under(p, filepath.Clean(k)) {
			return false
		}
	}
	for _, w := range sc.Write {
		if scope.Under(p, w) {
			return true
		}
	}
	return false
}

// widen is sc with what b names added, for this run only: each place
// refused, or its folder where it does not exist (it was to be made).
func (b beyond) widen(sc *scope.Scope) *scope.Scope {
	w := *sc
	w.Write = slices.Clone(sc.Write)
	w.Why = nil
	for _, p := range b.places {
		if _, err := os.Lstat(p); err != nil {
			p = filepath.Dir(p) // to be made there
		}
		w.Write = append(w.Write, p)
		// Only what holds p itself: the kept places inside a refused
		// folder (start-up files, Hark's own, hooks) stay kept, as the
		// card names the folder, not them.
		w.Keep = slices.DeleteFunc(slices.Clone(w.Keep), func(k string) bool { return scope.Under(p, filepath.Clean(k)) })
	}
	w.Network = w.Network || b.network
	if len(b.unremove) > 0 {
		w.NoRemove = slices.DeleteFunc(slices.Clone(sc.NoRemove), func(p string) bool { return slices.Contains(b.unremove, p) })
	}
	return &w
}

// words is what the refusal named, for the card.
func (b beyond) words(home string) string {
	var parts []string
	for _, p := range b.places {
		parts = append(parts, "changing "+scope.Tilde(p, home))
	}
	for _, p := range b.unremove {
		parts = append(parts, "removing and renaming files in "+scope.Tilde(p, home))
	}
	if b.network {
		parts = append(parts, "the network")
	}
	return strings.Join(parts, " and ")
}

// goFurther asks the second question after a run the kernel stopped at
// the edge of its scope, and runs the command again as the answer allows.
// f holds the first run; on a yes it holds the second. The first run is
// audited here, the second by the caller.
func (r *run) goFurther(ctx context.Context, call *Call, ta toolArgs, v shell.Verdict, reveal []string, f *callFate) {
	b, ok := refusedOutside(f.res, f.scope, r.a.o.Home)
	if !ok || r.confirmer == nil {
		return
	}
	home := r.a.o.Home
	p := Pending{
		ID: call.ID + "-further", ConversationID: r.c.ID, Command: call.Command, WorkingDirectory: call.WorkingDirectory,
		Purpose: call.Purpose, Tier: call.Tier, Reasons: call.Reasons, Client: r.client, Preview: shownPreview(f.preview),
		NoProposal: "Always allow is not offered: going beyond what was approved is asked each time",
	}
	runAs := r.a.o.Sandbox
	if b.unnamed {
		p.Unlimited = true
		p.Further = "It was refused something outside what you approved, and Hark cannot tell what."
		runAs = shell.SandboxOff
	} else {
		p.Scope = b.widen(f.scope)
		p.Further = "It was stopped at the edge of what you approved. Also allow " + b.words(home) + " (this run)?"
	}
	decision, by, d, _ := r.confirm(ctx, p)
	if decision != DecisionApproved {
		what := "something outside what the user approved was refused"
		if !b.unnamed {
			what = b.words(home) + " was refused"
		}
		f.res.Error = appendLine(f.res.Error, "hark: the command was stopped at the edge of what the user approved ("+what+"), and the user did not allow more. Do not retry it; say what it needed.")
		return
	}
	r.audit(ctx, ta, v, f) // the first run, as it ended
	f.decision, f.by, f.heardAnswer = DecisionWidened, by, d.Heard
	if p.Unlimited {
		f.decision = DecisionUnlimited
	}
	f.scope = p.Scope
	f.res = r.executeAs(ctx, call, ta, v, reveal, f.scope, runAs)
}

func appendLine(text, line string) string {
	if text == "" || strings.HasSuffix(text, "\n") {
		return text + line
	}
	return text + "\n" + line
}

// stillAsShown reads the command again right after the yes, as the card
// read it: if what it would touch changed meanwhile (a file a glob now
// takes, a link where a folder was), the yes was to another card, so the
// new one is put to the user instead, once; a second change, or a no,
// leaves the command not run. It reports whether the answer in f (and p)
// still stands, updating them to the new card's when it was approved.
func (r *run) stillAsShown(ctx context.Context, call *Call, ta toolArgs, v shell.Verdict, p *Pending, f *callFate) bool {
	if f.preview == nil || r.a.o.Previewer == nil {
		return true
	}
	for round := 0; ; round++ {
		again := r.a.o.Previewer.Preview(ctx, ta.Command, ta.WorkingDirectory)
		if samePreview(f.preview, again) {
			return true
		}
		if round == 1 {
			f.decision, f.by = DecisionDenied, ByPolicy
			f.res = notRun(ta, v, "Not run: what the command would touch changed while the user decided, twice; nothing ran. Ask again only if the user still wants it.")
			return false
		}
		f.preview = again
		p.Preview = shownPreview(again)
		p.ID = call.ID + "-changed"
		p.Further = "What it would touch changed while you decided; this is the card as things are now."
		if v.Tier != shell.Safe {
			f.scope = r.scopeOf(ta, v, again)
			p.Scope = f.scope
		}
		var d Decision
		f.decision, f.by, d, _ = r.confirm(ctx, *p)
		f.heardAnswer = d.Heard
		if f.decision != DecisionApproved {
			f.res = notRun(ta, v, "Not run: what the command would touch changed while the user decided, and the user did not approve the new card.")
			return false
		}
	}
}

// samePreview says whether two readings of a command show the same: the
// same summary, lines and places.
func samePreview(a, b *preview.Preview) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Summary == b.Summary && slices.Equal(a.Lines, b.Lines) && slices.Equal(a.Changes, b.Changes)
}
