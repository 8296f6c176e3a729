package scope

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Change is one place the preview says a command changes.
type Change struct {
	Path   string `json:"path"`             // absolute
	Dir    bool   `json:"dir,omitempty"`    // an existing folder, changed with what it holds
	Exists bool   `json:"exists,omitempty"` // false: the command creates it
	Remove bool   `json:"remove,omitempty"` // deleted or moved away
}

// Input is what a scope is built from: the one reading of the command.
type Input struct {
	Dir  string // the folder the command runs in
	Home string
	// Changes are the places the preview names; Known says they are all
	// the command writes: every part that writes is one the preview
	// reads. Otherwise the folder the command runs in is in the scope.
	Changes []Change
	Known   bool
	// Programs are the programs the line runs, with their first argument
	// (git's subcommand), as the policy's reasons name them.
	Programs [][]string
	// Network says the policy found a part that reaches another machine.
	Network bool
	// Env looks up the command's environment (CARGO_HOME, GOCACHE …);
	// nil reads none.
	Env func(string) string
	// Own are places no run may change unless the command names them:
	// Hark's files and the user's keys and credentials.
	Own []string
	// Stat tells whether a path is a folder (for a repository's .git);
	// nil uses the disk.
	Stat func(string) (dir, ok bool)
	// NoMounts says the kernel cannot hold a place inside a writable
	// folder by a mount here (a user other than root where user
	// namespaces are refused): a repository's hooks and settings are then
	// not kept, since keeping them otherwise closes all of .git to git.
	NoMounts bool
}

// Build is the scope of one approved run.
func Build(in Input) Scope {
	if in.Stat == nil {
		in.Stat = func(p string) (bool, bool) {
			fi, err := os.Stat(p)
			return err == nil && fi.IsDir(), err == nil
		}
	}
	if in.Env == nil {
		in.Env = func(string) string { return "" }
	}
	var s Scope
	named := map[string]bool{}
	// Broad folders a named change makes something directly in, and
	// those it removes or replaces something directly in.
	makes, removes := map[string]bool{}, map[string]bool{}
	add := func(p, why string) {
		p = filepath.Clean(p)
		if p == "" || p == "." || slices.Contains(s.Write, p) {
			return
		}
		s.Write = append(s.Write, p)
		if why != "" {
			if s.Why == nil {
				s.Why = map[string]string{}
			}
			s.Why[p] = why
		}
	}
	for _, c := range in.Changes {
		p := filepath.Clean(c.Path)
		if !filepath.IsAbs(p) {
			continue
		}
		named[p] = true
		parent := filepath.Dir(p)
		switch {
		case c.Remove && IsBroad(p, in.Home):
			// Never granted: no scope lets a run remove or replace /, a
			// home folder or a system root, however the command spelled it.
		case c.Dir:
			add(p, "")
			if c.Remove && !slices.Contains(s.Remove, parent) {
				s.Remove = append(s.Remove, parent)
			}
		case c.Exists && !c.Remove && IsBroad(parent, in.Home):
			// Written in place, in a folder too large to open: the file
			// alone. Replacing it by a new file (sed -i) is refused.
			add(p, "")
		default:
			// Created, removed, renamed or replaced: its folder's entries;
			// for mkdir -p, the nearest folder that exists.
			for !c.Exists && parent != "/" {
				if _, ok := in.Stat(parent); ok {
					break
				}
				parent = filepath.Dir(parent)
			}
			add(parent, "")
			if IsBroad(parent, in.Home) {
				// Made directly in a home folder or system root: the
				// kernel can only open the whole folder, so it may make
				// and write there but remove nothing, unless the card
				// names a removal there too.
				if c.Remove || c.Exists {
					removes[filepath.Clean(parent)] = true
				} else {
					makes[filepath.Clean(parent)] = true
				}
			}
		}
	}
	for p := range makes {
		if !removes[p] {
			s.NoRemove = append(s.NoRemove, p)
		}
	}
	slices.Sort(s.NoRemove)
	fallback := ""
	if !in.Known || len(in.Changes) == 0 && len(in.Programs) == 0 {
		add(in.Dir, "")
		if IsBroad(in.Dir, in.Home) {
			fallback = filepath.Clean(in.Dir)
			if !removes[fallback] && !slices.Contains(s.NoRemove, fallback) {
				s.NoRemove = append(s.NoRemove, fallback)
			}
		}
	}
	s.Network = in.Network
	for _, prog := range in.Programs {
		if len(prog) == 0 {
			continue
		}
		r, ok := rows[filepath.Base(prog[0])]
		if !ok {
			continue
		}
		for _, pl := range r.places(in, prog) {
			add(pl.path, pl.why)
			if pl.named {
				named[filepath.Clean(pl.path)] = true
			}
		}
		s.Network = s.Network || r.network(prog)
		s.Agent = s.Agent || r.agent(prog)
		s.Signals = s.Signals || r.signals
	}
	// A place inside another one adds nothing the card should list twice,
	// unless the other may not remove anything: then it is granted apart.
	all := slices.Clone(s.Write)
	s.Write = slices.DeleteFunc(s.Write, func(p string) bool {
		return slices.ContainsFunc(all, func(w string) bool { return w != p && Under(p, w) && !slices.Contains(s.NoRemove, w) })
	})
	for _, p := range s.Write {
		// A program's own place (Homebrew's prefix) is named on the card
		// with what it is for: no warning that Hark could not tell.
		if _, row := s.Why[p]; IsBroad(p, in.Home) && s.Broad == "" && !row {
			s.Broad, s.BroadNamed = p, p != fallback
		}
	}
	if g := gitDir(in.Dir, in.Stat); g != "" {
		for _, prog := range in.Programs {
			if len(prog) > 1 && filepath.Base(prog[0]) == "git" && slices.Contains(gitSettings, prog[1]) {
				named[filepath.Join(g, "config")] = true // the card's git command writes them
			}
		}
	}
	s.Keep = keep(in, s.Write, named, &s.ReposCut)
	return s
}

// cloneInto is the folder `git clone` makes, as its words say: the
// folder named after the repository, or the repository's name; "" for
// another command, or words it cannot read.
func cloneInto(dir, home string, args []string) string {
	if len(args) < 3 || args[1] != "clone" || !filepath.IsAbs(dir) {
		return ""
	}
	var pos []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case slices.Contains([]string{"-b", "--branch", "-o", "--origin", "-c", "--config", "--depth", "--reference", "--separate-git-dir", "-j", "--jobs", "--template", "--filter", "-u", "--upload-pack", "--shallow-since", "--shallow-exclude", "--reference-if-able", "--server-option", "--bundle-uri"}, a):
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	var d string
	switch len(pos) {
	case 1:
		d = strings.TrimSuffix(filepath.Base(strings.TrimRight(pos[0], "/")), ".git")
		if i := strings.LastIndexAny(d, ":"); i >= 0 {
			d = d[i+1:]
		}
	case 2:
		d = pos[1]
	default:
		return ""
	}
	return newFolder(d, dir, home)
}

// worktreeInto is the folder `git worktree add PATH` makes, or "".
func worktreeInto(dir, home string, args []string) string {
	if len(args) < 4 || args[1] != "worktree" || args[2] != "add" || !filepath.IsAbs(dir) {
		return ""
	}
	for i := 3; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			if i+1 < len(args) {
				return newFolder(args[i+1], dir, home)
			}
			return ""
		case a == "-b" || a == "-B" || a == "--reason":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			return newFolder(a, dir, home)
		}
	}
	return ""
}

// newFolder is the folder d a command's words name for it to make, run
// in dir: "" when the words are not plain, or it would be a home folder,
// / or a system root.
func newFolder(d, dir, home string) string {
	if d == "" || d == "." || d == ".." || strings.ContainsAny(d, "$`*?[") || strings.HasPrefix(d, "~") && !strings.HasPrefix(d, "~/") {
		return ""
	}
	if rest, ok := strings.CutPrefix(d, "~/"); ok && home != "" {
		d = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(dir, d)
	}
	if d = filepath.Clean(d); IsBroad(d, home) || Under(home, d) {
		return "" // never a home folder, / or a system root
	}
	return d
}

// gitAlone says whether every program of the line is git.
func gitAlone(progs [][]string) bool {
	if len(progs) == 0 {
		return false
	}
	for _, p := range progs {
		if len(p) == 0 || filepath.Base(p[0]) != "git" {
			return false
		}
	}
	return true
}

// gitSettings are git's subcommands that may write the repository's
// settings (.git/config): a remote, a branch's upstream, a submodule.
var gitSettings = []string{"config", "remote", "push", "branch", "checkout", "switch", "submodule", "worktree", "pull", "maintenance", "lfs"}

// keep are the protected places beneath the scope's writes that the
// command does not name itself.
func keep(in Input, write []string, named map[string]bool, reposCut *bool) []string {
	cands := Startup(in.Home)
	cands = append(cands, in.Own...)
	// A repository's hooks and settings run code at the user's next git
	// command, outside any sandbox (a hook, core.fsmonitor, core.pager).
	// They are kept by a mount over each; Landlock alone could keep them
	// only by closing all of .git to the git commands that need it.
	//
	// A line of git commands alone is git working in its own repository:
	// it writes no hooks, and the hooks it runs are the ones the
	// repository already has, so nothing is kept from it (and it keeps
	// the zygote's fast path, which cannot hold mounts).
	if !in.NoMounts && !gitAlone(in.Programs) {
		var repos []string
		if g := gitDir(in.Dir, in.Stat); g != "" {
			repos = append(repos, g)
		}
		// A whole home folder or system root holds other repositories
		// too, whose hooks the user's next git command there would run.
		for _, w := range write {
			if IsBroad(w, in.Home) {
				found, cut := reposUnder(w)
				repos = append(repos, found...)
				*reposCut = *reposCut || cut
			}
		}
		// commondir, written, moves both to a folder of the run's own;
		// it cannot be held before it exists, so a run that makes it
		// says so (shell's madeKept).
		for _, g := range repos {
			cands = append(cands, filepath.Join(g, "hooks")+"/", filepath.Join(g, "config"), filepath.Join(g, "commondir"))
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range cands {
		c := filepath.Clean(k)
		if seen[c] {
			continue // the first spelling wins: a folder marked "/" comes first
		}
		seen[c] = true
		if !harkOwn(c, in.Home) && slices.ContainsFunc(slices.Collect(maps.Keys(named)), func(n string) bool { return Under(n, c) }) {
			continue // the command names it, or something in it: the card shows it
		}
		for _, w := range write {
			if Under(c, w) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// Where reposUnder looks: folders at most repoDepth below the root, at
// most repoLooks of them, for at most repoMost repositories (each is two
// mounts).
const repoDepth, repoLooks, repoMost = 5, 20000, 200

// repoSkip are folders that hold other people's downloads, not
// repositories anyone works in: searching them would cost the most.
var repoSkip = map[string]bool{"node_modules": true, ".cache": true, ".npm": true, ".cargo": true, ".rustup": true,
	".local": true, "Library": true, ".Trash": true, "snap": true, ".var": true, ".venv": true}

// reposUnder are the .git folders of the repositories in root, found
// breadth first without following links (a link's target is outside the
// scope, or found under its own name). cut says the search stopped at
// repoLooks folders or repoMost repositories before its depth: an
// earlier run could have padded the tree to hide one, so the card says
// so (Scope.ReposCut).
func reposUnder(root string) (out []string, cut bool) {
	level, looks := []string{root}, 0
	for depth := 0; depth <= repoDepth && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() || repoSkip[e.Name()] {
					continue // a link's type is not a folder's
				}
				p := filepath.Join(d, e.Name())
				if p == "/proc" || p == "/sys" || p == "/dev" || p == "/run" {
					continue // the kernel's and the session's, not folders of files
				}
				if e.Name() == ".git" {
					if len(out) < repoMost {
						out = append(out, p)
					} else {
						cut = true
					}
					continue
				}
				if looks++; looks <= repoLooks {
					next = append(next, p)
				} else {
					cut = true
				}
			}
		}
		level = next
	}
	return out, cut
}

// gitDir is the .git folder of the repository p lies in, or "".
func gitDir(p string, stat func(string) (bool, bool)) string {
	for d := filepath.Clean(p); ; d = filepath.Dir(d) {
		if dir, ok := stat(filepath.Join(d, ".git")); ok && dir {
			return filepath.Join(d, ".git")
		}
		if d == "/" || d == "." {
			return ""
		}
	}
}

// harkOwn says whether p is, or lies in, one of Hark's own folders under
// home: no run may change them, even one that names them.
func harkOwn(p, home string) bool {
	for _, rel := range []string{".config/hark", ".local/state/hark", ".local/share/hark", "Library/Application Support/Hark"} {
		if home != "" && Under(p, filepath.Join(home, rel)) {
			return true
		}
	}
	return false
}

// startup are the files and folders under home that run code the next
// time the user logs in, opens a shell or starts a program: no run may
// change them unless its command names them. A folder ends in "/", as
// in Scope.Keep.
var startup = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".config/fish/", ".inputrc", ".pam_environment",
	".xprofile", ".xinitrc", ".xsessionrc", ".xsession", ".ssh/", ".config/autostart/",
	".config/systemd/", ".config/environment.d/", "Library/LaunchAgents/", ".local/bin/", "bin/",
	".gitconfig", ".config/git/", ".npmrc", ".config/hark/", ".local/state/hark/", ".local/share/hark/",
	"Library/Application Support/Hark/",
}

// Startup is the list above under home; folders end in "/".
func Startup(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, rel := range startup {
		if strings.HasPrefix(rel, "Library/") != (runtime.GOOS == "darwin") {
			continue // the other system's places
		}
		p := filepath.Join(home, rel)
		if strings.HasSuffix(rel, "/") {
			p += "/"
		}
		out = append(out, p)
	}
	return out
}

// place is one place a program row adds.
type place struct {
	path, why string
	named     bool // the command names it itself: it is not kept out
}

// row is what one program always needs beyond the places its command
// names: its caches and locks, the network, the ssh agent, signals.
type row struct {
	caches  func(in Input, args []string) []place
	net     bool
	netFor  []string // subcommands that reach the network (git)
	agentOn []string // subcommands that use the ssh agent; "*" every one
	signals bool
}

func (r row) places(in Input, args []string) []place {
	if r.caches == nil {
		return nil
	}
	return r.caches(in, args)
}

func (r row) network(args []string) bool {
	return r.net || len(args) > 1 && slices.Contains(r.netFor, args[1])
}

func (r row) agent(args []string) bool {
	return slices.Contains(r.agentOn, "*") || len(args) > 1 && slices.Contains(r.agentOn, args[1])
}

// inHome is a cache under home unless the environment variable env says
// where it is. One under .cache/ or .local/share/ follows
// XDG_CACHE_HOME or XDG_DATA_HOME where they are set, as the programs do.
func inHome(env, rel, why string) func(Input, []string) []place {
	return func(in Input, _ []string) []place {
		if v := in.Env(env); env != "" && filepath.IsAbs(v) {
			return []place{{path: v, why: why}}
		}
		if in.Home == "" {
			return nil
		}
		for _, x := range []struct{ prefix, env string }{{".cache/", "XDG_CACHE_HOME"}, {".local/share/", "XDG_DATA_HOME"}} {
			if rest, ok := strings.CutPrefix(rel, x.prefix); ok {
				if v := in.Env(x.env); filepath.IsAbs(v) {
					return []place{{path: filepath.Join(v, rest), why: why}}
				}
			}
		}
		return []place{{path: filepath.Join(in.Home, rel), why: why}}
	}
}

// pnpmLocks is where pnpm takes its store's locks: a folder of the
// user's own in XDG_RUNTIME_DIR, else in /tmp.
func pnpmLocks(in Input, _ []string) []place {
	dir := in.Env("XDG_RUNTIME_DIR")
	if !filepath.IsAbs(dir) {
		dir = "/tmp"
	}
	return []place{{path: filepath.Join(dir, "pnpm-store-operation-locks-"+strconv.Itoa(os.Getuid())), why: "pnpm's store locks"}}
}

// userCache is where Go and pip keep their caches when nothing says
// otherwise: XDG_CACHE_HOME, else ~/Library/Caches on macOS, else
// ~/.cache.
func userCache(in Input) string {
	if v := in.Env("XDG_CACHE_HOME"); filepath.IsAbs(v) {
		return v
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(in.Home, "Library/Caches")
	}
	return filepath.Join(in.Home, ".cache")
}

// pipCache is pip's download cache.
func pipCache(in Input, _ []string) []place {
	why := "pip's download cache"
	if v := in.Env("PIP_CACHE_DIR"); filepath.IsAbs(v) {
		return []place{{path: v, why: why}}
	}
	if in.Home == "" {
		return nil
	}
	return []place{{path: filepath.Join(userCache(in), "pip"), why: why}}
}

func both(fs ...func(Input, []string) []place) func(Input, []string) []place {
	return func(in Input, args []string) []place {
		var out []place
		for _, f := range fs {
			out = append(out, f(in, args)...)
		}
		return out
	}
}

// rows is the policy's table of what programs always write and reach,
// one row each; see docs/safety.md "What an approval lets a command do".
var rows = map[string]row{
	"npm":  {caches: inHome("npm_config_cache", ".npm", "npm's package cache and logs"), net: true},
	"npx":  {caches: inHome("npm_config_cache", ".npm", "npm's package cache and logs"), net: true},
	"pnpm": {caches: both(inHome("", ".local/share/pnpm", "pnpm's package store"), inHome("", ".cache/pnpm", "pnpm's cache"), pnpmLocks), net: true},
	"yarn": {caches: both(inHome("YARN_CACHE_FOLDER", ".cache/yarn", "Yarn's package cache"), inHome("", ".yarn", "Yarn's own files")), net: true},
	"pip":  {caches: pipCache, net: true},
	"pip3": {caches: pipCache, net: true},
	"uv":   {caches: both(inHome("UV_CACHE_DIR", ".cache/uv", "uv's cache"), inHome("", ".local/share/uv", "uv's Pythons and tools")), net: true},
	"cargo": {caches: func(in Input, _ []string) []place {
		home := in.Env("CARGO_HOME")
		if !filepath.IsAbs(home) {
			if in.Home == "" {
				return nil
			}
			home = filepath.Join(in.Home, ".cargo")
		}
		// Its registry and git checkouts, never its credentials or bin.
		return []place{{path: filepath.Join(home, "registry"), why: "cargo's crate cache"},
			{path: filepath.Join(home, "git"), why: "cargo's git checkouts"}}
	}, net: true},
	"go": {caches: func(in Input, _ []string) []place {
		var out []place
		if c := in.Env("GOCACHE"); filepath.IsAbs(c) {
			out = append(out, place{path: c, why: "Go's build cache"})
		} else if in.Home != "" {
			out = append(out, place{path: filepath.Join(userCache(in), "go-build"), why: "Go's build cache"})
		}
		mod := in.Env("GOMODCACHE")
		if !filepath.IsAbs(mod) {
			if gp := strings.Split(in.Env("GOPATH"), string(filepath.ListSeparator))[0]; filepath.IsAbs(gp) {
				mod = filepath.Join(gp, "pkg/mod")
			} else if in.Home != "" {
				mod = filepath.Join(in.Home, "go/pkg/mod")
			}
		}
		if mod != "" {
			out = append(out, place{path: mod, why: "Go's module cache"})
		}
		return out
	}, net: true},
	"git": {caches: func(in Input, args []string) []place {
		var out []place
		// The repository's own .git, where it lies outside the folder
		// the command runs in (a subfolder of the work tree).
		if g := gitDir(in.Dir, in.Stat); g != "" && !Under(in.Dir, g) {
			out = append(out, place{path: g, why: "the repository's history"})
		}
		if d := cloneInto(in.Dir, in.Home, args); d != "" {
			out = append(out, place{path: d, why: "the repository git clone makes", named: true})
		}
		if d := worktreeInto(in.Dir, in.Home, args); d != "" {
			out = append(out, place{path: d, why: "the work tree git worktree add makes", named: true})
		}
		return out
	}, netFor: []string{"clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"},
		agentOn: []string{"clone", "fetch", "pull", "push", "ls-remote", "submodule"}},
	"ssh-keygen": {caches: func(in Input, _ []string) []place {
		if in.Home == "" {
			return nil
		}
		return []place{{path: filepath.Join(in.Home, ".ssh"), why: "where ssh-keygen writes keys", named: true}}
	}},
	"brew": {caches: func(in Input, _ []string) []place {
		out := []place{{path: "/opt/homebrew", why: "Homebrew's prefix"}, {path: "/usr/local/Homebrew", why: "Homebrew's prefix"}}
		if in.Home != "" {
			out = append(out, place{path: filepath.Join(in.Home, "Library/Caches/Homebrew"), why: "Homebrew's cache"})
		}
		return out
	}, net: true},
	"curl":    {net: true},
	"wget":    {net: true},
	"ssh":     {net: true, agentOn: []string{"*"}},
	"scp":     {net: true, agentOn: []string{"*"}},
	"sftp":    {net: true, agentOn: []string{"*"}},
	"rsync":   {net: true, agentOn: []string{"*"}},
	"kill":    {signals: true},
	"pkill":   {signals: true},
	"killall": {signals: true},
}

// Rows names the programs the table has a row for, for tests.
func Rows() []string {
	out := make([]string, 0, len(rows))
	for k := range rows {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
