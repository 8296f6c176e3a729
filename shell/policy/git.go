package policy

import (
	"slices"
	"strings"
)

// gitReadOnly lists git subcommands that only read the repository, each
// with a check for the arguments that would make it write (nil: none do).
var gitReadOnly = map[string]func(args []arg) string{
	"status": nil, "log": nil, "diff": nil, "show": nil, "rev-parse": nil, "ls-files": nil, "ls-tree": nil,
	"blame": nil, "annotate": nil, "shortlog": nil, "describe": nil, "cat-file": nil, "rev-list": nil,
	"show-ref": nil, "for-each-ref": nil, "name-rev": nil, "merge-base": nil, "whatchanged": nil,
	"count-objects": nil, "version": nil, "var": nil, "check-ignore": nil, "check-attr": nil, "cherry": nil,
	"diff-tree": nil, "diff-files": nil, "diff-index": nil, "range-diff": nil, "show-branch": nil,
	"verify-commit": nil, "verify-tag": nil, "grep": gitGrep,
	"branch": gitBranch, "tag": gitTag, "remote": gitRemote, "config": gitConfig,
	"stash": gitStash, "worktree": gitVerbs(optionSpec{}, "list"), "notes": gitVerbs(gitNotesOptions, "list", "show"),
	"reflog": gitReflog, "submodule": gitVerbs(optionSpec{}, "status", "summary"), "symbolic-ref": gitSymbolicRef,
}

// gitRunsDrivers are the subcommands that may run programs a repository's
// configuration names for its files: textconv drivers (diff, log -p, show,
// blame, and reflog, which is log -g and takes -p), external diff (git
// diff) and clean filters (status and the worktree diffs, which read
// changed files through them). The environment
// the runner gives sandboxed git switches off hooks, fsmonitor, the pager,
// signing and credential programs and refuses to enter a bare repository
// by cd or -C (safe.bareRepository=explicit), but drivers are named per
// repository and per file and cannot be switched off that way; only the
// command's own --no-ext-diff and --no-textconv can. Requiring those on
// every git diff would make the most common read-only command ask, so the
// decision is: in the working directory and with -C, the repository is
// the user's own (a clone cannot carry .git/config) and what a driver runs
// stays inside the read-only, no-network sandbox; without a sandbox git
// asks anyway (Options.NoSandbox). A repository named with --git-dir,
// --work-tree or --bare can be a bare one committed into a project, so
// these subcommands ask there, and --ext-diff, --textconv and --filters
// ask everywhere.
var gitRunsDrivers = map[string]bool{
	"status": true, "diff": true, "show": true, "log": true, "whatchanged": true, "blame": true, "annotate": true,
	"range-diff": true, "stash": true, "diff-files": true, "diff-index": true, "grep": true, "submodule": true,
	"reflog": true,
}

// gitWhy says what the common mutating subcommands do.
var gitWhy = map[string]string{
	"clean": "deletes untracked files", "reset": "moves HEAD and may discard changes",
	"checkout": "changes files in the working tree", "switch": "changes files in the working tree",
	"restore": "overwrites files in the working tree", "rm": "deletes files", "mv": "moves files",
	"push": "publishes to a remote repository", "pull": "downloads and merges from the network",
	"fetch": "downloads from the network", "clone": "downloads a repository", "gc": "rewrites repository data",
	"prune": "deletes repository data", "filter-branch": "rewrites history", "rebase": "rewrites history",
	"commit": "changes the repository", "merge": "changes the repository", "add": "changes the index",
	"stash": "stashes away changes", "branch": "creates, renames or deletes branches",
	"tag": "creates or deletes tags", "config": "changes git settings", "remote": "changes or contacts remotes",
	"symbolic-ref": "changes a reference",
}

// gitNever are options that make any git command run other programs or
// write files.
var gitNever = []string{"--output", "--ext-diff", "--textconv", "--filters", "--open-files-in-pager", "--exec", "--upload-pack", "--receive-pack"}

func gitCheck(in *invocation) {
	args := in.args
	i := 0
	otherRepo := "" // the option that names a repository elsewhere
	var cDirs []arg // -C directories, in order
	for i < len(args) {
		v := args[i].val
		if !args[i].option() {
			break
		}
		switch {
		case v == "--git-dir" || v == "--work-tree" || v == "--bare" || strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree="):
			otherRepo = v
			if v == "--git-dir" || v == "--work-tree" {
				i++
			}
			i++
			continue
		case v == "-C":
			if i+1 < len(args) {
				cDirs = append(cDirs, args[i+1])
			}
			i += 2
			continue
		case v == "--namespace":
			i += 2
			continue
		case v == "-c" || strings.HasPrefix(v, "-c") && !strings.HasPrefix(v, "--") || longMatch(v, "--config-env"):
			in.confirmAs(Code, v, "sets configuration that can run other programs")
			return
		case longMatch(v, "--exec-path") && strings.Contains(v, "="):
			in.confirmAs(Code, v, "runs git programs from another directory")
			return
		case v == "-p" || longMatch(v, "--paginate"):
			in.confirmAs(Code, v, "runs a pager")
			return
		case v == "--no-pager" || v == "-P" || v == "--bare" || v == "--literal-pathspecs" || v == "--no-optional-locks" ||
			v == "--glob-pathspecs" || v == "--noglob-pathspecs" || v == "--icase-pathspecs" || v == "--no-replace-objects" ||
			v == "--version" || v == "--exec-path" || v == "--html-path" || v == "--man-path" || v == "--info-path" ||
			strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree=") || strings.HasPrefix(v, "--namespace="):
			i++
			continue
		}
		in.confirmOpt(v, "unknown git option")
		return
	}
	if i >= len(args) {
		return
	}
	sub := args[i].val
	if otherRepo != "" && gitRunsDrivers[sub] {
		in.confirmAs(Code, otherRepo+" "+sub, "a repository named this way may have been committed into a project, and its configuration can name programs that "+sub+" runs")
		return
	}
	if gitRunsDrivers[sub] && in.c.p.repoPrograms != nil {
		dirs, dynamic := gitDirs(in.c, cDirs)
		if dynamic {
			in.confirmAs(Code, "git "+sub, "the repository is known only when the command runs, so its configuration cannot be checked for programs git would run")
			return
		}
		for _, dir := range dirs {
			if what := in.c.p.repoPrograms(dir); what != "" {
				in.confirmAs(Code, "git "+sub, "this repository's configuration can make git run a program ("+what+")")
				return
			}
		}
	}
	rest := args[i+1:]
	for _, a := range rest {
		for _, n := range gitNever {
			if a.option() && longMatch(a.val, n) {
				in.confirmAs(Code, sub+" "+a.val, "writes files or runs other programs")
				return
			}
		}
	}
	extra, ok := gitReadOnly[sub]
	if ok && (extra == nil || extra(rest) == "") {
		return
	}
	if sub == "clean" && otherRepo == "" && len(operands(rest)) == 0 && gitCleansDirs(rest) {
		// Where home (or /) is a repository, clean -fd deletes all of it
		// that is untracked: as final as rm -rf.
		at := arg{val: "."}
		if len(cDirs) > 0 {
			at = cDirs[len(cDirs)-1]
		}
		if root, ok := in.c.p.protectedTarget(at, in.c.cwd); ok {
			in.forbidAs(Delete, "", "deleting the untracked files of "+root+" is never run")
			return
		}
	}
	why := gitWhy[sub]
	if ok && extra(rest) == "runs a pager" {
		in.confirmAs(Code, sub, "runs a pager")
		return
	}
	if why == "" {
		why = "changes the repository or runs other programs"
	}
	cat := Write
	switch sub {
	case "push", "pull", "fetch", "clone", "remote", "ls-remote", "send-email", "request-pull":
		cat = Network
	case "clean", "rm", "prune", "gc":
		cat = Delete
	}
	in.confirmAs(cat, sub, why)
}

// gitCleansDirs reports whether git clean's options force it (-f) and
// make it remove untracked directories (-d).
func gitCleansDirs(args []arg) bool {
	force, dirs := false, false
	for _, a := range args {
		v := a.val
		switch {
		case !a.option():
		case v == "--force":
			force = true
		case strings.HasPrefix(v, "--"):
		default:
			force = force || strings.ContainsRune(v[1:], 'f')
			dirs = dirs || strings.ContainsRune(v[1:], 'd')
		}
	}
	return force && dirs
}

// gitSymbolicRef: `git symbolic-ref [-q] [--short] NAME` reads; a second
// operand sets the reference, and -d deletes it.
func gitSymbolicRef(args []arg) string {
	for _, a := range args {
		if a.option() && a.val != "-q" && a.val != "--quiet" && a.val != "--short" && a.val != "--no-recurse" && a.val != "--recurse" {
			return "changes a reference"
		}
	}
	if len(operands(args)) != 1 {
		return "changes a reference"
	}
	return ""
}

// gitNotesOptions: the one option git notes takes before its verb.
var gitNotesOptions = optionSpec{long: []string{"--ref"}, abbrev: true}

// gitVerbs is read-only when the verb, the first operand once the values
// of the options in spec are set aside, is absent or listed: in `git notes
// --ref list add`, list names the notes and add is the verb.
func gitVerbs(spec optionSpec, verbs ...string) func([]arg) string {
	return func(args []arg) string {
		p := spec.parse(args)
		if p.unsure != "" {
			return "mutates"
		}
		if len(p.ops) == 0 || contains(verbs, p.ops[0].val) {
			return ""
		}
		return "mutates"
	}
}

// gitStash: a bare `git stash` stashes changes away, and so does one whose
// first argument is an option (`git stash -m list` stashes with the
// message "list"), so only list and show, first, read.
func gitStash(args []arg) string {
	if len(args) > 0 && (args[0].val == "list" || args[0].val == "show") {
		return ""
	}
	return "mutates"
}

// gitReflog: git reflog takes its verb only as the first argument; after
// an option everything is given to reflog show.
func gitReflog(args []arg) string {
	if len(args) > 0 && (args[0].val == "expire" || args[0].val == "delete" || args[0].val == "drop") {
		return "mutates"
	}
	return ""
}

func gitGrep(args []arg) string {
	for _, a := range args {
		// -O opens the matching files in a program, also bundled (-nOvim).
		if a.option() && !strings.HasPrefix(a.val, "--") && strings.ContainsRune(a.val, 'O') {
			return "runs a pager"
		}
	}
	return ""
}

// gitBranchOptions and gitTagOptions are the options of git branch and
// git tag that take a value (--column, --color, --abbrev and tag's -n take
// one only written in the same word).
var (
	gitBranchOptions = optionSpec{short: "u", long: []string{"--set-upstream-to", "--contains", "--no-contains", "--merged",
		"--no-merged", "--sort", "--points-at", "--format"}, abbrev: true}
	gitTagOptions = optionSpec{short: "muF", stuck: "n", long: []string{"--message", "--file", "--cleanup", "--local-user", "--contains",
		"--no-contains", "--merged", "--no-merged", "--sort", "--points-at", "--format"}, abbrev: true}
)

// gitBranch and gitTag read only when they list: a listing option, or no
// name at all; any other option, or a name without listing, changes refs.
func gitBranch(args []arg) string {
	return gitListing(gitBranchOptions.parse(args), "creates a branch", func(v string) bool {
		return v == "-a" || v == "-r" || longMatch(v, "--all") || longMatch(v, "--remotes")
	}, func(v string) bool {
		return longMatch(v, "--verbose") || longMatch(v, "--show-current") || longMatch(v, "--no-color") ||
			longMatch(v, "--abbrev") || longMatch(v, "--no-abbrev")
	})
}

func gitTag(args []arg) string {
	return gitListing(gitTagOptions.parse(args), "creates a tag", func(v string) bool {
		return strings.HasPrefix(v, "-n")
	}, func(v string) bool {
		return longMatch(v, "--verify")
	})
}

// gitListing is the check behind gitBranch and gitTag: listing options
// they share or that extraList accepts make a listing; the shared display
// options and those extraHarmless accepts change nothing. A value is never
// an option: `git branch --sort -l new` creates the branch new.
func gitListing(p parsedArgs, creates string, extraList, extraHarmless func(string) bool) string {
	if p.unsure != "" {
		return "mutates"
	}
	listing := false
	for _, o := range p.opts {
		v := o.name
		if o.name == "-n" && o.hasValue {
			v = "-n" + o.value // tag's -n3
		}
		switch {
		case v == "-l" || longMatch(v, "--list") || v == "--contains" || v == "--no-contains" ||
			v == "--merged" || v == "--no-merged" || v == "--points-at" || extraList(v):
			listing = true
		case v == "-v" || v == "--sort" || v == "--format" || longMatch(v, "--color") ||
			longMatch(v, "--column") || longMatch(v, "--no-column") || v == "-i" || longMatch(v, "--ignore-case") || extraHarmless(v):
		default:
			return "mutates"
		}
	}
	if !listing && len(p.ops) > 0 {
		return creates
	}
	return ""
}

func gitRemote(args []arg) string {
	ops := operands(args)
	for _, a := range args {
		if a.option() && a.val != "-v" && !longMatch(a.val, "--verbose") {
			return "mutates"
		}
	}
	if len(ops) == 0 || ops[0].val == "get-url" {
		return ""
	}
	return "mutates"
}

// gitConfigOptions are git config's options that take a value.
var gitConfigOptions = optionSpec{short: "ft", long: []string{"--file", "--blob", "--type", "--default", "--comment", "--value", "--url"}, abbrev: true}

// gitConfig: git 2.46 and later take a subcommand, but only as the very
// first argument (after any option git config keeps the old syntax, in
// which `git config -f get user.name x` sets user.name in the file get);
// the old syntax reads only with a reading option.
func gitConfig(args []arg) string {
	if len(args) > 0 && (args[0].val == "get" || args[0].val == "list") {
		return ""
	}
	p := gitConfigOptions.parse(args)
	if p.unsure != "" {
		return "mutates"
	}
	reading := false
	for _, o := range p.opts {
		v := o.name
		switch {
		case longMatch(v, "--get") || longMatch(v, "--get-all") || longMatch(v, "--get-regexp") || longMatch(v, "--get-urlmatch") ||
			longMatch(v, "--get-color") || longMatch(v, "--get-colorbool") || v == "-l" || longMatch(v, "--list"):
			reading = true
		case longMatch(v, "--global") || longMatch(v, "--local") || longMatch(v, "--system") || longMatch(v, "--worktree") ||
			longMatch(v, "--show-origin") || longMatch(v, "--show-scope") || longMatch(v, "--name-only") || longMatch(v, "--null") ||
			v == "-z" || longMatch(v, "--includes") || longMatch(v, "--no-includes") || v == "--type" || v == "-t" ||
			v == "--default" || v == "--bool" || v == "--int" || v == "--path" || v == "--bool-or-int" || v == "--bool-or-str" ||
			v == "--expiry-date" || v == "--fixed-value" || v == "-f" || v == "--file" || v == "--blob":
		default:
			return "mutates"
		}
	}
	if !reading {
		return "changes settings"
	}
	return ""
}

// gitDirs returns the directories git may start from: where the cd
// commands before it lead, and, since any of them can fail or be skipped,
// every place the shell was before them, each followed by -C. A
// directory is "" when none was given (Classify rather than ClassifyIn).
func gitDirs(c *classifier, cDirs []arg) (dirs []string, dynamic bool) {
	for _, p := range append(slices.Clone(c.cdEarlier), c.cdPath) {
		if p == cdUnknown {
			return nil, true
		}
		dir := c.v.dir
		if p != "" {
			dir = joinRel(dir, p)
		}
		for _, d := range cDirs {
			if !d.plain() || !knownDir(d) {
				return nil, true
			}
			dir = joinRel(dir, d.val)
		}
		dirs = append(dirs, dir)
	}
	return dirs, false
}

func joinRel(base, p string) string {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || base == "" {
		return p
	}
	return joinPath(base, p)
}
