package shell

// familyCases close families of holes: for each, the members are the
// smallest changes that keep a command looking read-only while making it
// write, delete, run code or reach the network. The category names the
// family.
var familyCases = []policyCase{
	// xargs and find -exec append words nobody has seen: whatever they run
	// is judged as a command whose arguments are unknown.
	confirmCase("xargs-wrapper", `printf '%s\n' rm -rf ~/Documents | xargs nice`, "xargs nice: runs the command named by arguments that arrive at run time"),
	confirmCase("xargs-wrapper", "xargs env", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs timeout 5", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs timeout -s KILL", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs setsid", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs stdbuf -oL", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs nohup", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs ionice -c 3", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs busybox", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs -0 xargs", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs nice -n", "runs the command named by arguments"),
	confirmCase("xargs-wrapper", "xargs systemctl", "its arguments arrive at run time"),
	confirmCase("xargs-wrapper", "xargs diskutil", "its arguments arrive at run time"),
	confirmCase("xargs-wrapper", "xargs arch", "its arguments arrive at run time"),
	confirmCase("xargs-wrapper", "xargs eval", "its arguments arrive at run time"),
	confirmCase("xargs-wrapper", "xargs trap", "its arguments arrive at run time"),
	confirmCase("xargs-wrapper", "xargs python3 --version", "its arguments arrive at run time"),
	confirmCase("xargs-wrapper", "xargs launchctl", "xargs launchctl: controls services"),
	confirmCase("xargs-wrapper", "find . -exec nice {} +", "cannot tell which command runs"),
	confirmCase("xargs-wrapper", "find rm -exec env {} \\;", "cannot tell which command runs"),
	confirmCase("xargs-wrapper", "find . -exec file -C {} +", "compiles a magic file"),
	confirmCase("xargs-wrapper", "find -f -Cx . -exec file {} +", "not a known find expression"),
	confirmCase("xargs-wrapper", "find . -exec {} \\;", "computed at run time"),
	confirmCase("xargs-wrapper", "find . -exec ls {} \\; rm -rf x", "not a known find expression"),
	// Option syntax: -J R (BSD) takes a value, -iR and --replace do not
	// take the next word, and replaced words are unknown.
	confirmCase("xargs-wrapper", "xargs -iE rm ls", "xargs rm: deletes files"),
	confirmCase("xargs-wrapper", "xargs --replace rm ls", "xargs rm: deletes files"),
	confirmCase("xargs-wrapper", "xargs -I X env X=1 ls", "cannot tell which command runs"),
	confirmCase("xargs-wrapper", "xargs -J % nice %", "cannot tell which command runs"),
	confirmCase("xargs-wrapper", "xargs --process-slot-var=PATH ls", "sets an environment variable"),
	safeCase("xargs-wrapper", "xargs -J % ls %"),
	safeCase("xargs-wrapper", "xargs -I{} ls -l {}"),
	safeCase("xargs-wrapper", "xargs nice ls"),
	safeCase("xargs-wrapper", "xargs -0 timeout 5 wc -l"),

	// find: an action before the tests acts on everything; rm without -r
	// on name-narrowed matches is an ordinary deletion.
	forbiddenCase("recursive", "find ~ -delete -name x", "deleting everything under ~ is never run"),
	forbiddenCase("recursive", "find / -delete -name '*.log'", "deleting everything under / is never run"),
	forbiddenCase("recursive", "find ~ -exec rm {} + -name x", "deleting everything under ~ is never run"),
	forbiddenCase("recursive", "find ~ -name '*.bak' -exec rm -r {} +", "deleting everything under ~ is never run"),
	confirmCase("delete", "find ~ -name '*.bak' -exec rm {} +", "find -exec rm: deletes files"),
	confirmCase("delete", "find ~/ -iname '*.tmp' -exec rm -f {} \\;", "find -exec rm: deletes files"),

	// find -exec with a read-only program whose arguments are checked.
	safeCase("readonly-text", "find . -name '*.go' -exec grep -l TODO {} +"),
	safeCase("readonly-text", "find . -type f -exec head -n 1 {} \\;"),
	safeCase("readonly-text", "find . -exec wc -l {} +"),
	safeCase("readonly-text", "find . -exec stat {} +"),
	safeCase("readonly-text", "find . -exec file {} +"),
	confirmCase("wrapper", "find . -ok cat {} \\;", "find -ok: runs a command for each file"),
	confirmCase("wrapper", "find . -exec sort -o out {} +", "writes its output to a file"),
	// Redefining what a safe name runs: bash's command hash and alias
	// tables, zsh's function, command and alias tables, and the builtins
	// that fill them.
	confirmCase("redefine-name", "BASH_CMDS[ls]=/bin/rm; ls -rf x", "BASH_CMDS=: changes which program a name runs"),
	confirmCase("redefine-name", "BASH_ALIASES[ls]='rm -rf'; ls x", "BASH_ALIASES=: changes what a name runs"),
	confirmCase("redefine-name", "shopt -s expand_aliases", "shopt expand_aliases: changes how the shell reads commands"),
	confirmCase("redefine-name", "declare -A BASH_CMDS=([ls]=/bin/rm); ls", "BASH_CMDS="),
	confirmCase("redefine-name", "read -a BASH_CMDS <<< /bin/rm", "BASH_CMDS"),
	confirmCase("redefine-name", "functions[ls]='rm -rf x'; ls", "functions=: changes what a name runs"),
	confirmCase("redefine-name", "commands[ls]=/bin/rm; ls x", "commands=: changes which program a name runs"),
	confirmCase("redefine-name", "aliases[ls]='rm -rf'; ls", "aliases="),
	confirmCase("redefine-name", "galiases[x]='; rm -rf y'; echo x", "galiases="),
	confirmCase("redefine-name", "options[globsubst]=on", "options=: changes shell options"),
	confirmCase("redefine-name", "hash -p /bin/rm ls", "hash: changes which programs names run"),
	confirmCase("redefine-name", "enable -f ./x.so ls", "enable: can load code into the shell"),
	confirmCase("redefine-name", "BASH_LOADABLES_PATH=. enable -f x ls", "BASH_LOADABLES_PATH="),
	safeCase("redefine-name", "shopt -s nullglob dotglob; ls *"),
	safeCase("redefine-name", "shopt expand_aliases"),

	// Builtins that run commands they are given, and functions the shell
	// calls by itself.
	confirmCase("builtin-runs", "jobs -x rm -rf build", "jobs rm: deletes files"),
	confirmCase("builtin-runs", "jobs -x ls", "jobs -x: runs a command"),
	confirmCase("builtin-runs", "fc -e rm", "fc: runs an editor and re-runs commands"),
	confirmCase("builtin-runs", "trap 'rm -rf y' INT", "rm: deletes files"),
	confirmCase("builtin-runs", "complete -C 'rm x' ls", "complete: changes completion"),
	confirmCase("builtin-runs", `bind -x '"\C-x": rm x'`, "bind: changes key bindings"),
	confirmCase("builtin-runs", "command_not_found_handle() { ls; }; lss", "the shell runs this function by itself"),
	confirmCase("builtin-runs", "TRAPEXIT() { ls; }", "the shell runs this function by itself"),
	confirmCase("builtin-runs", "precmd() { ls; }", "the shell runs this function by itself"),
	confirmCase("builtin-runs", "PROMPT_COMMAND=ls", "PROMPT_COMMAND="),
	confirmCase("builtin-runs", "PS1='$(rm x)'", "PS1=: runs code when a prompt is shown"),
	confirmCase("builtin-runs", "precmd_functions=(f)", "precmd_functions="),
	safeCase("builtin-runs", "jobs -l"),

	// Names whose subscripts the shell evaluates as arithmetic, running the
	// command substitutions in them, although the parser sees a quoted word.
	confirmCase("subscript-name", "read 'x[$(rm -rf y)]' <<< hi", "read x[$(rm -rf y)]: the shell evaluates the subscript"),
	confirmCase("subscript-name", "read -a 'x[$(rm y)]' <<< hi", "evaluates the subscript"),
	confirmCase("subscript-name", "declare 'x[$(rm -rf y)]=1'", "declare x[$(rm -rf y)]=1: the shell evaluates the subscript"),
	confirmCase("subscript-name", "typeset 'x[$(rm y)]'", "evaluates the subscript"),
	confirmCase("subscript-name", "local 'x[$(rm y)]=1'", "evaluates the subscript"),
	confirmCase("subscript-name", "export 'x[$(rm y)]=1'", "evaluates the subscript"),
	confirmCase("subscript-name", "readonly 'x[$(rm y)]'", "evaluates the subscript"),
	confirmCase("subscript-name", "declare -a 'x=([$(rm y)]=1)'", "read as an array assignment"),
	confirmCase("subscript-name", "declare -a x='([$(rm y)]=1)'", "read as an array assignment"),
	confirmCase("subscript-name", "printf -v 'x[$(rm y)]' %s a", "printf -v: assigns a shell variable"),
	confirmCase("subscript-name", "mapfile 'x[$(rm y)]' < f", "evaluates the subscript"),
	confirmCase("subscript-name", "readarray -t 'x[$(rm y)]' < f", "evaluates the subscript"),
	confirmCase("subscript-name", "unset 'x[$(rm y)]'", "unset x[$(rm y)]: the shell evaluates the subscript"),
	confirmCase("subscript-name", "unset -v 'a[$(rm y)]'", "evaluates the subscript"),
	confirmCase("subscript-name", "[[ -v 'x[$(rm y)]' ]]", "-v evaluates an array subscript"),
	confirmCase("subscript-name", "test -v 'x[$(rm y)]'", "test -v: evaluates an array subscript"),
	confirmCase("subscript-name", "[ 'x[$(rm y)]' -eq 1 ]", "evaluates x[$(rm y)] as arithmetic"),
	confirmCase("subscript-name", "let 'x[$(rm y)]=1'", "arithmetic on a computed value"),
	confirmCase("subscript-name", "(( 'x[$(rm y)]' ))", "arithmetic on a computed value"),
	confirmCase("subscript-name", "wait -p 'x[$(rm y)]'", "evaluates the subscript"),
	confirmCase("subscript-name", "getopts ab 'x[$(rm y)]'", "evaluates the subscript"),
	confirmCase("subscript-name", "printf '%d' 'x[$(rm y)]'", "may be evaluated as arithmetic"),
	confirmCase("subscript-name", "ulimit -n 'x[$(rm y)]'", "is evaluated as arithmetic"),
	confirmCase("subscript-name", "shift 'x[$(rm y)]'", "is evaluated as arithmetic"),
	confirmCase("subscript-name", "exec {PATH}<&0", "PATH=: changes which programs run"),
	safeCase("subscript-name", "read -r -p 'Name: ' name <<< x"),
	safeCase("subscript-name", "read 'x[1]' <<< hi"),
	safeCase("subscript-name", "declare -a xs=(1 2); echo ${xs[1]}"),
	safeCase("subscript-name", "printf '%d items\n' 3"),
	safeCase("subscript-name", "getopts ab opt -a"),

	// set -k makes every later NAME=value word an environment variable,
	// past the checks on assignments; -a exports every assignment.
	confirmCase("set-keyword", "set -k; git diff GIT_EXTERNAL_DIFF=/tmp/x", "set -k: -k changes how the shell reads or exports words"),
	confirmCase("set-keyword", "set -euk; ls LD_PRELOAD=/tmp/x.so", "-k changes"),
	confirmCase("set-keyword", "set -o keyword; ls", "set -o keyword: changes how the shell expands words"),
	confirmCase("set-keyword", "set -ko pipefail", "-k changes"),
	confirmCase("set-keyword", "set -a; PERL5LIB=./x; shasum f", "-a changes"),
	confirmCase("set-keyword", "set -o allexport", "changes how the shell expands words"),
	confirmCase("set-keyword", "shopt -so keyword", "changes how the shell expands words"),
	safeCase("set-keyword", "set -eux"),
	safeCase("set-keyword", "set +x; ls"),
}

func init() { policyCases = append(policyCases, familyCases...) }
