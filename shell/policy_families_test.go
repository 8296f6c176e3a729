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
}

func init() { policyCases = append(policyCases, familyCases...) }
