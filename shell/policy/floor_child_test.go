package policy

import (
	"slices"
	"strings"
	"testing"
)

// childHomes are the Options a generated family runs under, with the
// spellings of home handed on: home as ~, inside /home and outside it.
func childHomes() []struct {
	o     Options
	homes []string
} {
	return []struct {
		o     Options
		homes []string
	}{
		{Options{}, []string{"~", "$HOME", `"$HOME"`, "~/"}},
		{Options{Home: "/home/alice"}, []string{"~", "/home/alice", "/home/alice/"}},
		{Options{Home: "/var/home/alice"}, []string{"~", "$HOME", "/var/home/alice", "/var/home/alice/", "/var/home"}},
	}
}

// runFamily checks that every form, with {V} a floor verb whose target is
// {T} and {H} a spelling of home, is forbidden, and that the same form
// with an ordinary folder is not. It returns how many lines it made.
func runFamily(t *testing.T, name string, forms []struct{ form, target string }, verbs []string) int {
	t.Helper()
	n := 0
	for _, h := range childHomes() {
		p := New(h.o)
		for _, f := range forms {
			for _, v := range verbs {
				line := strings.ReplaceAll(f.form, "{V}", strings.ReplaceAll(v, "{T}", f.target))
				for _, home := range h.homes {
					if strings.HasPrefix(home, "~") && strings.Contains(f.form, "-A m=(") {
						continue // bash 5.2 leaves ~ in ([k]=~) as written
					}
					cmd := strings.ReplaceAll(line, "{H}", home)
					n++
					t.Run(name+"/"+h.o.Home+"/"+cmd, func(t *testing.T) {
						got := p.ClassifyIn(cmd, "~/src")
						if got.Tier != Forbidden {
							t.Errorf("%s %v", got.Tier, got.Reasons)
						}
						// Refused, its reasons do not also say Hark cannot
						// know what it deletes.
						for _, r := range got.Reasons {
							if strings.Contains(r.Why, "cannot know") {
								t.Errorf("a refusal that also says %q: %v", r.Why, got.Reasons)
							}
						}
					})
				}
				for _, ord := range []string{"./build", "build", "~/src/build", "/tmp/x"} {
					cmd := strings.ReplaceAll(line, "{H}", ord)
					t.Run(name+"/ordinary/"+h.o.Home+"/"+cmd, func(t *testing.T) {
						if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
							t.Errorf("forbidden: %v", got.Reasons)
						}
					})
				}
			}
		}
	}
	return n
}

var childVerbs = []string{"rm -rf {T}", "rm -r {T}", "find {T} -delete", "chmod -R 777 {T}"}

// TestFloorFollowsChildArguments: a shell started with -c takes its
// positional parameters from the words after the script ($0 first), so
// home handed on that way is deleted as if written in the script.
func TestFloorFollowsChildArguments(t *testing.T) {
	var forms []struct{ form, target string }
	for _, sh := range []string{"bash -c", "sh -c", "bash -ec", "dash -c", "env bash -c", "nice sh -c", "bash --norc -c"} {
		forms = append(forms,
			struct{ form, target string }{sh + ` '{V}' _ {H}`, `"$1"`},
			struct{ form, target string }{sh + ` '{V}' sh {H}`, `$1`},
			struct{ form, target string }{sh + ` '{V}' {H}`, `"$0"`},
			struct{ form, target string }{sh + ` '{V}' _ a {H}`, `"$2"`},
			struct{ form, target string }{sh + ` '{V}' _ {H}`, `"$@"`},
			struct{ form, target string }{sh + ` 'shift; {V}' _ a {H}`, `"$1"`},
			struct{ form, target string }{sh + ` 'd=$1; {V}' _ {H}`, `"$d"`},
			struct{ form, target string }{sh + ` '{V}' -- {H}`, `"$1"`},
		)
	}
	n := runFamily(t, "args", forms, childVerbs)
	p := New(Options{})
	for _, cmd := range []string{`bash -c 'rm -rf "$1"' _ ./build`, `bash -c 'rm -rf "$2"' _ ~ build`, `bash -c 'rm -rf "$1"' ~`,
		`sh -c 'rm -rf "$1/build"' _ ~`} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
			t.Errorf("%q forbidden: %v", cmd, got.Reasons)
		}
	}
	t.Logf("%d generated lines", n)
}

// TestFloorFollowsExports: a variable exported (or assigned in front of
// the command) reaches a child shell's environment; one only set in this
// shell does not.
func TestFloorFollowsExports(t *testing.T) {
	var forms []struct{ form, target string }
	for _, sh := range []string{"bash -c", "sh -c", "env -u y bash -c", "nice bash -c"} {
		for _, pre := range []string{"export x={H}; ", "declare -x x={H}; ", "x={H}; export x; ", "export x; x={H}; ", "export y=1 x={H}; "} {
			forms = append(forms, struct{ form, target string }{pre + sh + ` '{V}'`, `"$x"`})
		}
		forms = append(forms, struct{ form, target string }{"x={H} " + sh + ` '{V}'`, `"$x"`},
			struct{ form, target string }{"x={H} y=1 " + sh + ` '{V}'`, `$x`})
	}
	forms = append(forms, struct{ form, target string }{`export x={H}; bash -c 'bash -c "{V}"'`, `\$x`},
		struct{ form, target string }{`export x={H}; bash -c 'y=$x; {V}'`, `"$y"`})
	n := runFamily(t, "exports", forms, childVerbs)
	p := New(Options{})
	for _, cmd := range []string{`export x=./tmp; bash -c 'rm -rf "$x"'`, `x=~; bash -c 'rm -rf "$x"'`, `x=./b bash -c 'rm -rf "$x"'`,
		`export x=~; bash -c 'x=./b; rm -rf "$x"'`} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
			t.Errorf("%q forbidden: %v", cmd, got.Reasons)
		}
	}
	t.Logf("%d generated lines", n)
}

// TestFloorFollowsAssociativeArrays: declare -A and element assignments
// are followed like indexed arrays.
func TestFloorFollowsAssociativeArrays(t *testing.T) {
	forms := []struct{ form, target string }{
		{"declare -A m=([k]={H}); {V}", `"${m[k]}"`},
		{"declare -A m=([k]={H} [j]=b); {V}", `"${m[k]}"`},
		{"declare -A m; m[k]={H}; {V}", `"${m[k]}"`},
		{"typeset -A m=([k]={H}); {V}", `"${m[@]}"`},
		{"declare -A m=(['a b']={H}); {V}", `"${m['a b']}"`},
		{"declare -A m=([k]={H}); {V}", `${m[*]}`},
		{"f() { local -A m=([k]={H}); {V}; }; f", `"${m[k]}"`},
		{"a[1]={H}; {V}", `"${a[1]}"`}, {"declare -a a; a[2]={H}; {V}", `"${a[2]}"`},
		{"a=(); a[3]={H}; {V}", `"${a[@]}"`},
	}
	n := runFamily(t, "assoc", forms, childVerbs)
	p := New(Options{})
	for _, cmd := range []string{`declare -A m=([k]=~ [j]=build); rm -rf "${m[j]}"`, `declare -A m; m[k]=~; rm -rf "${m[j]}"`} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
			t.Errorf("%q forbidden: %v", cmd, got.Reasons)
		}
	}
	t.Logf("%d generated lines", n)
}

// TestFloorSaysWhatItCannotKnow: a recursive deletion whose target is
// only known when it runs asks, in home too, and says why; one whose
// target the model follows does not claim ignorance.
func TestFloorSaysWhatItCannotKnow(t *testing.T) {
	n := 0
	for _, o := range []Options{{}, {Home: "/var/home/alice"}} {
		p := New(o)
		for _, dir := range []string{"~", "~/src", "/tmp"} {
			for _, target := range []string{`"$1"`, `$1`, `"$UNKNOWN"`, `$(cat list)`, `"$(cat list)"`, "`cat list`", `"${x}"`, `"$@"`} {
				for _, v := range []string{"rm -rf %s", "rm -r %s", "rm -fr -- %s", "read x; rm -rf %s", "f() { rm -rf %s; }; f \"$1\""} {
					cmd := strings.ReplaceAll(v, "%s", target)
					n++
					t.Run(o.Home+"/"+dir+"/"+cmd, func(t *testing.T) {
						got := p.ClassifyIn(cmd, dir)
						if got.Tier != Confirm {
							t.Fatalf("%s %v", got.Tier, got.Reasons)
						}
						if !slices.ContainsFunc(got.Reasons, func(r Reason) bool { return strings.Contains(r.Why, "cannot know before it runs") }) {
							t.Errorf("no reason says the target cannot be known: %v", got.Reasons)
						}
					})
				}
			}
		}
		for _, cmd := range []string{`x=build; rm -rf "$x"`, `set -- build; rm -rf "$1"`, "rm -rf build", `rm -rf ""`} {
			got := p.ClassifyIn(cmd, "~")
			if slices.ContainsFunc(got.Reasons, func(r Reason) bool { return strings.Contains(r.Why, "cannot know") }) || got.Tier != Confirm {
				t.Errorf("%q: %s %v", cmd, got.Tier, got.Reasons)
			}
		}
	}
	t.Logf("%d generated lines", n)
}

// TestFloorFollowsEnvAssignments: env's NAME=VALUE words (bash expands ~
// after their '=') reach the environment of the shell env starts; -u and
// -i take names out of it, and then their value is not known.
func TestFloorFollowsEnvAssignments(t *testing.T) {
	var forms []struct{ form, target string }
	for _, env := range []string{"env x={H}", "env -- x={H}", "env -u y x={H}", "env -i x={H}", "env - x={H}", "env y=1 x={H}",
		"env --unset=y x={H}", "env -u y -- x={H}", "nice env x={H}", "export x=./b; env x={H}", "env x={H} nice", "env x={H} env", "env -i y=1 x={H}"} {
		for _, sh := range []string{"bash -c", "sh -c"} {
			forms = append(forms, struct{ form, target string }{env + " " + sh + ` '{V}'`, `"$x"`})
		}
	}
	forms = append(forms, struct{ form, target string }{`env x={H} bash -c 'bash -c "{V}"'`, `\$x`},
		struct{ form, target string }{`env x={H} bash -c 'y=$x; {V}'`, `"$y"`})
	n := runFamily(t, "env", forms, childVerbs)
	p := New(Options{})
	for _, cmd := range []string{`env -u x bash -c 'rm -rf "$x"'`, `export x=~; env -u x bash -c 'rm -rf "$x"'`, `x=~ env -u x bash -c 'rm -rf "$x"'`,
		`export x=~; env -i bash -c 'rm -rf "$x"'`, `export x=~; env - sh -c 'rm -rf "$x"'`, `env x=./build bash -c 'rm -rf "$x"'`,
		`env x=~ bash -c 'rm -rf "$y"'`, `env -i x=~ bash -c 'x=./b; rm -rf "$x"'`, `env x='~' bash -c 'rm -rf "$x"'`} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier != Confirm {
			t.Errorf("%q %s: %v", cmd, got.Tier, got.Reasons)
		}
	}
	t.Logf("%d generated lines", n)
}
