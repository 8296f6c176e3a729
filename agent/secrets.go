package agent

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
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
// they hold. A call from another program may not run in one of them
// (CallRequest.PrivateDirs); the kernel hides them from every run whose
// output leaves Hark and from every approved run, unless its card names
// them (hideList), and none is ever offered to be read (readGate).
// docs/safety.md's "What is private" is written from it
// (TestSafetyDocListsPrivate), and every entry is tested through Landlock
// and Seatbelt.
//
// A project's .env file is deliberately not on it: reading a project's
// configuration is ordinary work for a coding agent, which can read that
// folder with its own file tools anyway; the list is about what lies
// outside any project and that no client needs.
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
