package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hark-sh/hark/shell/scope"
)

// seatbeltProfile is the macOS sandbox (Seatbelt) profile for commands that
// should only read. Wrap on macOS (sandbox_darwin.go) hands it to
// /usr/bin/sandbox-exec with -D TMPDIR=<the run's private temporary folder,
// symbolic links resolved, since Seatbelt matches real paths>.
//
// It refuses everything by default and then allows, one rule at a time,
// what read-only programs need, each with the reason beside it: reading any
// file the user can, writing only into TMPDIR, /dev/null and the command's
// own standard output and error, starting other programs (which inherit the
// profile), signalling only processes of the same run, and reading kernel,
// I/O Kit and preference state. There is no network
// at all, and only the few system services named in the profile can be
// reached. Services act outside the sandbox on the caller's behalf, so each
// one is a door out, and the list stays as short as the read-only programs on
// the safe list allow; a program that needs another service fails inside the
// sandbox, and the sandbox check in docs/macos.md says how a Mac owner finds
// and reports it.
//
// ps and top are setuid root on macOS, and the kernel will not start a setuid
// program inside a sandbox. They only print the process table whatever their
// arguments, so the profile lets exactly those two paths run unconfined.
//
// The profile lives in a file without build constraints so that its text is
// golden-tested and its structure checked (seatbelt_test.go) on every OS;
// it can only run on macOS, where package shell's sandbox_darwin_test.go
// checks it for real, through the Runner, when asked to.
const seatbeltProfile = `(version 1)
; Hark: the read-only, no-network sandbox for commands that should only read.
; Everything is refused unless a rule below allows it.
(deny default)

; Pipelines, xargs and git start other programs. They inherit this profile,
; so starting them is no way out of it.
(allow process-fork)
(allow process-exec)

; ps and top are setuid root, and a sandboxed process may not start a setuid
; program at all. Both only print the process table whatever their arguments
; (their input is /dev/null, so top takes no interactive commands), and
; setuid programs ignore DYLD_* variables, so nothing can be injected into
; them. These exact paths, and no others, run outside the sandbox.
(allow process-exec (literal "/bin/ps") (with no-sandbox))
(allow process-exec (literal "/usr/bin/top") (with no-sandbox))

; A read-only command may read whatever the user can read, as in a terminal.
(allow file-read*)
; Except what is typed in the user's terminals, the one hark exec runs in
; (/dev/tty), the others and the console: their devices belong to the user,
; and reading one races its shell for the keystrokes, sudo passwords
; included. Later rules override earlier ones. Listing /dev and stat still
; work. Writing them is refused by default: no rule below allows it.
(deny file-read-data (regex #"^/dev/(tty|ttys[0-9]+|tty[p-w][0-9a-f]|pty[p-w][0-9a-f]|ptmx|console|cu\..*|tty\..*)$"))

; The run's private temporary folder is the only place a command may create,
; change or delete files; zsh's here-documents go there too (TMPPREFIX).
(allow file-write* (subpath (param "TMPDIR")))
; "2>/dev/null" opens /dev/null for writing. Only its data, which it
; discards: the node itself cannot be removed or changed.
(allow file-write-data (literal "/dev/null"))
; ">/dev/stdout" and ">/dev/stderr", which the policy allows, reach these
; through their symbolic links; they are Hark's own output pipes.
(allow file-write-data (literal "/dev/fd/1") (literal "/dev/fd/2"))

; Signals reach only processes of this run: timeout, kill %1 and job control
; work, the user's other processes are out of reach.
(allow signal (target same-sandbox))

; A process may inspect itself and its fellows in every way. Of other
; processes it may only list them and read their state and open files:
; pgrep, lsof and pstree would otherwise see an empty process table and say,
; wrongly, that nothing runs; ps, outside the sandbox, shows all this anyway.
(allow process-info* (target same-sandbox))
(allow process-info-listpids process-info-pidinfo process-info-pidfdinfo)

; Kernel state, read only: sysctl, uname, hostname, pgrep, netstat, vm_stat.
(allow sysctl-read)
; Except other processes' arguments and environment (KERN_PROCARGS2), where
; secrets the runner keeps out of commands live; pgrep -f loses its matches.
(deny sysctl-read (sysctl-name-prefix "kern.procargs"))

; I/O Kit registry properties, read only: ioreg, system_profiler, iostat.
(allow iokit-get-properties)

; Preferences may be read (defaults read, and every CoreFoundation program
; reading its settings). Writing them is not allowed, and cfprefsd refuses a
; write from a process that may neither write preferences nor the file.
(allow user-preference-read)

; The system services that read-only programs on the safe list need.
(allow mach-lookup
    ; user and group names (getpwuid, getgrgid): ls -l, id, whoami, stat,
    ; find -user, and zsh itself
    (global-name "com.apple.system.opendirectoryd.libinfo")
    ; group membership: id, groups
    (global-name "com.apple.system.opendirectoryd.membership")
    ; preferences of all users and of the system, read only as above:
    ; defaults read, CoreFoundation programs
    (global-name "com.apple.cfprefsd.daemon")
    ; the user's own preferences, read only as above: defaults read
    (global-name "com.apple.cfprefsd.agent")
    ; Spotlight queries: mdfind, mdls
    (global-name "com.apple.metadata.mds")
    ; the resolver configuration, read only: scutil --dns (name lookups
    ; themselves go to mDNSResponder over a socket, which stays closed)
    (global-name "com.apple.SystemConfiguration.DNSConfiguration")
    ; the process table service, which only answers queries: pgrep and
    ; pkill ask it on macOS 26 (pkill's signals stay limited to this run)
    (global-name "com.apple.sysmond"))
`

// seatbeltHiding is what follows seatbeltProfile for a run with Spec.Hide:
// one rule per hidden path, refusing every read at or below it, data and
// metadata alike. The paths are the parameters HIDE0, HIDE1, … (real
// paths, as Seatbelt matches them), so no path is ever quoted into the
// profile's text. Later rules override earlier ones, so these win over the
// general (allow file-read*).
func seatbeltHiding(n int) string {
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n; Run on behalf of another program: the user's keys, credentials and\n; history below these paths may not be read at all.\n")
	for i := range n {
		fmt.Fprintf(&b, "(deny file-read* (subpath (param \"HIDE%d\")))\n", i)
	}
	return b.String()
}

// seatbeltScope is what follows for an approved run with a scope: each
// place of Write (WRITEn) may be written, with everything beneath it, and
// removed; each place of Keep (KEEPn) may not, whatever allowed it before
// (later rules win); the network, and with it the ssh agent's socket, only
// when granted; signals to the user's other processes only when granted.
// Seatbelt checks a removal on the path removed, so Remove needs no rule.
func seatbeltScope(write, keep, noRemove, unlink int, network, signals bool) string {
	if write == 0 && keep == 0 && !network && !signals {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n; An approved run: the places its approval named, and nothing else.\n")
	for i := range write {
		fmt.Fprintf(&b, "(allow file-write* (subpath (param \"WRITE%d\")))\n", i)
	}
	if noRemove > 0 {
		b.WriteString("; Granted because Hark could not tell what the command writes: nothing in it is removed,\n; but in the places inside it that the approval names for a deletion.\n")
	}
	for i := range noRemove {
		fmt.Fprintf(&b, "(deny file-write-unlink (subpath (param \"NOREMOVE%d\")))\n", i)
	}
	for i := range unlink {
		fmt.Fprintf(&b, "(allow file-write-unlink (subpath (param \"UNLINK%d\")))\n", i)
	}
	for i := range keep {
		fmt.Fprintf(&b, "(deny file-write* (subpath (param \"KEEP%d\")))\n", i)
	}
	if network {
		b.WriteString("; The approval grants the network (and the ssh agent's socket).\n(allow network*)\n")
	}
	if signals {
		b.WriteString("; The approval grants signals to the user's other processes (kill).\n(allow signal)\n")
	}
	return b.String()
}

const sandboxExec = "/usr/bin/sandbox-exec"

// SeatbeltArgs are sandbox-exec's arguments before the command for a
// read-only run: the profile, TMPDIR, and one HIDEn parameter for each
// path of hide that exists, by its real path (see seatbeltHiding). It is
// plain Go on every system, so the list of hidden paths can be checked
// where macOS does not run.
//
// sc, when set, is an approved run's scope (see seatbeltScope): its places
// by their real paths as WRITEn and KEEPn.
func SeatbeltArgs(tmpDir string, hide []string, sc *scope.Scope) []string {
	var params []string
	n := 0
	for _, p := range hide {
		if !filepath.IsAbs(p) {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			params = append(params, "-D", "HIDE"+strconv.Itoa(n)+"="+real)
			n++
		}
	}
	profile := seatbeltProfile + seatbeltHiding(n)
	if sc != nil {
		var w, k int
		for _, p := range sc.Write {
			if filepath.IsAbs(p) {
				params = append(params, "-D", "WRITE"+strconv.Itoa(w)+"="+realish(p))
				w++
			}
		}
		for _, p := range sc.Keep {
			if filepath.IsAbs(p) {
				params = append(params, "-D", "KEEP"+strconv.Itoa(k)+"="+realish(p))
				k++
			}
		}
		var nr, u int
		for _, p := range sc.NoRemove {
			params = append(params, "-D", "NOREMOVE"+strconv.Itoa(nr)+"="+realish(p))
			nr++
		}
		for _, p := range sc.Write {
			if filepath.IsAbs(p) && slices.ContainsFunc(sc.NoRemove, func(n string) bool { return n != p && scope.Under(p, n) }) {
				params = append(params, "-D", "UNLINK"+strconv.Itoa(u)+"="+realish(p))
				u++
			}
		}
		profile += seatbeltScope(w, k, nr, u, sc.Network || sc.Agent, sc.Signals)
	}
	a := []string{sandboxExec, "-p", profile, "-D", "TMPDIR=" + tmpDir}
	return append(a, params...)
}

// realish is p with the links of the part of it that exists resolved:
// Seatbelt matches real paths, and a place that does not exist yet is
// matched where it would be made.
func realish(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for d := p; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest)
		}
		if d == "/" || d == "." {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
