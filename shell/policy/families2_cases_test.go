package policy

// optionValueCases: an option's value is never the verb. Each program's
// options that take a value are consumed as its own parser consumes them
// (-pVALUE, -p VALUE, -ap VALUE, --opt=VALUE, --opt VALUE and the GNU
// abbreviations the program accepts), so the verb is what the program
// runs, not a word that only looks like one.
var optionValueCases = []policyCase{
	confirmCase("option-value", "systemctl -p status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --property status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --prop status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --propert status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl -pstatus stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl -ap status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl -P status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl -t list-units stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --type list-units stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --state status restart ssh", "systemctl restart: controls services"),
	confirmCase("option-value", "systemctl -o cat kill ssh", "systemctl kill: controls services"),
	confirmCase("option-value", "systemctl -s status kill ssh", "systemctl kill: controls services"),
	confirmCase("option-value", "systemctl --signal status kill ssh", "systemctl kill: controls services"),
	confirmCase("option-value", "systemctl --root status enable ssh", "systemctl enable: controls services"),
	confirmCase("option-value", "systemctl --kill-whom status kill ssh", "systemctl kill: controls services"),
	confirmCase("option-value", "systemctl -n status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --lines status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl --job-mode status stop ssh", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl -- stop status", "systemctl stop: controls services"),
	confirmCase("option-value", "systemctl -[p] status stop ssh", "cannot tell what systemctl does"),
	confirmCase("option-value", "systemctl status $opt", "argument is only known at run time and could be an option"),
	confirmCase("option-value", "systemctl --pro=x -Hhost status", "acts on another machine"),
	forbiddenCase("option-value", "systemctl -p show poweroff --force --force", "systemctl poweroff: shutting down"),
	forbiddenCase("option-value", "systemctl --property show reboot", "systemctl reboot: shutting down"),
	forbiddenCase("option-value", "systemctl -p status start reboot.target", "systemctl start reboot.target: shutting down"),
	forbiddenCase("option-value", "loginctl -p x poweroff", "loginctl poweroff: shutting down"),
	forbiddenCase("option-value", "loginctl --property x reboot", "loginctl reboot: shutting down"),
	forbiddenCase("option-value", "loginctl -Pfoo -s KILL poweroff", "loginctl poweroff: shutting down"),
	confirmCase("option-value", "git notes --ref list add -m x HEAD", "git notes: changes the repository"),
	confirmCase("option-value", "git notes --ref show remove HEAD", "git notes: changes the repository"),
	confirmCase("option-value", "git notes --ref=x --ref list copy a b", "git notes: changes the repository"),
	confirmCase("option-value", "git stash -m list", "git stash: stashes away changes"),
	confirmCase("option-value", "git stash --message list", "git stash: stashes away changes"),
	confirmCase("option-value", "git stash -m show", "git stash: stashes away changes"),
	confirmCase("option-value", "git stash -q list", "git stash: stashes away changes"),
	confirmCase("option-value", "git stash push -m list", "git stash: stashes away changes"),
	confirmCase("option-value", "git config -f get user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config --file get user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config --file=x get user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config -f list user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config --global get user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config --file --get user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config --blob --list user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git config --fil get user.name x", "git config --fil"),
	confirmCase("option-value", "git config --type --get user.name x", "git config: changes git settings"),
	confirmCase("option-value", "git branch --sort -l new", "git branch: creates"),
	confirmCase("option-value", "git branch --format -a new", "git branch: creates"),
	confirmCase("option-value", "git branch --format --list new", "git branch: creates"),
	confirmCase("option-value", "git tag --sort -l v2", "git tag: creates or deletes tags"),
	confirmCase("option-value", "git tag --format --list v2", "git tag: creates or deletes tags"),
	confirmCase("option-value", "git tag -m -l v2", "git tag: creates or deletes tags"),
	confirmCase("option-value", "ip -n mon addr flush dev eth0", "ip flush: changes network configuration"),
	confirmCase("option-value", "ip -netns mon addr flush dev eth0", "ip flush: changes network configuration"),
	confirmCase("option-value", "ip -f monitor link set lo down", "ip set: changes network configuration"),
	confirmCase("option-value", "ip --family monitor link set lo down", "ip set: changes network configuration"),
	confirmCase("option-value", "ip -l mon route flush all", "ip flush: changes network configuration"),
	confirmCase("option-value", "ip -resolve addr", "ip -resolve: looks names up on the network"),
	confirmCase("option-value", "ip -res addr", "looks names up on the network"),
	confirmCase("option-value", "ip -r addr", "looks names up on the network"),
	confirmCase("option-value", "ip -ba cmds", "ip -ba: runs ip commands from a file"),
	// The same programs, spelled the everyday way, stay safe.
	safeCase("option-value", "systemctl status ssh"),
	safeCase("option-value", "systemctl -p ActiveState show ssh"),
	safeCase("option-value", "systemctl --property=ActiveState show ssh"),
	safeCase("option-value", "systemctl --property ActiveState,SubState show ssh"),
	safeCase("option-value", "systemctl -pActiveState show ssh"),
	safeCase("option-value", "systemctl --no-pager -l status ssh"),
	safeCase("option-value", "systemctl --no-pag status ssh"),
	safeCase("option-value", "systemctl -t service --state=running list-units"),
	safeCase("option-value", "systemctl -P MainPID show ssh"),
	safeCase("option-value", "systemctl status ssh -n 50"),
	safeCase("option-value", "git notes"),
	safeCase("option-value", "git notes --ref=review list"),
	safeCase("option-value", "git notes --ref review show HEAD"),
	safeCase("option-value", "git stash list --oneline"),
	safeCase("option-value", "git stash show -p stash@{0}"),
	safeCase("option-value", "git config --get user.name"),
	safeCase("option-value", "git config --file .gitmodules --get-regexp path"),
	safeCase("option-value", "git config -f .gitmodules -l"),
	safeCase("option-value", "git config --type=bool --get core.bare"),
	safeCase("option-value", "git config get user.name"),
	safeCase("option-value", "git config list"),
	safeCase("option-value", "git branch --sort=-committerdate"),
	safeCase("option-value", "git branch --sort -committerdate --format '%(refname)'"),
	safeCase("option-value", "git branch -lv"),
	safeCase("option-value", "git branch --contains HEAD"),
	safeCase("option-value", "git tag -n3 -l"),
	safeCase("option-value", "git tag --sort=-v:refname"),
	safeCase("option-value", "git reflog -n 3 expire"),
	safeCase("option-value", "ip -n blue addr show"),
	safeCase("option-value", "ip -f inet addr show"),
	safeCase("option-value", "ip -br -c a"),
	safeCase("option-value", "ip -netns x monitor"),
}

func init() {
	policyCases = append(policyCases, optionValueCases...)
}

// watchCases: watch runs its command as an argument list with -x and as
// shell text otherwise, and its flags (-g, --chgexit, -d) take no value.
var watchCases = []policyCase{
	confirmCase("watch", "watch -x find . '#' -delete", "watch find -delete: deletes files"),
	confirmCase("watch", "watch --exec find . '#' -delete", "watch find -delete: deletes files"),
	confirmCase("watch", "watch --ex find . '#' -delete", "watch find -delete: deletes files"),
	confirmCase("watch", "watch -tx find . '#' -delete", "watch find -delete: deletes files"),
	confirmCase("watch", "watch -n 1 -x find . ';' -delete", "watch find -delete: deletes files"),
	confirmCase("watch", "watch -g rm ls", "rm: deletes files"),
	confirmCase("watch", "watch --chgexit rm ls", "rm: deletes files"),
	confirmCase("watch", "watch --chg rm ls", "rm: deletes files"),
	confirmCase("watch", "watch -eg rm ls", "rm: deletes files"),
	confirmCase("watch", "watch -d rm ls", "rm: deletes files"),
	confirmCase("watch", "watch --differences rm ls", "rm: deletes files"),
	confirmCase("watch", "watch -b rm ls", "rm: deletes files"),
	confirmCase("watch", "watch --e ls", "watch --e: cannot tell which command runs"),
	safeCase("watch", "watch -n 5 ls -l"),
	safeCase("watch", "watch -n5 df -h"),
	safeCase("watch", "watch --interval=1 date"),
	safeCase("watch", "watch --interval 1 uptime"),
	safeCase("watch", "watch -d -n 1 free -m"),
	safeCase("watch", "watch -dpermanent free"),
	safeCase("watch", "watch -g 'ls | wc -l' "),
	safeCase("watch", "watch -x ls -la"),
	safeCase("watch", "watch -q 3 uptime"),
	safeCase("watch", "watch 'ps aux | grep x'"),
}

func init() {
	policyCases = append(policyCases, watchCases...)
}

// outputFileCases: the files a read-only-looking program writes, wherever
// its syntax puts them: xxd's second operand after its first (xxd reads
// no options there, so -pwned is a file name) and sort's -T folder.
var outputFileCases = []policyCase{
	confirmCase("output-file", "xxd in.txt -pwned", "xxd -pwned: writes its output to a file"),
	confirmCase("output-file", "xxd in.txt -r", "xxd -r: writes its output to a file"),
	confirmCase("output-file", "xxd -s 16 in.txt -o", "xxd -o: writes its output to a file"),
	confirmCase("output-file", "xxd -c 8 in.txt out.hex", "xxd out.hex: writes its output to a file"),
	confirmCase("output-file", "xxd -- in.txt -x", "xxd -x: writes its output to a file"),
	confirmCase("output-file", "xxd -- -in -out", "xxd -out: writes its output to a file"),
	confirmCase("output-file", "xxd -len 16 in.txt", "writes its output to a file"),
	confirmCase("output-file", "sort -T /tmp/x f", "sort -T: writes temporary files to the folder it names"),
	confirmCase("output-file", "sort -T/tmp/x f", "sort -T/tmp/x: writes temporary files"),
	confirmCase("output-file", "sort -rnT /tmp/x f", "sort -rnT: writes temporary files"),
	confirmCase("output-file", "sort --temporary-directory=/tmp/x f", "writes temporary files to the folder it names"),
	confirmCase("output-file", "sort --temporary-directory /tmp/x f", "writes temporary files to the folder it names"),
	confirmCase("output-file", "sort --tem=/tmp/x f", "writes temporary files to the folder it names"),
	confirmCase("output-file", "sort f -T /tmp/x", "writes temporary files to the folder it names"),
	confirmCase("output-file", "sort -no out f", "sort -no: writes its output to a file"),
	confirmCase("output-file", "sort --compress-program=gzip -S 1 f", "runs a program to compress its temporary files"),
	safeCase("output-file", "xxd in.txt"),
	safeCase("output-file", "xxd -s 16 -l 32 in.txt"),
	safeCase("output-file", "xxd -c 8 -g 1 in.txt"),
	safeCase("output-file", "xxd -l16 -ps in.txt"),
	safeCase("output-file", "xxd -i in.txt -"),
	safeCase("output-file", "xxd -n name -i in.txt"),
	safeCase("output-file", "sort -t o f"),
	safeCase("output-file", "sort -k 2,2 -t: /etc/passwd"),
	safeCase("output-file", "sort -S 50% -n f"),
	safeCase("output-file", "sort --key=2 --field-separator=, f"),
	safeCase("output-file", "sort -u --parallel 2 f"),
}

func init() {
	policyCases = append(policyCases, outputFileCases...)
}

// networkReaderCases: in the sandbox a name lookup has no socket, so the
// programs that would make one stay safe (TestNetworkReadersAskWithoutSandbox
// shows them asking without it).
var networkReaderCases = []policyCase{
	safeCase("network-reader", "getent passwd root"),
	safeCase("network-reader", "getent hosts example.com"),
	safeCase("network-reader", "lsof -i @example.com"),
	safeCase("network-reader", "ss -t dst example.com"),
	confirmCase("network-reader", "dig +short example.com", "dig: uses the network"),
	confirmCase("network-reader", "getent hosts $(rm x)", "rm: deletes files"),
}

func init() {
	policyCases = append(policyCases, networkReaderCases...)
}

// verbFirstCases: programs that take their verb first see no option
// before it, and a wrapper given words at run time judges them unseen.
var verbFirstCases = []policyCase{
	confirmCase("verb-first", "diskutil -x list eraseDisk APFS X disk2", "diskutil -x: cannot tell what diskutil does"),
	confirmCase("verb-first", "diskutil -plist info disk0", "cannot tell what diskutil does"),
	safeCase("verb-first", "diskutil quiet list"),
	safeCase("verb-first", "diskutil info -plist disk0"),
	confirmCase("verb-first", "xargs watch", "watch: runs a command made of arguments that arrive at run time"),
	confirmCase("verb-first", "xargs watch echo", "runs a command made of arguments that arrive at run time"),
	confirmCase("verb-first", "xargs watch -n 1", "runs a command made of arguments that arrive at run time"),
	confirmCase("verb-first", "xargs watch -x", "runs a command made of arguments that arrive at run time"),
	confirmCase("verb-first", "find . -exec watch {} +", "find -exec watch"),
	safeCase("verb-first", "xargs watch -x ls"),
}

func init() {
	policyCases = append(policyCases, verbFirstCases...)
}
