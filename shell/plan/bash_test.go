package plan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The differential tests run bash itself on generated command lines over
// generated trees, and hold the model to what bash did. The command lines
// call `probe ID ARGS…`, a link to this test binary that records the
// folder it ran in and the arguments bash gave it.

const probeLogEnv = "HARK_PLAN_PROBE_LOG"

type probeRecord struct {
	Dir  string   `json:"dir"`
	Args []string `json:"args"`
}

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "probe" {
		dir, _ := os.Getwd()
		f, err := os.OpenFile(os.Getenv(probeLogEnv), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		b, _ := json.Marshal(probeRecord{Dir: dir, Args: os.Args[1:]})
		f.Write(append(b, '\n'))
		f.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// bashPath finds bash, or skips: the model is of bash, so without it there
// is nothing to compare with.
func bashPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed, so the model cannot be compared with it")
	}
	return p
}

// probeDir makes a folder holding `probe`, a link to this test binary.
func probeDir(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "probe")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tree makes a random home: files and folders whose names exercise the
// pattern rules (dotfiles, case, dashes, spaces, brackets), a link to a
// folder outside it, and a folder outside it to point to.
func tree(t *testing.T, r *rand.Rand) (home, outside string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	outside = filepath.Join(root, "outside")
	must(t, os.MkdirAll(filepath.Join(outside, "kept"), 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644))
	names := []string{"a.txt", "b.log", "Notes.md", ".env", ".hidden", "-n", "d e", "x[1]", "build", "src", ".git", "B.TXT", "cache"}
	dirs := map[string]bool{"build": true, "src": true, ".git": true, "cache": true}
	must(t, os.MkdirAll(home, 0o755))
	for _, n := range names {
		if r.IntN(5) == 0 {
			continue // not every tree has every name
		}
		p := filepath.Join(home, n)
		if dirs[n] {
			must(t, os.MkdirAll(p, 0o755))
			for _, c := range []string{"x.o", ".ready", "sub", "a.txt"} {
				if r.IntN(2) == 0 {
					continue
				}
				if c == "sub" {
					must(t, os.MkdirAll(filepath.Join(p, c, "deep"), 0o755))
					must(t, os.WriteFile(filepath.Join(p, c, "deep", "f.txt"), nil, 0o644))
					continue
				}
				must(t, os.WriteFile(filepath.Join(p, c), nil, 0o644))
			}
			continue
		}
		must(t, os.WriteFile(p, nil, 0o644))
	}
	if r.IntN(2) == 0 {
		must(t, os.Symlink(outside, filepath.Join(home, "link")))
		// A link whose target sits at another depth: '..' from it is
		// outside, while the spelling's '..' is home.
		must(t, os.Symlink(filepath.Join(outside, "kept"), filepath.Join(home, "far")))
	}
	return home, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The pieces generated lines are made of.
var (
	genOptions = []string{"", "", "shopt -s dotglob; ", "shopt -s nullglob; ", "shopt -s nocaseglob; ",
		"shopt -s globstar; ", "GLOBIGNORE='*.txt'; ", "GLOBIGNORE=.env:build; ", "set -f; ", "shopt -s failglob; ",
		"shopt -s dotglob nullglob; ", "[ -d src ] && shopt -s dotglob; ", "shopt -s extglob; ", "set -o noglob; "}
	genCds = []string{"", "", "cd build; ", "cd missing; ", "[ -f build/.ready ] && cd build; ", "cd build && ",
		"cd build & ", "if false; then cd build; fi; ", "cd build || exit; ", "(cd build); ", "true || cd src; ",
		"for d in build src; do cd $d; done; ", "cd; ", "cd ~/src; ", "cd link; ", "cd build; cd ..; ", "cd -P link/..; ", "set -P; cd link; cd ..; ", "set -o physical; cd link/..; ", "set -P; cd -L link/..; ",
		"cd link; cd -P ..; ", "cd far; ", "cd far/; ", "cd far && cd ..; ", "set -P; cd far; ",
		"builtin cd src; ", "cd build | cat; ", "f() { cd src; }; f; ", "pushd build >/dev/null; ", "cd \"$HOME/build\"; ",
		"test -d cache && cd cache || cd src; ", "while false; do cd build; done; "}
	genVars = []string{"", "", "x=~; ", "x=~/; ", "x=$HOME; ", "x=\"$HOME\"/build; ", "export x=~/src; ", "declare x=~; ",
		"declare -x x=$PWD; ", "a=(~ build); ", "a=(~/*); ", "a=(); a+=(src); ", "x=build; x+=/sub; ", ": ${x:=~}; ",
		": ${x=build}; ", "x=; ", "local x=~ 2>/dev/null; ", "readonly x=~/build; ", "(( x = 1 )); ", "let x=2; ",
		"x=$HOME; x=${x%/}; ", "x=~/build/; x=${x%%/*}; ", "x=${HOME#/}; ", "for x in ~ build; do :; done; "}
	genWords = []string{"$x", "\"$x\"", "${x:-~}", "${x-$HOME}", "${x:+~}", "${HOME%/}", "\"${a[@]}\"", "${a[*]}",
		"${a[0]}", "${a[1]}", "$a", "\"$OLDPWD\"", "\"$PWD\"", "${HOME}/.", "$HOME/..", "~-", "\"${x:=build}\" $x",
		"${#x}", "${x##*/}", "${UNSET:-a.txt}", "\"$x\"/*",
		"*", ".*", "[!a]*", "[.]*", "*.txt", "**", "*/", "{a,b}*", "b*", "B*", "a.txt", ".", "build/.",
		"a.txt/", "*/*", "?", "*[1]", "x\\[1]", "'*'", "\"$HOME\"/*", "~/*", "~+/*", "{build,src}/*", "**/*.txt", "-*",
		"\"d e\"", "d\\ e", "*.{txt,log}", "link/*", "link/..", ".[!.]*", "[[:upper:]]*", "@(a|b)*", "*(x)", "$UNSET*",
		"build/*/", "./*", "../home/*", "$HOME/.*", "../*", "../*/", "../k*", "./../*", "far/../*", "../kept/../*"}
)

func genLine(r *rand.Rand) string {
	var sb strings.Builder
	sb.WriteString(genOptions[r.IntN(len(genOptions))])
	sb.WriteString(genVars[r.IntN(len(genVars))])
	sb.WriteString(genCds[r.IntN(len(genCds))])
	sb.WriteString("probe 1")
	for n := 1 + r.IntN(3); n > 0; n-- {
		sb.WriteString(" " + genWords[r.IntN(len(genWords))])
	}
	if r.IntN(3) == 0 {
		sb.WriteString("; probe 2 " + genWords[r.IntN(len(genWords))])
	}
	return sb.String()
}

// runBash runs line in home with bash and returns what each probe saw.
func runBash(t *testing.T, bash, probes, home, line string) []probeRecord {
	t.Helper()
	// Not beside the trees: a line may list their parent (../*), which
	// must not change between the model's look and bash's.
	logDir, err := os.MkdirTemp("", "hark-probe")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(logDir) })
	log := filepath.Join(logDir, "probe.log")
	cmd := exec.Command(bash, "-c", line)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + probes + ":/usr/bin:/bin", probeLogEnv + "=" + log, "LC_ALL=C"}
	cmd.Run() // the exit status is the line's business
	f, err := os.Open(log)
	if err != nil {
		return nil // no probe ran
	}
	defer f.Close()
	var out []probeRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec probeRecord
		must(t, json.Unmarshal(sc.Bytes(), &rec))
		out = append(out, rec)
	}
	return out
}

// modelPlaces is, for each probe ID, what the model says it may see: the
// folder and arguments at each Place, or unknown.
type modelSee struct {
	dir  string
	args []string
}

func modelProbes(t *testing.T, line, home string) (see map[string][]modelSee, unknown map[string]string, err error) {
	s, err := Parse(line)
	if err != nil {
		return nil, nil, err
	}
	env := Env{Home: home, Dir: home, Vars: map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "LC_ALL": "C"}, Disk: true}
	see, unknown = map[string][]modelSee{}, map[string]string{}
	for _, c := range s.Calls(env) {
		if c.Name() != "probe" || len(c.Expr.Args) < 2 {
			continue
		}
		id := c.Expr.Args[1].Lit()
		for _, p := range c.Places {
			ex := c.Args(env, p)
			switch {
			case ex.Unknown != "":
				unknown[id] = ex.Unknown
			case ex.NoRun != "":
				// bash does not run it here
			default:
				var args []string
				for _, f := range ex.Fields[2:] {
					args = append(args, f.Value)
				}
				see[id] = append(see[id], modelSee{dir: p.Dir, args: args})
			}
		}
	}
	return see, unknown, nil
}

// Every time bash ran a probe, the model had that folder and those exact
// arguments among the Places of that call (or said it cannot tell); and a
// line with no condition before the probe has exactly one Place.
func TestExpansionAgainstBash(t *testing.T) {
	bash := bashPath(t)
	probes := probeDir(t)
	n := 200
	if testing.Short() {
		n = 40
	}
	r := rand.New(rand.NewPCG(1, 2))
	told, cannot := 0, 0
	for i := range n {
		line := genLine(r)
		home, _ := tree(t, r)
		see, unknown, err := modelProbes(t, line, home)
		if err != nil {
			t.Fatalf("%d %q: %v", i, line, err)
		}
		ran := runBash(t, bash, probes, home, line)
		for _, rec := range ran {
			if len(rec.Args) == 0 {
				t.Fatalf("%q: a probe without its ID", line)
			}
			id, args := rec.Args[0], rec.Args[1:]
			if _, ok := unknown[id]; ok {
				cannot++
				continue
			}
			told++
			if !slices.ContainsFunc(see[id], func(m modelSee) bool { return m.dir == rec.Dir && slices.Equal(m.args, args) }) {
				t.Errorf("%q\n  bash ran probe %s in %s with %q\n  the model had %+v", line, id, rec.Dir, args, see[id])
			}
		}
		// A probe the model is sure of and bash did not run is a
		// model that runs what bash would not (failglob, exit).
		for id, ms := range see {
			if _, u := unknown[id]; u || len(ms) == 0 {
				continue
			}
			if !slices.ContainsFunc(ran, func(rec probeRecord) bool { return len(rec.Args) > 0 && rec.Args[0] == id }) && isCertain(line) {
				t.Errorf("%q: the model runs probe %s (%+v), bash did not", line, id, ms)
			}
		}
	}
	t.Logf("%d probe runs compared exactly, %d where the model said it cannot tell", told, cannot)
	if told < n/2 {
		t.Errorf("only %d of the probe runs were told: the model says \"cannot tell\" too often to be useful", told)
	}
}

// isCertain says whether a generated line has nothing before its probes
// that may stop them: then bash runs every probe the model has.
func isCertain(line string) bool {
	return !strings.Contains(line, "failglob") && !strings.Contains(line, "exit") && !strings.Contains(line, "&& ") &&
		!strings.Contains(line, "||") && !strings.Contains(line, "cd build && ")
}

// TestDotDotAfterLinkAgainstBash: after cd into a link, bash's pathname
// expansion takes a '..' from where the link leads (the kernel walks the
// folder it opens), while cd itself takes it from the spelling.
func TestDotDotAfterLinkAgainstBash(t *testing.T) {
	bash := bashPath(t)
	probes := probeDir(t)
	lines := []string{
		"cd far; probe 1 ../* ../*/ ../k* ./../*", "cd far/; probe 1 ../*", "cd far; cd ..; probe 1 *",
		"probe 1 far/../* far/../kept/../*", "cd far; probe 1 ../kept/../*", "cd link; probe 1 ../*",
		"set -P; cd far; probe 1 ../*", "cd far && cd -P ..; probe 1 *", "cd \"$HOME/far\"; probe 1 ../* ../../*",
		"shopt -s dotglob; cd far; probe 1 ../*", "cd far; probe 1 ../missing/*", "cd far; probe 1 ..",
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, line := range lines {
		home, outside := tree(t, r)
		if _, err := os.Lstat(filepath.Join(home, "far")); err != nil {
			must(t, os.Symlink(filepath.Join(outside, "kept"), filepath.Join(home, "far")))
			must(t, os.Symlink(outside, filepath.Join(home, "link")))
		}
		sameAsBash(t, bash, probes, home, line)
	}
}

// sameAsBash runs line in bash over home and requires the model to have
// told every probe bash ran, in the folder and with the arguments bash
// gave it.
func sameAsBash(t *testing.T, bash, probes, home, line string) {
	t.Helper()
	see, unknown, err := modelProbes(t, line, home)
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	ran := runBash(t, bash, probes, home, line)
	if len(ran) == 0 {
		t.Errorf("%q: bash ran no probe", line)
	}
	for _, rec := range ran {
		id, args := rec.Args[0], rec.Args[1:]
		if why, ok := unknown[id]; ok {
			t.Errorf("%q: the model cannot tell (%s); bash ran it with %q", line, why, args)
			continue
		}
		if !slices.ContainsFunc(see[id], func(m modelSee) bool { return m.dir == rec.Dir && slices.Equal(m.args, args) }) {
			t.Errorf("%q\n  bash ran probe %s in %s with %q\n  the model had %+v", line, id, rec.Dir, args, see[id])
		}
	}
}

// TestArgumentsAgainstBash holds the model's reading of positional
// parameters, function arguments, substrings, replacements, negative
// subscripts, printf -v and echoing substitutions to bash, and requires
// it to tell each one: these are how a line hands home to a deletion.
func TestArgumentsAgainstBash(t *testing.T) {
	bash := bashPath(t)
	probes := probeDir(t)
	lines := []string{
		`set -- ~ build; probe 1 "$1" $2 "$@" $# "$*"`, `set -- a ~/src; shift; probe 1 "$1" "$#"`, `set -- a b; shift 3; probe 1 "$@"`,
		`set -x -- ~; probe 1 "$1"`, `probe 1 "$@" $# "$1"`, `f() { probe 1 "$1" $# "$@"; }; f ~ b`,
		`f() { probe 1 "$2"; }; g() { f "$@" x; }; g ~`, `f() { :; }; set -- a; f b c; probe 1 "$1"`,
		`x=~/build; probe 1 "${x:0:3}" "${x:2}" "${HOME:0:99}" ${x:(-5)}`, `probe 1 "${HOME/#/}" "${HOME/%/}" "${HOME%/*}"`,
		`x=build; probe 1 "${x/b/B}" "${x//i/I}" "${x/u*l/U}"`,
		`probe 1 "${HOME//\//\/}" ${HOME//\//\/} "${HOME//"/"/"\/"}" "${HOME/\/home/X}" "${HOME//\//'/'}"`,
		`x=a/b; probe 1 "${x//\//\\}" "${x/a/\a}" "${x/a/"\a"}" ${x/\a/c} "${x//b/\&}"`, `a=(a ~ c); probe 1 "${a[-1]}" "${a[-2]}"`,
		`printf -v x %s ~/build; probe 1 "$x"`, `printf -v x ~; probe 1 $x`, `probe 1 $(echo ~) "$(printf build)" "$(printf %s a b)"`,
		`x=$(echo ~/src); probe 1 "$x"`, "probe 1 `echo ~`", `probe 1 "$(echo -n a)" "$(echo a  b)" $(echo a  b)`,
		`declare -A m=([k]=~ [j]=b [h]="$HOME" [l]=~/x); probe 1 "${m[k]}" "${m[j]}" "${m[x]}" "${m[h]}" "${m[l]}"`, `declare -A m; m[k]=~/src; m['a b']=c; probe 1 "${m[k]}" "${m['a b']}"`,
		`declare -A m=([k]=~); declare -A m; m[j]=b; probe 1 "${m[k]}" "${m[j]}"`, `x=s; declare -A x; x[k]=~; probe 1 "${x[0]}" "${x[k]}"`,
		`a=(x); a[3]=~; probe 1 "${a[3]}" "${a[@]}" "${a[-1]}" ${#a[@]}`, `a[2]=~; probe 1 "${a[2]}"`, `b=(1 2); b=z; probe 1 "${b[@]}"`,
		`typeset -A m=(['a b']=~); probe 1 "${m['a b']}" "${m[@]}"`, `f() { local -A m=([k]=~); probe 1 "${m[k]}"; }; f`,
		`export x=~; y=~/b; export y; probe 1 "$x" "$y"`,
		`probe 1 x=~ x=~/b x=a:~ x=~:~/c "x=~" x="~" x+=~ x[1]=~ 1x=~ --x=~ x=~"q" x=~/"q" a-b=~ x=\~ x=a:~:b~ x=$HOME:~`,
		`for i in a=~ b=~/x; do probe 1 $i; done`, `x=y=~; a=(a=~); probe 1 "$x" "${a[0]}"`, `cd .; probe 1 x=~+ x=~-`,
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, line := range lines {
		home, _ := tree(t, r)
		sameAsBash(t, bash, probes, home, line)
	}
}

// TestQuotedValuesAgainstBash holds the one reading of quotes and
// backslashes — unquoted, '…', $'…' and "…" — to bash, where a value is
// kept in a variable, an array, an option name or a key, and then used.
func TestQuotedValuesAgainstBash(t *testing.T) {
	bash := bashPath(t)
	probes := probeDir(t)
	var lines []string
	for _, v := range quotedWords {
		lines = append(lines,
			"x="+v+"; probe 1 \"$x\"",
			"a=("+v+" z); probe 1 \"${a[0]}\"",
			"declare -A m=([k]="+v+"); probe 1 \"${m[k]}\"",
			"f() { probe 1 \"$1\"; }; y="+v+"; f \"$y\"",
		)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, line := range lines {
		home, _ := tree(t, r)
		sameAsBash(t, bash, probes, home, line)
	}
}

// quotedWords are words whose value is plain text under one quoting or
// another, with every backslash bash treats specially in each. ($'\u…'
// is left out: bash here runs in the C locale, which does not decode it.)
var quotedWords = []string{
	`"a\"b"`, `a\"b`, `'a\"b'`, `"a\$b"`, `"a\\b"`, `"a\b"`, `a\\b`, `a\b`, "\"a\\`b\"",
	`"a'b"`, `a"b"'c'`, `$'a\x41\'b'`, `$'\101\0101'`, `$'\e\E'`, `$'a\"b\?'`,
	`$'\t\n'`, `'a\'b`, `\'a`, `"\\\""`, `"$"`, `"a$"`, `\$HOME`, `"\$HOME"`, `'$HOME'`,
}
