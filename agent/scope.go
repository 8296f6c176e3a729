package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/scope"
)

// previewRead are the programs whose every write the preview reads from
// their arguments: a command made only of these (and of redirections) is
// scoped to exactly the places the preview names.
var previewRead = map[string]bool{
	"rm": true, "unlink": true, "rmdir": true, "shred": true, "mv": true, "cp": true, "chmod": true,
	"chown": true, "chgrp": true, "truncate": true, "tee": true, "dd": true, "ln": true, "sed": true,
	"mkdir": true, "touch": true, "tar": true, "zip": true, "unzip": true, "gzip": true, "gunzip": true,
}

// plainWrappers run their arguments as a command unchanged.
var plainWrappers = map[string]bool{"env": true, "nice": true, "nohup": true, "command": true, "time": true, "exec": true}

// programOf is the program a reason's part runs and its arguments as
// written, past assignments and plain wrappers; nil for a redirection.
func programOf(part string) []string {
	f := strings.Fields(part)
	for len(f) > 0 && (strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "=") || plainWrappers[f[0]] || strings.HasPrefix(f[0], "-")) {
		f = f[1:]
	}
	if len(f) == 0 {
		return nil
	}
	if op := strings.TrimLeft(f[0], "0123456789&"); strings.HasPrefix(op, ">") || strings.HasPrefix(op, "<") {
		return nil
	}
	out := []string{filepath.Base(strings.Trim(f[0], `'"`))}
	for _, a := range f[1:] {
		out = append(out, strings.Trim(a, `'"`))
	}
	return out
}

// scopeOf is what a call that is not read-only may change and reach once
// it runs: the places its preview names; the folder it runs in, where the
// preview cannot tell everything it writes; what the programs it runs
// always need (package scope's rows); never the private places nor Hark's
// own files unless the command names them.
func (r *run) scopeOf(ta toolArgs, v shell.Verdict, p *preview.Preview) *scope.Scope {
	dir := ta.WorkingDirectory
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	in := scope.Input{Dir: dir, Home: r.a.o.Home, Env: os.Getenv, Own: r.keepPrivate(), NoMounts: !shell.KeepsInside()}
	known := p != nil && p.Sure
	for _, rs := range v.Reasons {
		if rs.Category == policy.Network {
			in.Network = true
		}
		prog := programOf(rs.Command)
		if prog == nil {
			continue // a redirection: the preview reads its file
		}
		in.Programs = append(in.Programs, prog)
		known = known && previewRead[prog[0]]
	}
	if p != nil {
		in.Changes = p.Changes
	}
	in.Known = known
	sc := scope.Build(in)
	return &sc
}

// keepPrivate are the places no run may change unless its command names
// them: the private list (keys, credentials, history, Hark's own files)
// and the caller's own private folders (CallRequest.PrivateDirs). None
// ends in "/": one that does not exist is not made to be held (that would
// litter home with a folder per program), and the result says if a run
// made it.
func (r *run) keepPrivate() []string {
	out := PrivateLocations(r.a.o.Home)
	for _, p := range r.private {
		if !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// shownPreview is p as an approval and the audit log show it: nil for a
// preview that only carries the places a scope needs (preview.Quiet).
func shownPreview(p *preview.Preview) *preview.Preview {
	if p != nil && p.Status == preview.Quiet {
		return nil
	}
	return p
}
