package shell

import (
	"slices"
	"strconv"
	"strings"
)

// nonInteractive is set for every command: nothing may wait for a person, page
// its output or paint it in colour, because nobody is looking at a terminal.
var nonInteractive = []string{
	"PAGER=cat",
	"GIT_PAGER=cat",
	"MANPAGER=cat",
	"GIT_TERMINAL_PROMPT=0", // git must fail, not ask for a password
	"GIT_EDITOR=true",       // an editor would wait forever on /dev/null
	"TERM=dumb",
	"NO_COLOR=1",
	"CLICOLOR=0",
	"HOMEBREW_NO_AUTO_UPDATE=1", // a read-only brew query must not start an update
}

// dropAlways are removed because they force colour back on or would hand the
// command a terminal it does not have.
// helperEnv is Hark's own marker and means nothing to the command.
var dropAlways = []string{"CLICOLOR_FORCE", "FORCE_COLOR", "COLORTERM", helperEnv}

// secretParts are name parts (split at _ - .) that mark a variable as holding
// a credential. Whole parts only, so AUTHOR or PASSENGER do not match.
var secretParts = []string{
	"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD",
	"PASS", "PASSPHRASE", "PASSCODE", "PASSKEY", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH",
	"APIKEY", "ACCESSKEY", "PRIVATEKEY", "SECRETKEY", "COOKIE", "DSN",
	"PAT", // personal access token: GITHUB_PAT, GITLAB_PAT
}

// secretPairs are two adjacent parts that together name a credential.
var secretPairs = [][2]string{
	{"API", "KEY"}, {"ACCESS", "KEY"}, {"PRIVATE", "KEY"}, {"SECRET", "KEY"},
	{"SESSION", "KEY"}, {"SIGNING", "KEY"}, {"ENCRYPTION", "KEY"},
}

// secretWords mark a credential anywhere in a name, also run together with
// other words (PGPASSWORD, MYSECRET, BW_SESSION, CI_JOB_JWT); they are too
// specific to mean anything else. SESSION has exceptions (see notSecret).
var secretWords = []string{
	"PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "APIKEY", "PRIVATEKEY", "ACCESSKEY",
	"SESSION", "JWT", "WEBHOOK",
}

// passWords are English words ending in PASS that name no password, so that
// a part ending in PASS (PGPASS, SSHPASS) counts but COMPASS_HOME does not.
var passWords = []string{"COMPASS", "BYPASS", "ENCOMPASS", "SURPASS", "TRESPASS", "OVERPASS", "UNDERPASS"}

// secretNames are well-known credentials that no rule above catches.
var secretNames = []string{"MYSQL_PWD"}

// notSecret are names that match a rule above but hold no secret: the agent
// socket's path and the desktop session's bus address are addresses, not
// keys, and the session's type or name is a word. notSecretPrefixes are the
// same for families of names.
var (
	notSecret         = []string{"SSH_AUTH_SOCK", "DESKTOP_SESSION", "GDMSESSION", "SESSION_MANAGER"}
	notSecretPrefixes = []string{"XDG_SESSION_", "DBUS_SESSION_"}
)

// isSecretName reports whether an environment variable's name looks like it
// holds a credential. A name ending in _KEY counts too (OPENAI_KEY,
// STRIPE_KEY); a bare KEY part elsewhere does not (GPG_KEY_ID).
func isSecretName(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(notSecret, up) || slices.ContainsFunc(notSecretPrefixes, func(p string) bool { return strings.HasPrefix(up, p) }) {
		return false
	}
	if slices.Contains(secretNames, up) || slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(up, w) }) {
		return true
	}
	parts := strings.FieldsFunc(up, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, p := range parts {
		if slices.Contains(secretParts, p) {
			return true
		}
		// PWD alone is the working folder; as a part of a longer name
		// (DB_PWD, MYSQL_PWD) it is a password.
		if p == "PWD" && len(parts) > 1 {
			return true
		}
		// Run together with a program's name: PGPASS, SSHPASS, GHTOKEN.
		if (strings.HasSuffix(p, "PASS") && !slices.Contains(passWords, p)) || strings.HasSuffix(p, "TOKEN") || strings.HasSuffix(p, "TOKENS") {
			return true
		}
		if i > 0 {
			for _, pair := range secretPairs {
				if parts[i-1] == pair[0] && p == pair[1] {
					return true
				}
			}
		}
	}
	return len(parts) > 1 && parts[len(parts)-1] == "KEY"
}

// hasURLCredentials reports whether value holds a URL with a password in
// it (postgres://user:pass@host/db, redis://:pass@host): whatever the
// variable is called, such a value is a credential. A user name alone
// (ssh://git@host) is not.
func hasURLCredentials(value string) bool {
	for rest := value; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		rest = rest[i+3:]
		authority := rest
		if j := strings.IndexAny(authority, "/?# \t\n,;"); j >= 0 {
			authority = authority[:j]
		}
		at := strings.LastIndexByte(authority, '@')
		if at < 0 {
			continue
		}
		if _, pass, ok := strings.Cut(authority[:at], ":"); ok && pass != "" {
			return true
		}
	}
}

// tokenShapes are the formats of well-known credentials, found anywhere in
// a value whatever the variable is called (STRIPE_SK, SLACK_BOT): the
// prefix the service puts in front of every key it issues, and how many
// characters of the key's own alphabet at least follow it. Prefixes this
// distinctive mean a key; a shorter tail is a name or an example.
var tokenShapes = []struct {
	prefix string
	min    int
}{
	{"sk_live_", 16}, {"sk_test_", 16}, {"rk_live_", 16}, {"rk_test_", 16}, {"whsec_", 16}, // Stripe
	{"xoxb-", 10}, {"xoxp-", 10}, {"xoxa-", 10}, {"xoxr-", 10}, {"xoxs-", 10}, {"xoxe-", 10}, {"xapp-", 10}, // Slack
	{"ghp_", 20}, {"gho_", 20}, {"ghu_", 20}, {"ghs_", 20}, {"ghr_", 20}, {"github_pat_", 20}, // GitHub
	{"glpat-", 20}, {"gldt-", 20}, {"glrt-", 20}, // GitLab
	{"npm_", 30}, {"pypi-", 50}, {"hf_", 30}, {"dop_v1_", 40}, {"xai-", 40},
}

// hasSecretValue reports whether value holds a credential by its shape: a
// token of a well-known format (tokenShapes, AWS access key IDs, Google API
// keys, OpenAI-style sk- keys, JWTs), a private key, a URL with a password
// in it, or a connection string's password (JDBC, ADO.NET, libpq).
func hasSecretValue(value string) bool {
	if value == "" {
		return false
	}
	if hasURLCredentials(value) || hasConnPassword(value) ||
		(strings.Contains(value, "-----BEGIN") && strings.Contains(value, "PRIVATE KEY-----")) {
		return true
	}
	words := strings.FieldsFunc(value, func(r rune) bool { return !isKeyChar(r) && r != '.' })
	return slices.ContainsFunc(words, isTokenShaped)
}

// isKeyChar is a character of the alphabets keys are written in (base62,
// base64url).
func isKeyChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// keyTail counts how many characters of a key's alphabet s holds from its
// start.
func keyTail(s string) int {
	n := 0
	for n < len(s) && isKeyChar(rune(s[n])) {
		n++
	}
	return n
}

func isTokenShaped(w string) bool {
	for _, s := range tokenShapes {
		if rest, ok := strings.CutPrefix(w, s.prefix); ok && keyTail(rest) >= s.min {
			return true
		}
	}
	// AWS access key IDs: AKIA (long-term) or ASIA (temporary) and 16
	// upper-case letters or digits.
	if len(w) == 20 && (strings.HasPrefix(w, "AKIA") || strings.HasPrefix(w, "ASIA")) &&
		strings.IndexFunc(w, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) < 0 {
		return true
	}
	// Google API keys: AIza and 35 more.
	if rest, ok := strings.CutPrefix(w, "AIza"); ok && len(rest) == 35 && keyTail(rest) == 35 {
		return true
	}
	// OpenAI and Anthropic keys: sk- and a long random tail, which has
	// digits where a long hyphenated name would have none.
	if rest, ok := strings.CutPrefix(w, "sk-"); ok && keyTail(rest) >= 32 && strings.ContainsAny(rest, "0123456789") {
		return true
	}
	// A JWT: header.payload.signature, the first two base64url JSON
	// objects, so both start with eyJ ({").
	if parts := strings.Split(w, "."); len(parts) == 3 && strings.HasPrefix(parts[0], "eyJ") && strings.HasPrefix(parts[1], "eyJ") &&
		len(parts[0]) >= 10 && len(parts[1]) >= 10 {
		return true
	}
	return false
}

// hasConnPassword reports whether value is a connection string with a
// password in it: password=, pwd= or passwd= as one of its settings
// (jdbc:sqlserver://h;password=…, jdbc:postgresql://h/db?password=…,
// Server=h;Password=…;, host=h password=…), or Oracle's
// jdbc:oracle:thin:user/password@host.
func hasConnPassword(value string) bool {
	lower := strings.ToLower(value)
	for _, key := range []string{"password", "pwd", "passwd"} {
		for i := 0; ; {
			j := strings.Index(lower[i:], key)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(key)
			if at > 0 && !strings.ContainsRune(";?& \t\n", rune(lower[at-1])) {
				continue // part of a longer word: passwordless, oldpwd
			}
			rest := strings.TrimLeft(lower[i:], " ")
			if v, ok := strings.CutPrefix(rest, "="); ok {
				if v = strings.TrimLeft(v, " "); v != "" && !strings.ContainsRune(";& \t\n", rune(v[0])) {
					return true
				}
			}
		}
	}
	if _, rest, ok := strings.Cut(lower, "jdbc:oracle:"); ok {
		if _, rest, ok = strings.Cut(rest, ":"); ok { // the driver: thin, oci
			if creds, _, ok := strings.Cut(rest, "@"); ok {
				if user, pass, ok := strings.Cut(creds, "/"); ok && user != "" && pass != "" && !strings.ContainsAny(user, ": ") {
					return true
				}
			}
		}
	}
	return false
}

// isSecret reports whether a variable holds a credential, by its name or by
// its value.
func isSecret(name, value string) bool { return isSecretName(name) || hasSecretValue(value) }

// zygoteEnv is the zygote's own environment: Hark's without secrets (every
// command gets its own environment; the zygote only needs the Go runtime's
// settings), and the helper marker.
func zygoteEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if name, value, _ := strings.Cut(kv, "="); !isSecret(name, value) {
			env = append(env, kv)
		}
	}
	return append(env, helperEnv+"=1")
}

// Default PATHs for a process that arrived with none, which happens to apps
// started by launchd or a desktop session.
const (
	defaultPathDarwin = "/usr/bin:/bin:/usr/sbin:/sbin"
	defaultPathLinux  = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// darwinExtraPath are Homebrew's folders (Apple silicon, then Intel). An app
// started from Finder does not inherit the login shell's PATH, so without
// these `brew`, `rg` or `jq` would be "command not found".
var darwinExtraPath = []string{"/opt/homebrew/bin", "/opt/homebrew/sbin", "/usr/local/bin"}

// envConfig is everything commandEnv needs, so that it stays a pure function
// that tests can drive for either operating system.
type envConfig struct {
	goos    string   // "darwin", "linux", …
	environ []string // the parent's environment, KEY=VALUE
	keep    []string // secret-looking names to pass through anyway (exact names)
	home    string   // HOME when the parent has none
	tmpDir  string   // TMPDIR (and TMPPREFIX) for the command; "" leaves the parent's
}

// commandEnv builds a command's environment from the parent's: secrets
// dropped unless kept, non-interactive settings forced, PATH completed.
// The result is sorted by name so that it is deterministic.
func commandEnv(c envConfig) []string {
	vars := make(map[string]string, len(c.environ)+len(nonInteractive)+3)
	for _, kv := range c.environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(dropAlways, name) {
			continue
		}
		if isSecret(name, value) && !slices.Contains(c.keep, name) {
			continue
		}
		vars[name] = value
	}
	for _, kv := range nonInteractive {
		name, value, _ := strings.Cut(kv, "=")
		vars[name] = value
	}
	if vars["HOME"] == "" && c.home != "" {
		vars["HOME"] = c.home
	}
	if c.tmpDir != "" {
		vars["TMPDIR"] = c.tmpDir
		vars["TMPPREFIX"] = zshTmpPrefix(c.tmpDir)
	}
	vars["PATH"] = commandPath(c.goos, vars["PATH"])

	out := make([]string, 0, len(vars))
	for name, value := range vars {
		out = append(out, name+"="+value)
	}
	slices.Sort(out)
	return out
}

// zshTmpPrefix is TMPPREFIX for a run whose private temporary folder is
// tmpDir. zsh ignores TMPDIR for here-documents, here-strings and =(…): it
// writes them to $TMPPREFIX followed by a random suffix, and its default
// /tmp/zsh lies outside the only folder a sandboxed command may write, so
// `cat <<EOF` would fail there. Other shells ignore the variable.
func zshTmpPrefix(tmpDir string) string { return tmpDir + "/zsh" }

// withTmpDir returns base, a commandEnv result, with TMPDIR and TMPPREFIX
// set for tmpDir, exactly as commandEnv would have built it; "" returns base
// itself, which callers must not modify.
func withTmpDir(base []string, tmpDir string) []string {
	if tmpDir == "" {
		return base
	}
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "TMPDIR=") && !strings.HasPrefix(kv, "TMPPREFIX=") {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR="+tmpDir, "TMPPREFIX="+zshTmpPrefix(tmpDir))
	slices.Sort(out)
	return out
}

// gitGuards are set for every sandboxed command: git reads the
// repository's own .git/config, which anyone who wrote the repository
// controls, and several of its keys name programs that read-only commands
// would run (git status runs core.fsmonitor; hooks, the pager, signature
// and credential programs). These settings rank as command-line options
// (GIT_CONFIG_COUNT), above the repository's, so they win. The system
// config and system attributes are skipped. What cannot be overridden this
// way (external diff and textconv drivers that a repository's config and
// attributes name) stays contained by the sandbox, and the policy asks
// where it sees them.
var gitGuards = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.attributesFile", "/dev/null"},
	{"core.sshCommand", "false"},
	{"core.askPass", "false"},
	{"credential.helper", ""},
	{"gpg.program", "false"},
	{"gpg.ssh.program", "false"},
	{"gpg.x509.program", "false"},
	{"safe.bareRepository", "explicit"}, // a bare repository committed inside a project is not entered by cd or -C
	{"protocol.allow", "never"},
}

// gitProgramVariables are dropped from a sandboxed command's environment:
// each names a program git would run, or overrides the guards above.
var gitProgramVariables = []string{
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXEC_PATH",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_PROXY_COMMAND", "GIT_SEQUENCE_EDITOR",
}

// sandboxVars are the parent's variables a sandboxed command keeps, with
// those starting with sandboxVarPrefixes, the keepEnv names and what Hark
// sets itself (nonInteractive, TMPDIR, the git guards): where to find
// programs and the user's files, who the user is, and how to format text.
// Everything else is dropped, whatever its name: a read-only command
// needs no credential, and a list of secret-looking names can never be
// complete, while a list of harmless ones can.
var sandboxVars = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TERM", "COLUMNS", "LINES",
	"TZ", "LANG", "LANGUAGE", "TMPDIR", "HOSTNAME",
	"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CACHE_HOME", "XDG_STATE_HOME",
	// Where toolchains live, so that `go env` or `cargo tree` find theirs.
	"GOPATH", "GOROOT", "GOBIN", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME", "VIRTUAL_ENV",
	"HOMEBREW_PREFIX", "HOMEBREW_CELLAR", "HOMEBREW_REPOSITORY",
}

var sandboxVarPrefixes = []string{"LC_"}

// sandboxBase is base, a commandEnv result, cut down to what a sandboxed
// command may see (see sandboxVars); keep names more to pass through.
// Built once per Runner; sandboxEnv then adds each run's own settings.
func sandboxBase(base, keep []string) []string {
	out := make([]string, 0, len(sandboxVars)+len(nonInteractive))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if sandboxVar(name) || slices.Contains(keep, name) {
			out = append(out, kv)
		}
	}
	return out
}

func sandboxVar(name string) bool {
	if slices.Contains(sandboxVars, name) || slices.ContainsFunc(sandboxVarPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
		return true
	}
	return slices.ContainsFunc(nonInteractive, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// scopedEnv is base, a commandEnv result, for an approved run held to its
// scope: TMPDIR and TMPPREFIX set for tmpDir, git as the user set it up
// (its hooks, signing and credential helpers run inside the scope).
func scopedEnv(base []string, tmpDir string) []string {
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if name, _, _ := strings.Cut(kv, "="); name != "TMPDIR" && name != "TMPPREFIX" {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+tmpDir, "TMPPREFIX="+zshTmpPrefix(tmpDir))
}

// sandboxEnv is base, a commandEnv result, for a sandboxed run: TMPDIR and
// TMPPREFIX set for tmpDir, and git's program hooks neutralised.
func sandboxEnv(base []string, tmpDir string) []string {
	out := make([]string, 0, len(base)+2*len(gitGuards)+5)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TMPDIR" || name == "TMPPREFIX" || slices.Contains(gitProgramVariables, name) || strings.HasPrefix(name, "GIT_CONFIG_") {
			continue
		}
		out = append(out, kv)
	}
	// Appended, not sorted in: the order of an environment means nothing,
	// and this is built for every sandboxed command.
	out = append(out, "TMPDIR="+tmpDir, "TMPPREFIX="+zshTmpPrefix(tmpDir),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_CONFIG_COUNT="+strconv.Itoa(len(gitGuards)))
	for i, g := range gitGuards {
		n := strconv.Itoa(i)
		out = append(out, "GIT_CONFIG_KEY_"+n+"="+g[0], "GIT_CONFIG_VALUE_"+n+"="+g[1])
	}
	return out
}

// commandPath fills an empty PATH with the system default and, on macOS,
// puts Homebrew's folders in front when they are missing, as `brew shellenv`
// would in a terminal.
func commandPath(goos, path string) string {
	if path == "" {
		path = defaultPathLinux
		if goos == "darwin" {
			path = defaultPathDarwin
		}
	}
	if goos != "darwin" {
		return path
	}
	have := strings.Split(path, ":")
	var missing []string
	for _, dir := range darwinExtraPath {
		if !slices.Contains(have, dir) {
			missing = append(missing, dir)
		}
	}
	if len(missing) == 0 {
		return path
	}
	return strings.Join(missing, ":") + ":" + path
}

// withDirs is env with PWD and OLDPWD both the folder the command starts
// in: the policy judges $PWD, $OLDPWD and ~- as that folder (the
// parent's OLDPWD would be a folder nobody can tell from the command), so
// what it judges and what runs agree.
func withDirs(env []string, dir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") && !strings.HasPrefix(kv, "OLDPWD=") {
			out = append(out, kv)
		}
	}
	return append(out, "PWD="+dir, "OLDPWD="+dir)
}
