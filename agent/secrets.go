package agent

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/shell/rules"
)

// privateEntry is one private location: rel under home, what it holds
// as the approval says it, and whether it is a folder (its tests read a
// file inside it) or a file.
//
// local marks a name that projects and the system use for their own
// files too (a project's .npmrc or .claude folder, /snap): written out in
// a command's text it counts only after ~/ or $HOME/, so that reading a
// project's own copy does not ask.
type privateEntry struct {
	rel, what  string
	dir, local bool
}

// privateHome are the places under home where credentials, keys, browser
// profiles, shell history and Hark's own settings usually live, with what
// they hold for the approval's wording. One list serves both rules for
// calls from other programs: a call may not run in one of them
// (CallRequest.PrivateDirs), and a read-only command that reads one asks
// first (privateReads); the sandbox hides the same list from their
// unasked runs (sandboxHide). docs/safety.md's "What is private" is
// written from it (TestSafetyDocListsPrivate), and every entry is tested
// through the gate, Landlock and Seatbelt.
//
// A project's .env file is deliberately not on it: reading a project's
// configuration is ordinary work for a coding agent, which can read that
// folder with its own file tools anyway; the list is about what lies
// outside any project and that no client needs unasked.
var privateHome = []privateEntry{
	{".ssh", "your SSH keys", true, false},
	{".gnupg", "your GnuPG keys", true, false},
	{".aws", "your AWS credentials", true, false},
	{".azure", "your Azure credentials", true, false},
	{".config/gcloud", "your Google Cloud credentials", true, false},
	{".kube", "your Kubernetes credentials", true, false},
	{".docker", "your Docker registry credentials", true, true},
	{".netrc", "your saved passwords", false, false},
	{".git-credentials", "your saved Git passwords", false, false},
	{".config/gh", "your GitHub tokens", true, false},
	{".password-store", "your passwords", true, false},
	{".local/share/keyrings", "your keyrings", true, false},
	{"Library/Keychains", "your keychains", true, false},
	{".config/hark", "Hark's settings and API keys", true, false},
	{".local/state/hark", "Hark's history and audit log", true, false},
	{".local/share/hark", "Hark's data", true, false},
	{"Library/Application Support/Hark", "Hark's settings and API keys", true, false},
	{".mozilla", "your browser profiles", true, false},
	{".config/google-chrome", "your browser profiles", true, false},
	{".config/chromium", "your browser profiles", true, false},
	{".config/BraveSoftware", "your browser profiles", true, false},
	{"Library/Application Support/Google/Chrome", "your browser profiles", true, false},
	{"Library/Application Support/Firefox", "your browser profiles", true, false},
	{"Library/Application Support/BraveSoftware", "your browser profiles", true, false},
	{"Library/Cookies", "your browser cookies", true, false},
	{".bash_history", "your shell history", false, false},
	{".zsh_history", "your shell history", false, false},
	{".local/share/fish/fish_history", "your shell history", false, false},
	{".python_history", "your shell history", false, false},
	// Snap and Flatpak apps each keep their whole home in one folder
	// (~/snap/<app>/…, ~/.var/app/<id>/…): browser profiles, mail and chat
	// logins among them. The parent is hidden rather than a pattern per
	// browser: a pattern misses every other app, and the sandbox's rules
	// are built from what is on disk when a run starts, so an app installed
	// later would be readable under a pattern, never under the parent.
	{"snap", "the data of your snap apps (browser profiles and logins among them)", true, true},
	{".var/app", "the data of your Flatpak apps (browser profiles and logins among them)", true, false},
	{".config/microsoft-edge", "your browser profiles", true, false},
	{".config/vivaldi", "your browser profiles", true, false},
	{".config/opera", "your browser profiles", true, false},
	{".thunderbird", "your mail and its passwords", true, false},
	{"Library/Application Support/Microsoft Edge", "your browser profiles", true, false},
	{"Library/Application Support/Arc", "your browser profiles", true, false},
	{"Library/Application Support/Vivaldi", "your browser profiles", true, false},
	{"Library/Application Support/Chromium", "your browser profiles", true, false},
	{"Library/Safari", "your Safari history and bookmarks", true, false},
	{"Library/Thunderbird", "your mail and its passwords", true, false},
	{".config/git/credentials", "your saved Git passwords", false, false},
	{".npmrc", "your npm token", false, true},
	{".yarnrc.yml", "your Yarn registry token", false, true},
	{".pypirc", "your PyPI token", false, true},
	{".cargo/credentials", "your crates.io token", false, false},
	{".cargo/credentials.toml", "your crates.io token", false, false},
	{".pgpass", "your PostgreSQL passwords", false, false},
	{".my.cnf", "your MySQL password", false, false},
	{".vault-token", "your Vault token", false, false},
	{".config/rclone/rclone.conf", "your cloud storage logins", false, false},
	{".terraform.d/credentials.tfrc.json", "your Terraform token", false, false},
	{".gem/credentials", "your RubyGems token", false, false},
	{".m2/settings.xml", "your Maven repository passwords", false, false},
	{".gradle/gradle.properties", "your Gradle repository passwords", false, true},
	{".s3cfg", "your S3 keys", false, false},
	{".boto", "your cloud storage keys", false, false},
	{".config/op", "your 1Password CLI settings", true, false},
	{".config/hub", "your GitHub token", false, false},
	{".composer/auth.json", "your Composer tokens", false, false},
	{".claude", "your Claude Code login and conversations", true, true},
	{".claude.json", "your Claude Code account and history", false, false},
	{".codex", "your Codex login and conversations", true, true},
	{".gemini", "your Gemini CLI login", true, true},
	{".config/github-copilot", "your GitHub Copilot token", true, false},
	{".cache/huggingface/token", "your Hugging Face token", false, false},
	{".huggingface/token", "your Hugging Face token", false, false},
	{".config/io.datasette.llm", "your LLM tool's API keys and logs", true, false},
	{"Library/Application Support/io.datasette.llm", "your LLM tool's API keys and logs", true, false},
	{".zhistory", "your shell history", false, false},
	{".histfile", "your shell history", false, false},
	{".sh_history", "your shell history", false, false},
	{".zsh_sessions", "your shell history", true, false},
	{".bash_sessions", "your shell history", true, false},
	{".config/fish/fish_history", "your shell history", false, false},
	{".config/nushell/history.txt", "your shell history", false, false},
	{".config/nushell/history.sqlite3", "your shell history", false, false},
	{"Library/Application Support/nushell/history.txt", "your shell history", false, false},
	{"Library/Application Support/nushell/history.sqlite3", "your shell history", false, false},
	{".local/share/atuin", "your shell history", true, false},
	{".psql_history", "your PostgreSQL history", false, false},
	{".mysql_history", "your MySQL history", false, false},
	{".sqlite_history", "your SQLite history", false, false},
	{".node_repl_history", "your Node.js history", false, false},
	{".ts_node_repl_history", "your Node.js history", false, false},
	{".lesshst", "your less search history", false, false},
	// less 600 and later keep it under XDG's state folder when that exists.
	{".local/state/lesshst", "your less search history", false, false},
	// zsh reads its files from $ZDOTDIR, which XDG-minded setups put here.
	{".config/zsh/.zsh_history", "your shell history", false, false},
	{".irb_history", "your Ruby history", false, false},
	{".pry_history", "your Ruby history", false, false},
	{".rediscli_history", "your Redis history", false, false},
	{".Rhistory", "your R history", false, false},
	{".julia/logs/repl_history.jl", "your Julia history", false, false},
	{".dbshell", "your MongoDB history", false, false},
	{".viminfo", "your Vim history and registers", false, false},
	// AI tools' keys and logins. Cursor keeps its login tokens in the
	// state database under globalStorage; the rest of its folder is
	// settings and extensions a client may read.
	{".ollama/id_ed25519", "your Ollama key", false, false},
	{".config/Cursor/User/globalStorage", "your Cursor login", true, false},
	{"Library/Application Support/Cursor/User/globalStorage", "your Cursor login", true, false},
	// Projects keep .continue/ and .qwen/ folders of their own settings.
	{".continue", "your Continue API keys and sessions", true, true},
	{".config/goose", "your Goose settings and secrets", true, false},
	{".local/share/opencode", "your opencode logins and conversations", true, false},
	// aider reads the same file name from a project and its git root too.
	{".aider.conf.yml", "your aider settings and API keys", false, true},
	{".qwen", "your Qwen Code login", true, true},
	{".cache/huggingface/stored_tokens", "your Hugging Face tokens", false, false},
	{".kaggle", "your Kaggle API key", true, false},
	{".databrickscfg", "your Databricks tokens", false, false},
	{".modal.toml", "your Modal tokens", false, false},
	// History of REPLs and shells. tcsh's .history and gdb's
	// .gdb_history are also written into projects, and a .history folder
	// is an editor's local history there.
	{".ipython", "your IPython history", true, false},
	{".mongodb/mongosh", "your MongoDB history", true, false},
	{".local/state/nvim/shada", "your Neovim history and registers", true, false},
	{".history", "your shell history", false, true},
	{".ksh_history", "your shell history", false, false},
	{".config/pgcli/history", "your PostgreSQL history", false, false},
	{".mycli-history", "your MySQL history", false, false},
	{".duckdb_history", "your DuckDB history", false, false},
	{".ghc/ghci_history", "your GHCi history", false, false},
	{".gdb_history", "your GDB history", false, true},
	// Credentials of package managers, databases and clouds.
	{".config/composer/auth.json", "your Composer tokens", false, false},
	{".yarnrc", "your Yarn registry token", false, true},
	{".mylogin.cnf", "your MySQL passwords", false, false},
	{".m2/settings-security.xml", "your Maven master password", false, false},
	// pip's index URLs carry a private index's user and token.
	{".config/pip/pip.conf", "your Python package index logins", false, false},
	{".pip/pip.conf", "your Python package index logins", false, false},
	{"Library/Application Support/pip/pip.conf", "your Python package index logins", false, false},
	{".config/pypoetry/auth.toml", "your Poetry repository passwords", false, false},
	{"Library/Application Support/pypoetry/auth.toml", "your Poetry repository passwords", false, false},
	{".subversion/auth", "your saved Subversion passwords", true, false},
	{".authinfo", "your saved passwords", false, false},
	{".authinfo.gpg", "your saved passwords", false, false},
	{".local/share/kwalletd", "your KDE wallets", true, false},
	{".pki/nssdb", "your certificates and their private keys", true, false},
	{".config/glab-cli", "your GitLab tokens", true, false},
	{".config/doctl", "your DigitalOcean token", true, false},
	{"Library/Application Support/doctl", "your DigitalOcean token", true, false},
	{".pulumi/credentials.json", "your Pulumi tokens", false, false},
	{".oci", "your Oracle Cloud keys", true, false},
}

// PrivateLocations are the folders and files under home that hold
// credentials, keys, browser profiles, shell history and Hark's own
// settings: the list both rules for calls from other programs share.
func PrivateLocations(home string) []string {
	if home == "" {
		return nil
	}
	out := make([]string, 0, len(privateHome))
	for _, p := range privateHome {
		out = append(out, filepath.Join(home, p.rel))
	}
	return out
}

// privateWhat says what a private location holds, for the approval.
func privateWhat(p, home string) string {
	for _, e := range privateHome {
		if strings.EqualFold(filepath.Join(home, e.rel), p) {
			return e.what
		}
	}
	return "your private files"
}

// metaReaders read names, sizes and types, never what a file holds, so
// naming a private folder with them shows its names only. Each is judged
// as the policy judged it (the gate only sees commands the policy calls
// safe); find with an action that runs a program is not a metadata
// reader.
var metaReaders = map[string]bool{
	"ls": true, "stat": true, "du": true, "df": true, "tree": true, "find": true, "file": true, "wc": true,
	"realpath": true, "readlink": true, "basename": true, "dirname": true, "echo": true, "printf": true,
	"test": true, "[": true, "pwd": true, "true": true, "false": true, "cd": true, "type": true,
	"which": true, "eza": true, "exa": true, "lsd": true, "namei": true, "pushd": true, "popd": true, "dirs": true,
}

// nameSinks take file names from their input and read those files: fed
// by ls or find over a private folder, they read it.
var nameSinks = map[string]bool{"xargs": true, "parallel": true, "cpio": true, "pax": true}

// secretGate is what privateReads knows of the world.
type secretGate struct {
	home    string
	env     plan.Env
	private []string // clean, lower case, each with its real path too
	shown   map[string]string
	shape   lineShape
	calls   map[*syntax.CallExpr]plan.Call
}

func newSecretGate(home, dir string, private []string) *secretGate {
	g := &secretGate{home: filepath.Clean(home), shown: map[string]string{}}
	vars := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	vars["HOME"] = g.home
	g.env = plan.Env{Home: g.home, Dir: dir, Vars: vars, Disk: true}
	for _, p := range private {
		c := filepath.Clean(p)
		for _, q := range []string{c, realOr(c)} {
			l := strings.ToLower(q)
			if _, ok := g.shown[l]; !ok {
				g.shown[l] = c
				g.private = append(g.private, l)
			}
		}
	}
	return g
}

func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// privateReads says why command, run in dir, may read one of private
// (folders or files, symlinks resolved), or "" when it surely does not.
// It is meant for commands the policy judged read-only: those run
// unasked, and their output goes to whoever asked for them. A content
// reader (cat, base64, grep, tar …) asks when it names a private
// location, when it reads a folder holding one recursively (grep -r ~,
// tar ~, rg in home), and when Hark cannot tell what it names (a command
// substitution, a path only known at run time). A metadata reader (ls,
// find, du, stat …) may name them, unless the line also hands names on to
// a program that reads them (xargs).
func privateReads(command, dir, home string, private []string) string {
	if len(private) == 0 || home == "" {
		return ""
	}
	s, err := plan.Parse(command)
	if err != nil {
		return "" // the policy does not call it read-only either
	}
	if dir == "" {
		dir = home
	}
	g := newSecretGate(home, dir, private)
	calls := s.Calls(g.env)
	g.shape = shapeOf(s.File)
	g.calls = map[*syntax.CallExpr]plan.Call{}
	for _, c := range calls {
		g.calls[c.Expr] = c
	}

	sink := false
	for _, c := range calls {
		if nameSinks[path.Base(c.Name())] {
			sink = true
		}
	}
	content := false
	for _, c := range calls {
		if n := path.Base(c.Name()); !metaReaders[n] || namesFrom(n, c) {
			content = true
		}
	}
	var metaTouch string
	places := []plan.Place{{Dir: filepath.Clean(dir), Vars: g.env.Vars}}
	for _, c := range calls {
		for _, p := range c.Places {
			if p.Unknown == "" {
				places = append(places, p)
			}
		}
		if why, meta := g.call(c); why != "" {
			if !meta {
				return why
			}
			if metaTouch == "" {
				metaTouch = why
			}
		}
	}
	if metaTouch != "" && sink {
		return metaTouch + ", and the line hands the names on to a program that reads them"
	}

	// Input redirections read a file whatever the program: cat <
	// ~/.ssh/id_rsa, $(< file), exec 3< file.
	why := ""
	syntax.Walk(s.File, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || why != "" || r.Word == nil || (r.Op != syntax.RdrIn && r.Op != syntax.RdrInOut) {
			return why == ""
		}
		for _, p := range places {
			e := g.env.Expand(p, []*syntax.Word{r.Word})
			if e.Unknown != "" {
				why = "reads a file Hark cannot tell (" + e.Unknown + "), which may hold your credentials or keys"
				return false
			}
			for _, f := range e.Fields {
				if hit, _ := g.check(p.Dir, f.Value); hit != "" {
					why = "reads " + hit
					return false
				}
			}
		}
		return true
	})
	// A path inside a program's own text (awk's getline < "…", sed's r
	// command, a here-document fed to one) is no argument the plan can
	// follow: on a line that reads contents at all, a private location
	// written out anywhere asks.
	if why == "" && content {
		if m := g.mention(command); m != "" {
			why = "names " + m + " in its text, where Hark cannot follow what reads it"
		}
	}
	return why
}

// call judges one simple command: why it may read a private location,
// and whether it is a metadata reader (whose reading shows names only).
func (g *secretGate) call(c plan.Call) (why string, meta bool) {
	name := path.Base(c.Name())
	if len(c.Places) == 0 {
		return "", false // never runs
	}
	for _, p := range c.Places {
		e := c.Args(g.env, p)
		if e.NoRun != "" {
			continue
		}
		if e.Unknown != "" {
			if metaReaders[name] {
				continue
			}
			return "Hark cannot tell what " + orCommand(name) + " reads (" + e.Unknown + "), and it may be your credentials or keys", false
		}
		if len(e.Fields) == 0 {
			continue
		}
		prog := path.Base(e.Fields[0].Value)
		args := make([]string, 0, len(e.Fields)-1)
		for _, f := range e.Fields[1:] {
			args = append(args, f.Value)
		}
		isMeta := metaReaders[prog] && !readsNames(prog, args)
		if prog == "find" && findRuns(args) {
			isMeta = false
		}
		if why := g.extraReads(c, p, prog, args); why != "" {
			return why, false
		}
		rec := !isMeta && recursive(prog, args)
		targets := targetsOf(args, g.home)
		if rec && implicitDir(prog, args) {
			targets = append(targets, ".")
		}
		for _, t := range targets {
			hit, covers := g.check(p.Dir, t)
			switch {
			case hit == "":
			case covers == "":
				if isMeta {
					return "lists " + hit, true
				}
				return prog + " reads " + hit, false
			case isMeta:
				return prog + " lists " + covers + ", which holds " + hit, true
			case rec:
				return prog + " reads all of " + covers + ", " + hit + " included", false
			}
		}
		for _, t := range attached(args) {
			if hit, covers := g.check(p.Dir, t); hit != "" && covers == "" {
				if isMeta {
					return "lists " + hit, true
				}
				return prog + " reads " + hit + ", named in an option", false
			}
		}
	}
	return "", false
}

// attached are the values a cluster of short options may end with
// (-fFILE, -xvf/path): every tail after its first letter. Which letters
// take a file differs by program and version, and readOptions knows only
// some programs, so any tail that is a private location counts.
func attached(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for k := 2; k < len(a); k++ {
			out = append(out, a[k:])
		}
	}
	return out
}

func orCommand(name string) string {
	if name == "" || name == "." {
		return "the command"
	}
	return name
}

// targetsOf are the words of args that may name files: each argument, and
// the value of an --opt=value or if=path one (bash leaves a ~ there
// unexpanded in some modes; it is read as home).
func targetsOf(args []string, home string) []string {
	var out []string
	for _, a := range args {
		out = append(out, a)
		if _, v, ok := strings.Cut(a, "="); ok && v != "" {
			if v == "~" || strings.HasPrefix(v, "~/") {
				v = home + v[1:]
			}
			out = append(out, v)
		}
	}
	return out
}

// check is the private location target (in dir) lies in, for people
// ("your SSH keys in ~/.ssh"), and, when target is instead a folder that
// holds one (home, /), that folder as written for people.
func (g *secretGate) check(dir, target string) (hit, covers string) {
	if target == "" {
		return "", ""
	}
	lex, why := plan.Normalize(dir, target)
	if why != "" {
		return "a path only known when it runs (" + why + ")", ""
	}
	real, _ := g.env.Resolve(dir, target)
	for _, q := range []string{lex, real} {
		if q == "" {
			continue
		}
		l := strings.ToLower(q)
		for _, p := range g.private {
			if l == p || strings.HasPrefix(l, p+"/") {
				return g.describe(p), ""
			}
		}
	}
	for _, q := range []string{lex, real} {
		if q == "" {
			continue
		}
		l := strings.ToLower(q)
		for _, p := range g.private {
			if l == "/" || strings.HasPrefix(p, l+"/") {
				return g.describe(p), tilde(q, g.home)
			}
		}
	}
	return "", ""
}

func (g *secretGate) describe(p string) string {
	orig := g.shown[p]
	return privateWhat(orig, g.home) + " in " + tilde(orig, g.home)
}

func tilde(p, home string) string {
	switch {
	case p == home:
		return "~"
	case strings.HasPrefix(p, home+"/"):
		return "~" + p[len(home):]
	}
	return p
}

// findRuns is true when find's expression runs a program on what it
// finds, which then reads the files.
func findRuns(args []string) bool {
	for _, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			return true
		}
	}
	return false
}

// recursive is true when prog reads every file under a folder it is
// given: grep -r, rg, tar, zip -r, diff -r, git.
func recursive(prog string, args []string) bool {
	switch prog {
	case "rg", "ag", "ack", "ack-grep", "tar", "bsdtar", "gtar", "7z", "7za", "7zz", "cpio", "pax", "rsync", "git", "find":
		return true
	case "grep", "egrep", "fgrep", "zgrep", "ugrep", "ggrep", "diff", "zip", "cp", "scp", "sha256sum", "md5sum", "b3sum", "shasum", "cksum":
		for _, a := range args {
			switch {
			case a == "--":
				return false
			case a == "--recursive" || a == "--dereference-recursive" || a == "--directories=recurse" || a == "--recurse-paths":
				return true
			case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR"):
				return true
			}
		}
	}
	return false
}

// implicitDir is true when a recursive reader given no folder reads the
// one it runs in: grep -r and rg with only a pattern, git anywhere
// without -C.
func implicitDir(prog string, args []string) bool {
	switch prog {
	case "git":
		for _, a := range args {
			if a == "-C" || strings.HasPrefix(a, "--git-dir") || strings.HasPrefix(a, "--work-tree") {
				return false
			}
		}
		return true
	case "grep", "egrep", "fgrep", "ugrep", "ggrep", "rg", "ag", "ack", "ack-grep":
		n := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				n++
			}
		}
		return n <= 1
	}
	return false
}

// secretGate marks, for a call whose output leaves Hark (one from
// another program, or any call while a cloud model may be in use), a
// read-only command that reads private files: a reason the approval
// shows is added, no allow rule lets it by, and handleOne asks. It
// reports whether it marked the call.
func (r *run) secretGate(ta toolArgs, v *shell.Verdict, rd *rules.Decision) bool {
	r.secretNoRule = false
	if v.Tier != shell.Safe || !r.outputLeaves() {
		return false
	}
	private := r.private
	if private == nil {
		private = PrivateLocations(r.a.o.Home)
	}
	why := privateReads(ta.Command, ta.WorkingDirectory, r.a.o.Home, private)
	if why == "" {
		why = serviceRead(ta.Command, ta.WorkingDirectory, r.a.o.Home)
	}
	if why == "" {
		return false
	}
	to := "the program that asked"
	if r.client != "" {
		to = r.client
	} else if !r.external {
		to = "the cloud model"
	}
	v.Reasons = append(v.Reasons, shell.Reason{Command: ta.Command, Why: why + "; the output would go to " + to, Category: policy.Privilege})
	if rd.Kind == rules.Allow {
		*rd = rules.Decision{}
	}
	r.secretNoRule = true
	return true
}

// sandboxHide are the paths a call from another program may not read in
// the read-only sandbox (shell.Request.Hide): the same private locations
// the gate above asks about, so that a command the policy wrongly calls
// read-only, or one that reads a private file the gate cannot see (through
// a link, or implicitly), is still refused by the sandbox: whenever the
// output leaves the machine (another program's call, or a cloud model's).
// The local model's calls keep the sandbox as it was: what they read stays
// on the machine, and the voice loop reads these files when asked to. A read the
// gate found and put to the user (want false) runs as the user approved
// it, or as confirmation off lets it: hiding what they said yes to would
// only make the approval useless.
func (r *run) sandboxHide(want bool) []string {
	if !want || !r.outputLeaves() {
		return nil
	}
	if r.private != nil {
		return r.private
	}
	return PrivateLocations(r.a.o.Home)
}

// outputLeaves is true when what a command prints may leave the
// machine: the call came from another program, or cloud models are
// allowed and the model is not known to run here.
func (r *run) outputLeaves() bool {
	if r.external {
		return true
	}
	if !r.a.o.AllowCloudModels {
		return false
	}
	if rt := r.a.runtimeOf(); rt != nil {
		return rt.RemoteHost() != ""
	}
	return true
}

// namesFrom is readsNames for a call as written, before expansion.
func namesFrom(name string, c plan.Call) bool {
	var args []string
	for _, w := range c.Expr.Args[1:] {
		args = append(args, w.Lit())
	}
	return readsNames(name, args)
}

// readsNames is true when a metadata reader is told to take the names
// it works on from a file (file -f, wc --files0-from, tree --fromfile):
// what it prints about each "name" then shows that file's lines.
func readsNames(prog string, args []string) bool {
	for _, a := range args {
		switch {
		case strings.Contains(a, "files0-from"), strings.Contains(a, "fromfile"), strings.Contains(a, "files-from"):
			return true
		case prog == "file" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f"):
			return true
		}
	}
	return false
}

// mention is the private location text names as a path — /.ssh, ~/.ssh,
// .ssh/… — wherever it stands, for people, or "".
func (g *secretGate) mention(text string) string {
	l := strings.ToLower(text)
	for _, e := range privateHome {
		rel := strings.ToLower(e.rel)
		for i := 0; ; {
			j := strings.Index(l[i:], rel)
			if j < 0 {
				break
			}
			j += i
			end := j + len(rel)
			before, after := byte(' '), byte(' ')
			if j > 0 {
				before = l[j-1]
			}
			if end < len(l) {
				after = l[end]
			}
			if ((before == '/' && (after == '/' || bound(after))) || (bound(before) && after == '/')) && (!e.local || g.inHome(l[:j])) {
				return e.what + " in ~/" + e.rel
			}
			i = j + 1
		}
	}
	return ""
}

// inHome says whether text ends with a spelling of home and a slash:
// ~/, $HOME/, ${HOME}/ or home itself.
func (g *secretGate) inHome(text string) bool {
	for _, h := range []string{"~/", "$home/", "${home}/", strings.ToLower(g.home) + "/"} {
		if strings.HasSuffix(text, h) {
			return true
		}
	}
	return false
}

// bound is a character that may stand beside a path in a command's text.
func bound(c byte) bool {
	return strings.IndexByte(" \t\n\"'=:;|&<>(){}`$", c) >= 0
}

// serviceReaders are programs the policy may call read-only that ask a
// system service to read for them: the service runs outside the sandbox,
// so what it answers is not limited by the hidden private locations, and
// for another program's call the command asks first. subs, when set, are
// the only subcommands that read through the service. The user's own
// voice requests keep running them unasked: what they print stays here.
//
// Left off on purpose: mdutil (its read-only options print whether
// indexing is on, nothing about any file), security list-keychains (the
// names of the keychain files), lsof (it reads /proc inside the sandbox
// and prints names), defaults domains (names only). sqlite3, locate,
// plocate, secret-tool, dbus-send, gdbus, busctl, qdbus, xclip, xsel,
// wl-paste and launchctl already ask for everyone.
var serviceReaders = map[string]struct {
	why  string
	subs []string
}{
	"mdfind":     {why: "asks Spotlight, which searches outside the sandbox and can tell what hidden files contain"},
	"mdls":       {why: "asks Spotlight for what it knows of a file, from outside the sandbox, hidden files included"},
	"log":        {why: "asks the system log, outside the sandbox, for every app's messages, which can hold tokens and passwords", subs: []string{"show", "stream"}},
	"defaults":   {why: "asks the preferences service, outside the sandbox, for other apps' settings, which can hold tokens", subs: []string{"read", "read-type", "find", "export"}},
	"journalctl": {why: "asks the journal, outside the sandbox, for every service's messages, which can hold tokens and passwords"},
	"pbpaste":    {why: "asks for the clipboard, which often holds a password just copied"},
	"docker":     {why: "asks the Docker daemon, which reads containers' settings, environment and logs outside the sandbox"},
	"podman":     {why: "reads containers' settings, environment and logs, which can hold secrets"},
	"systemctl":  {why: "asks systemd for services' status and their recent log lines, from outside the sandbox", subs: []string{"status"}},
}

// runWrappers run the program named by one of their later arguments.
var runWrappers = map[string]bool{
	"env": true, "nice": true, "nohup": true, "timeout": true, "gtimeout": true, "command": true, "exec": true,
	"builtin": true, "xargs": true, "parallel": true, "sudo": true, "doas": true, "time": true, "stdbuf": true,
	"ionice": true, "chrt": true, "taskset": true, "caffeinate": true, "watch": true, "flock": true, "setsid": true,
	"unbuffer": true, "find": true, "script": true, "eval": true, "sh": true, "bash": true, "zsh": true, "dash": true,
	"ksh": true, "fish": true, "busybox": true, "nsenter": true, "chroot": true, "arch": true, "systemd-run": true,
}

// serviceRead says why command asks a system service to read for it
// (serviceReaders), seen through wrappers (env, nice, xargs, timeout …),
// shell -c strings and pipelines, or "".
func serviceRead(command, dir, home string) string {
	return serviceReadDepth(command, dir, home, 0)
}

func serviceReadDepth(command, dir, home string, depth int) string {
	s, err := plan.Parse(command)
	if err != nil || depth > 4 {
		return ""
	}
	if dir == "" {
		dir = home
	}
	env := plan.Env{Home: home, Dir: dir, Vars: map[string]string{"HOME": home}, Disk: true}
	for _, c := range s.Calls(env) {
		for _, p := range c.Places {
			e := c.Args(env, p)
			if e.NoRun != "" || e.Unknown != "" || len(e.Fields) == 0 {
				continue
			}
			var f []string
			for _, x := range e.Fields {
				f = append(f, x.Value)
			}
			if why := serviceCall(f, dir, home, depth); why != "" {
				return why
			}
		}
	}
	return ""
}

// serviceCall judges one expanded simple command.
func serviceCall(f []string, dir, home string, depth int) string {
	for i := 0; i < len(f); i++ {
		prog := path.Base(f[i])
		if sr, ok := serviceReaders[prog]; ok && (i == 0 || !strings.HasPrefix(f[i], "-")) {
			if len(sr.subs) == 0 {
				return prog + " " + sr.why
			}
			for _, a := range f[i+1:] {
				if slices.Contains(sr.subs, a) {
					return prog + " " + a + " " + sr.why
				}
			}
			return ""
		}
		// A shell's -c string, or any argument with a space in it that a
		// wrapper may hand to a shell, is judged as a command line.
		if i > 0 && strings.ContainsAny(f[i], " \t\n;|&") {
			if why := serviceReadDepth(f[i], dir, home, depth+1); why != "" {
				return why
			}
		}
		if i == 0 && (!runWrappers[prog] || prog == "command" && len(f) > 1 && (f[1] == "-v" || f[1] == "-V")) {
			return "" // command -v only names the program
		}
	}
	return ""
}
