package policy

import "strings"

// harmlessEnv are environment variables that change only how programs
// format or sort what they print. Every program reads its environment, and
// interpreters, linkers and tools take library paths, startup files,
// plugins and options from it (PERL5LIB, PYTHONSTARTUP, NODE_OPTIONS,
// LD_PRELOAD, GCONV_PATH, APT_CONFIG …): nobody can list them all, so an
// environment assignment is safe only if its name is here.
var harmlessEnv = map[string]bool{
	"LANG": true, "LANGUAGE": true, "TZ": true, "COLUMNS": true, "LINES": true, "NO_COLOR": true,
	"CLICOLOR": true, "CLICOLOR_FORCE": true, "FORCE_COLOR": true, "COLORTERM": true, "TERM": true,
	"LS_COLORS": true, "LSCOLORS": true, "GREP_COLOR": true, "GREP_COLORS": true, "TIME_STYLE": true,
	"BLOCK_SIZE": true, "BLOCKSIZE": true, "DF_BLOCK_SIZE": true, "DU_BLOCK_SIZE": true, "LS_BLOCK_SIZE": true,
	"QUOTING_STYLE": true, "TABSIZE": true, "MANWIDTH": true, "SOURCE_DATE_EPOCH": true,
	"RUST_BACKTRACE": true, "RUST_LOG": true, "GOOS": true, "GOARCH": true, "CGO_ENABLED": true,
	"PYTHONDONTWRITEBYTECODE": true, "PYTHONUNBUFFERED": true, "PYTHONIOENCODING": true,
}

// envVariable says why putting name in a program's environment is not
// known to be harmless, or "".
func envVariable(name string) string {
	if harmlessEnv[name] || strings.HasPrefix(name, "LC_") && plainName(name) && name != "LC_" {
		return ""
	}
	if why := riskyVariable(name); why != "" {
		return why
	}
	return "not an environment variable known to be harmless; programs can take code, plugins or options from their environment"
}

// riskyVariable says why assigning name changes what commands do, or "".
// It judges shell variables, which reach programs only when exported: a
// list of the names and classes of names that programs load code or
// options from (library paths, startup files, plugins, configuration).
func riskyVariable(name string) string {
	if why, ok := riskyVariables[name]; ok {
		return why
	}
	for _, prefix := range riskyPrefixes {
		if strings.HasPrefix(name, prefix) {
			return "changes how programs load or run"
		}
	}
	for _, suffix := range riskySuffixes {
		if strings.HasSuffix(name, suffix) {
			return "can make a program run other code"
		}
	}
	return ""
}

// riskyPrefixes name families of variables that interpreters, linkers,
// package managers and tools read code, plugins or options from.
var riskyPrefixes = []string{
	"LD_", "DYLD_", "GIT_", "BASH_FUNC_", "BASH_", "DOCKER_", "HOMEBREW_", "PIP_", "NPM_CONFIG_", "npm_config_",
	"PERL", "PYTHON", "RUBY", "GEM_", "BUNDLE_", "NODE_", "NVM_", "VOLTA_", "YARN_", "PNPM_", "DENO_", "BUN_",
	"CARGO_", "RUSTUP_", "RUSTC", "RUSTDOC", "RUSTFLAGS", "GO", "JAVA_", "_JAVA_", "JDK_", "CLASSPATH",
	"MAVEN_", "GRADLE_", "LUA_", "TCL", "PHP", "COMPOSER_", "R_", "APT_", "DPKG_", "DEBCONF_", "PYENV_",
	"RBENV_", "NODENV_", "ASDF_", "MISE_", "CONDA", "VIRTUAL_ENV", "POETRY_", "UV_", "PIPENV_", "GCONV_",
	"LOCPATH", "NLSPATH", "GLIBC_", "MALLOC_", "TERMCAP", "MAGIC", "LESS", "MAN", "SSH_", "GPG_", "GNUPG",
	"OPENSSL_", "SSL_", "CURL_", "XDG_", "ZDOTDIR", "ZSH", "KSH_", "FPATH", "INPUTRC", "EXINIT", "VIM",
	"MYVIMRC", "AWKPATH", "AWKLIBPATH", "RIPGREP_", "FZF_", "COMPOSE_", "KUBECONFIG", "AWS_", "CLOUDSDK_",
	"DOTNET_", "CORECLR_", "COMPlus_", "ELECTRON_", "QT_", "GTK_", "GDK_", "GIO_", "DBUS_", "TMUX",
	"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy",
}

// riskySuffixes name classes of variables that point programs at code,
// plugins, configuration or other programs.
var riskySuffixes = []string{
	"_COMMAND", "_CMD", "_PROGRAM", "_EDITOR", "_PAGER", "_ASKPASS", "_OPTIONS", "OPT", "OPTS", "_SHELL",
	"PATH", "LIB", "_LIBS", "_HOOK", "_HOOKS", "_PLUGIN", "_PLUGINS", "CONFIG", "_RC", "STARTUP",
	"_HOME", "_DIR", "_DIRS", "_ROOT", "_PREFIX", "_FILE", "_INIT", "_PRELOAD", "_ENV",
}

var riskyVariables = map[string]string{
	"PATH":           "changes which programs run",
	"IFS":            "changes how the shell splits words",
	"BASH_ENV":       "makes every shell run a file first",
	"ENV":            "makes every shell run a file first",
	"ZDOTDIR":        "makes zsh run other startup files",
	"PROMPT_COMMAND": "runs code before every prompt",
	"PS4":            "can run code while tracing",
	"SHELLOPTS":      "changes shell options",
	"BASHOPTS":       "changes shell options",
	"GLOBIGNORE":     "changes how globs expand",
	"CDPATH":         "changes where cd goes",
	"HOME":           "changes what ~ means",
	// The policy trusts these to hold a directory or a user name (see
	// trustedParams); assigned, they could hold /dev/tcp/… or a glob.
	"PWD":           "changes what $PWD means to later commands",
	"OLDPWD":        "changes what $OLDPWD means to later commands",
	"TMPDIR":        "changes what $TMPDIR means to later commands",
	"USER":          "changes what $USER means to later commands",
	"LOGNAME":       "changes what $LOGNAME means to later commands",
	"SHELL":         "changes which shell programs start",
	"PAGER":         "runs another program as pager",
	"MANPAGER":      "runs another program as pager",
	"EDITOR":        "runs another program as editor",
	"VISUAL":        "runs another program as editor",
	"BROWSER":       "runs another program as browser",
	"LESSOPEN":      "makes less run a program",
	"LESSCLOSE":     "makes less run a program",
	"PYTHONSTARTUP": "makes Python run a file",
	"PYTHONPATH":    "changes which code Python loads",
	"PYTHONHOME":    "changes which code Python loads",
	"PERL5LIB":      "changes which code Perl loads",
	"RUBYLIB":       "changes which code Ruby loads",
	"NODE_PATH":     "changes which code Node loads",
	"TMOUT":         "changes shell behaviour",
	"HISTFILE":      "makes the shell write history to a file",
	"TERMINFO":      "changes terminal capabilities",
	"MAIL":          "changes shell behaviour",
	"MAILPATH":      "changes shell behaviour",
	// Assigning these evaluates the value as arithmetic, which can run commands.
	// Configuration that can name programs to run (git's core.fsmonitor,
	// ripgrep's --pre, glibc iconv modules, a Go toolchain to download,
	// docker over ssh).
	"XDG_CONFIG_HOME":     "makes programs read other configuration, which can run programs",
	"RIPGREP_CONFIG_PATH": "makes rg read options that can run a program",
	"GCONV_PATH":          "makes iconv load code from another directory",
	"GOFLAGS":             "adds flags to every go command",
	"GOENV":               "makes go read other settings",
	"GOTOOLCHAIN":         "makes go download and run another toolchain",
	"GNUPGHOME":           "makes gpg, which git runs to check signatures, read other configuration",
	"TERMINFO_DIRS":       "changes terminal capabilities",
	// zsh ties these arrays to PATH and friends: path=(/tmp/x $path) is PATH.
	"path":        "changes which programs run",
	"fpath":       "changes which functions zsh loads",
	"cdpath":      "changes where cd goes",
	"module_path": "changes which modules zsh loads",
	"NULLCMD":     "names the program zsh runs for a bare redirection",
	"READNULLCMD": "names the program zsh runs for a bare redirection",
	"STTY":        "makes zsh run stty before each command",
	"RANDOM":      "is evaluated as arithmetic, which can run commands",
	"SRANDOM":     "is evaluated as arithmetic, which can run commands",
	"OPTIND":      "is evaluated as arithmetic, which can run commands",
	// What a name runs: bash's command hash and alias tables, zsh's
	// tables of functions, commands, aliases and options, loadable
	// builtins, and names that are skipped in the search path.
	"BASH_CMDS":           "changes which program a name runs",
	"BASH_ALIASES":        "changes what a name runs",
	"BASH_LOADABLES_PATH": "changes where enable -f loads builtins from",
	"EXECIGNORE":          "changes which programs run",
	"functions":           "changes what a name runs",
	"dis_functions":       "changes what a name runs",
	"functions_source":    "changes what a name runs",
	"commands":            "changes which program a name runs",
	"aliases":             "changes what a name runs",
	"galiases":            "changes what a name runs",
	"saliases":            "changes what a name runs",
	"dis_aliases":         "changes what a name runs",
	"dis_galiases":        "changes what a name runs",
	"dis_saliases":        "changes what a name runs",
	"builtins":            "changes what a name runs",
	"reswords":            "changes what a name runs",
	"options":             "changes shell options",
	"nameddirs":           "changes what ~name means",
	"parameters":          "changes shell variables",
	"modules":             "changes which modules zsh loads",
	// Code run at prompts and other events, and prompt strings, whose
	// command substitutions run when they are shown.
	"PS0": "runs code when a prompt is shown", "PS1": "runs code when a prompt is shown",
	"PS2": "runs code when a prompt is shown", "PS3": "runs code when a prompt is shown",
	"PROMPT": "runs code when a prompt is shown", "PROMPT2": "runs code when a prompt is shown",
	"PROMPT3": "runs code when a prompt is shown", "PROMPT4": "runs code when a prompt is shown",
	"RPROMPT": "runs code when a prompt is shown", "RPS1": "runs code when a prompt is shown",
	"RPROMPT2": "runs code when a prompt is shown", "RPS2": "runs code when a prompt is shown",
	"precmd_functions": "runs code before every prompt", "preexec_functions": "runs code before every command",
	"chpwd_functions": "runs code when the directory changes", "periodic_functions": "runs code periodically",
	"zshaddhistory_functions": "runs code for every command", "zshexit_functions": "runs code when the shell exits",
	"PERIOD": "runs code periodically", "BASH_XTRACEFD": "makes tracing write to a descriptor",
	"POSIXLY_CORRECT": "changes how the shell reads commands",
}
