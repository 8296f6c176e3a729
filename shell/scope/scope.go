// Package scope says what one confined run may change and reach: the
// places it may write, whether it may use the network, the ssh agent or
// signal the user's other processes. It is built from the one reading of
// the command that the approval's preview already makes, shown on the
// approval in the preview's words, recorded in the audit log, and held by
// the kernel (Landlock and seccomp on Linux, Seatbelt on macOS). It is
// pure: it looks at no disk but through the Stat it is given.
package scope

import (
	"path/filepath"
	"slices"
	"strings"
)

// Scope is what one run may change and reach, as approved.
type Scope struct {
	// Write are the places the run may change: a folder with everything
	// beneath it, or a file in place. The run's $TMPDIR is always added.
	Write []string `json:"write,omitempty"`
	// Remove are folders whose empty subfolders the run may remove: the
	// parents of the folders it deletes or moves away. Nothing else in
	// them can change.
	Remove []string `json:"remove,omitempty"`
	// Keep are places beneath Write that the run may still not change:
	// Hark's own files, keys and credentials, start-up files, autostart
	// entries. A folder ends in "/", so that one that does not exist yet
	// can be made (empty) to be held.
	Keep []string `json:"keep,omitempty"`
	// Network: the run may reach other machines.
	Network bool `json:"network,omitempty"`
	// Agent: the run may use local sockets, so the ssh agent (and with it
	// the user's ssh keys), as git over ssh, ssh, scp and rsync need.
	Agent bool `json:"sshAgent,omitempty"`
	// Signals: the run may signal the user's other processes (kill).
	Signals bool `json:"signals,omitempty"`
	// Broad names the home folder or system root that Write includes as a
	// whole, because Hark could not narrow the command's writes below it;
	// "" when there is none. The card says so in its first line.
	Broad string `json:"broad,omitempty"`
	// BroadNamed: Broad is there for what the command names directly in
	// it (a file it makes in home), not because Hark could not tell what
	// it writes.
	BroadNamed bool `json:"broadNamed,omitempty"`
	// NoRemove are places of Write in which the run may make and write
	// files but remove or rename nothing: a home folder or system root
	// that Hark had to grant because it could not tell what the command
	// writes. No run may empty them, however its command is spelt; a
	// deletion the card names is granted by its own place.
	NoRemove []string `json:"noRemove,omitempty"`
	// ReposCut: the search for the repositories in Broad, whose hooks and
	// settings are kept, stopped before it had looked everywhere (see
	// reposUnder). The card says so.
	ReposCut bool `json:"reposCut,omitempty"`
	// Why says, for places the program rows added, what they are for.
	Why map[string]string `json:"why,omitempty"`
}

// Empty says the run may change nothing but its $TMPDIR and reach nothing:
// the read-only sandbox.
func (s Scope) Empty() bool {
	return len(s.Write) == 0 && len(s.Remove) == 0 && !s.Network && !s.Agent && !s.Signals
}

// Lines are the scope as every approval shows it: first, when the scope
// is a whole home folder or system root, a warning in plain words; then
// "May change: …" and what else the run may use. Paths under home are
// written with ~.
func (s Scope) Lines(home string) []string {
	var out []string
	if s.Broad != "" {
		keeps := slices.Contains(s.NoRemove, s.Broad)
		switch {
		case !s.BroadNamed && keeps:
			out = append(out, "⚠ May change anything in "+broadName(s.Broad, home)+", but delete nothing there (Hark cannot tell what this command writes)")
		case !s.BroadNamed:
			out = append(out, "⚠ May change anything in "+broadName(s.Broad, home)+" (Hark cannot tell what this command writes)")
		case keeps:
			out = append(out, "⚠ May make and write files anywhere in "+broadName(s.Broad, home)+", but delete nothing there (the kernel cannot hold it to what it names there)")
		default:
			out = append(out, "⚠ May change anything in "+broadName(s.Broad, home)+" (the kernel cannot hold it to what it names there)")
		}
		if s.ReposCut {
			out = append(out, "⚠ Holds too many folders to look through: the hooks of git repositories Hark did not reach there are not kept")
		}
	}
	if len(s.Write) > 0 {
		var shown []string
		for _, p := range s.Write {
			t := Tilde(p, home)
			if why := s.Why[p]; why != "" {
				t += " (" + why + ")"
			}
			shown = append(shown, t)
		}
		out = append(out, "May change: "+strings.Join(shown, ", "))
	} else {
		out = append(out, "May change: nothing outside its temporary folder")
	}
	var uses []string
	if s.Network {
		uses = append(uses, "the network")
	}
	if s.Agent {
		uses = append(uses, "your ssh key (through the ssh agent)")
	}
	if s.Signals {
		uses = append(uses, "signals to your other programs")
	}
	if len(uses) > 0 {
		out = append(out, "Uses "+strings.Join(uses, " and "))
	}
	return out
}

// Text is Lines joined, for one-line surfaces and the audit log.
func (s Scope) Text(home string) string { return strings.Join(s.Lines(home), "; ") }

func broadName(p, home string) string {
	switch {
	case home != "" && filepath.Clean(p) == filepath.Clean(home):
		return "your home folder (~)"
	case p == "/":
		return "the whole system (/)"
	}
	return p
}

// Tilde writes p under home as ~/x.
func Tilde(p, home string) string {
	h := filepath.Clean(home)
	switch {
	case home == "" || h == "/":
	case p == h:
		return "~"
	case strings.HasPrefix(p, h+"/"):
		return "~" + p[len(h):]
	}
	return p
}

// systemRoots are folders no scope may hold as a whole without the card
// saying so first: the system's own and the folder of all homes.
var systemRoots = []string{
	"/", "/System", "/Library", "/Applications", "/Users", "/Volumes", "/bin", "/sbin", "/usr", "/usr/bin",
	"/usr/sbin", "/usr/lib", "/usr/local", "/usr/share", "/etc", "/var", "/private", "/private/etc",
	"/private/var", "/opt", "/opt/homebrew", "/root", "/boot", "/lib", "/lib64", "/dev", "/proc", "/sys",
	"/srv", "/mnt", "/media", "/run", "/snap", "/home", "/tmp",
}

// IsBroad says whether p is a home folder, / or a system root: a place
// the card must name in its first line when a run may change it whole.
func IsBroad(p, home string) bool {
	p = filepath.Clean(p)
	if home != "" && p == filepath.Clean(home) {
		return true
	}
	if slices.Contains(systemRoots, p) {
		return true
	}
	d := filepath.Dir(p)
	return d == "/home" || d == "/Users"
}

// Under says whether p is dir or lies beneath it.
func Under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
