package policy

import (
	"strings"
	"testing"
)

// homeSpellings are ways a line names the home folder through variables,
// parameter operators, arrays and loops; each is put in front of every
// destructive floor member below.
var homeSpellings = []struct{ set, word string }{
	{"x=$HOME; ", `"$x"`}, {"x=~; ", "$x"}, {"x=~/; ", "$x"}, {"x=\"$HOME\"; ", "$x/"},
	{"", "${HOME:-/tmp}"}, {"", "${HOME:=/tmp}"}, {"", "${HOME%/}"}, {"", "${x-$HOME}"}, {"", "${x:-~}"},
	{"", `"$HOME"/`}, {"", "$HOME/."}, {"export x=$HOME; ", "$x"}, {"declare x=$HOME; ", "$x"},
	{"declare -x x=~; ", "$x"}, {"readonly x=~; ", "$x"}, {"a=(~); ", `"${a[@]}"`}, {"a=(/tmp ~); ", "${a[1]}"},
	{"a=(); a+=(~); ", "${a[*]}"}, {"x=/; ", "$x"}, {"x=; ", "$x/"}, {": ${x:=~}; ", "$x"},
	{"x=$HOME; y=$x; ", "$y"}, {"x=~; x=${x%/}; ", `"$x"`},
	// a replacement that leaves the value whole, its / escaped as bash reads it
	{"", `"${HOME//\//\/}"`}, {"", `${HOME//\//\/}`},
}

// floorVerbs are the floor's destructive members, each given a target.
var floorVerbs = []string{"rm -rf %s", "rm -r %s", "find %s -delete", "chmod -R 777 %s", "chown -R me %s", "rm -rf -- %s",
	"mv %s /tmp/away", "mv -t /tmp/away %s", "rsync -a --delete /tmp/empty/ %s", "rsync -a --delete-after /tmp/empty/ %s"}

// TestFloorSeesThroughVariables: every spelling of home or / through a
// variable is refused like rm -rf ~, in each floor member, and a loop
// over home too.
func TestFloorSeesThroughVariables(t *testing.T) {
	p := New(Options{})
	n := 0
	for _, s := range homeSpellings {
		for _, v := range floorVerbs {
			cmd := s.set + strings.ReplaceAll(v, "%s", s.word)
			n++
			if got := p.ClassifyIn(cmd, "~/src"); got.Tier != Forbidden {
				t.Errorf("%q: %s %v", cmd, got.Tier, got.Reasons)
			}
		}
	}
	for _, c := range []struct{ dir, cmd string }{
		{"", `for d in ~; do rm -rf "$d"; done`},
		{"", `for d in /tmp ~; do rm -rf $d; done`},
		{"~", `rm -rf "$PWD"`},
		{"/", `rm -rf $PWD`},
		{"~", `rm -rf "$OLDPWD"`},
		{"", `cd ~; cd /tmp; rm -rf "$OLDPWD"`},
		{"", `cd ~ && rm -rf ~-`},
		{"", `rm -rf $HOME/..`},
		{"~/src", `rm -rf "$PWD/.."`},
		{"", `shopt -s extglob; rm -rf ~/!(keep)`},
		{"", "shred -u ~/*"}, {"", "x=~; shred -zu $x/.*"}, {"", "mv ~/* /tmp/away"}, {"", "mv / /x"},
		{"", "rsync -a --del /tmp/empty/ /usr"},
	} {
		n++
		if got := p.ClassifyIn(c.cmd, c.dir); got.Tier != Forbidden {
			t.Errorf("%q in %q: %s %v", c.cmd, c.dir, got.Tier, got.Reasons)
		}
	}
	// What cannot be told is never safe.
	for _, cmd := range []string{"read x; rm -rf $x", "rm -rf $y", `rm -rf "${y}"`, "x=$(pwd); rm -rf $x"} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Safe {
			t.Errorf("%q is safe", cmd)
		}
	}
	// Ordinary targets through variables stay confirm.
	for _, cmd := range []string{"x=~/src/build; rm -rf $x", "x=build; rm -rf \"$x\"", "${x:=~/tmp}; rm -rf $x/y",
		"mv ~/a.txt ~/b.txt", "mv a b", "rsync -a --delete src/ /tmp/backup/", "rsync -a ~/ /tmp/backup/", "shred -u ~/secret.txt", "mv /tmp/x ~/"} {
		if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
			t.Errorf("%q is forbidden: %v", cmd, got.Reasons)
		}
	}
	t.Logf("%d generated lines", n)
}

// TestFloorKnowsHomeAnywhere: a home outside /home (Options.Home) and
// other users' homes from the user database (Options.Homes) are refused
// like ~ and ~user, by path, by variable and as the folder a command runs in.
func TestFloorKnowsHomeAnywhere(t *testing.T) {
	p := New(Options{Home: "/var/home/alice", Homes: []string{"/srv/users/bob"}})
	for _, c := range []struct{ dir, cmd string }{
		{"", "rm -rf /var/home/alice"}, {"", "rm -rf /var/home/alice/"}, {"", "rm -rf /var/home/alice/*"},
		{"", "x=/var/home/alice; rm -rf $x"}, {"", "find /var/home/alice -delete"}, {"", "chmod -R 700 /var/home/alice/."},
		{"/var/home/alice", "rm -rf *"}, {"/var/home/alice/src", "rm -rf ../*"}, {"/var/home/alice", `rm -rf "$PWD"`},
		{"", "rm -rf /srv/users/bob"}, {"", "rm -rf /srv/users/bob/.*"}, {"", "rm -rf /var/home/alice/src/.."},
	} {
		if got := p.ClassifyIn(c.cmd, c.dir); got.Tier != Forbidden {
			t.Errorf("%q in %q: %s %v", c.cmd, c.dir, got.Tier, got.Reasons)
		}
	}
	for _, cmd := range []string{"rm -rf /var/home/alice/src/build", "rm -rf /srv/users/bob/tmp"} {
		if got := p.ClassifyIn(cmd, ""); got.Tier != Confirm {
			t.Errorf("%q: %s %v", cmd, got.Tier, got.Reasons)
		}
	}
}

// homeSpelt are ways to name the home folder dir/base by path: doubled
// and dotted slashes, a detour through .., patterns that match it, its
// parent (which holds every home) and everything in that parent.
func homeSpelt(dir, base string) []struct{ pre, word string } {
	h := dir + "/" + base
	return []struct{ pre, word string }{
		{"", h}, {"", h + "/"}, {"", h + "/."}, {"", dir + "//" + base}, {"", dir + "/./" + base},
		{"", "/" + h}, {"", dir + "/x/../" + base}, {"", h + "/src/.."},
		{"", dir + "/" + base[:3] + "*"}, {"", dir + "/" + base[:len(base)-1] + "[" + base[len(base)-1:] + "]"},
		{"", dir + "/" + base[:len(base)-1] + "?"}, {"", dir + "/*"}, {"", dir}, {"", dir + "/"}, {"", dir + "/.*"},
		{"", "/" + dir[1:2] + "*" + strings.TrimPrefix(dir[1:], strings.Split(dir[1:], "/")[0]) + "/" + base},
		{"cd " + dir + " && ", base}, {"cd " + dir + "; ", "./" + base}, {"cd " + h + " && ", "."}, {"cd " + h + "/src && ", ".."},
	}
}

// TestFloorKnowsHomeSpelt: the home folder is protected however its path
// is spelt, inside /home or not, in each floor member and under each
// wrapper; the folders in it are not.
func TestFloorKnowsHomeSpelt(t *testing.T) {
	verbs := []string{"rm -rf %s", "rm -r %s", "find %s -delete", "chmod -R 777 %s", "mv %s /tmp/away"}
	wrappers := []string{"%s", "sudo %s", "nice -n 5 %s", "bash -c '%s'", "env %s"}
	n := 0
	for _, home := range []string{"/var/home/alice", "/home/alice", "/data/users/alice", "/Users/alice"} {
		dir, base := home[:strings.LastIndexByte(home, '/')], home[strings.LastIndexByte(home, '/')+1:]
		p := New(Options{Home: home})
		for _, s := range homeSpelt(dir, base) {
			for _, v := range verbs {
				if strings.HasPrefix(v, "mv") && (strings.HasSuffix(s.word, ".") || strings.HasSuffix(s.word, "..")) {
					continue // mv refuses . and ..
				}
				for _, w := range wrappers {
					cmd := s.pre + strings.ReplaceAll(w, "%s", strings.ReplaceAll(v, "%s", s.word))
					n++
					t.Run(home+"/"+cmd, func(t *testing.T) {
						if got := p.ClassifyIn(cmd, ""); got.Tier != Forbidden {
							t.Errorf("%s %v", got.Tier, got.Reasons)
						}
					})
				}
			}
		}
		for _, cmd := range []string{"rm -rf " + home + "/tmp", "rm -rf " + home + "/Downloads/old", "rm -rf " + home + "/src/build*",
			"find " + home + "/src -name '*.o' -delete", "rm -rf ./build", "find . -name '*.o' -delete", "rm -rf ~/Downloads/old",
			"cd " + home + " && rm -rf build", "rm -rf " + home + "/.cache/*", "chmod -R 755 " + home + "/bin", "rm -rf /tmp/b*"} {
			t.Run(home+"/ordinary/"+cmd, func(t *testing.T) {
				if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
					t.Errorf("forbidden: %v", got.Reasons)
				}
			})
		}
	}
	t.Logf("%d generated lines", n)
}

// fakeLinks resolves paths through the links given (link → target), name
// by name, as plan.Env.Resolve does on a disk that holds them.
func fakeLinks(links map[string]string) func(string) string {
	return func(p string) string {
		out := "/"
		for _, name := range strings.Split(strings.Trim(p, "/"), "/") {
			if name == "" {
				continue
			}
			out = strings.TrimSuffix(out, "/") + "/" + name
			for i := 0; i < 8; i++ {
				t, ok := links[out]
				if !ok {
					break
				}
				out = t
			}
		}
		return out
	}
}

// TestFloorFollowsLinks: with Options.Resolve, a home reached through a
// link is protected by its real path too, and a target that goes through
// a link to home (h/, h/., h/*) is judged where it lands; the link itself
// (rm -rf h) and folders inside home through it are not.
func TestFloorFollowsLinks(t *testing.T) {
	n := 0
	for _, real := range []string{"/tmp/ah/home", "/home/alice", "/var/home/alice"} {
		for _, homeIsLink := range []bool{false, true} {
			home := real
			links := map[string]string{"/w/h": real, "/w/deep": "/w/h"}
			if homeIsLink {
				home = "/tmp/ah/lnk"
				links[home] = real
			}
			p := New(Options{Home: home, Resolve: fakeLinks(links)})
			var forms []string
			for _, word := range []string{real, real + "/", real + "/.", real + "/*", "h/", "h/.", "h/*", "h/.*", "/w/h/", "./h/", "deep/", "/w/deep/*", home + "/"} {
				for _, v := range []string{"rm -rf %s", "find %s -delete", "chmod -R 777 %s", "sudo rm -r %s", "bash -c 'rm -rf %s'"} {
					forms = append(forms, strings.ReplaceAll(v, "%s", word))
				}
			}
			for _, cmd := range forms {
				n++
				t.Run(home+"/"+cmd, func(t *testing.T) {
					if got := p.ClassifyIn(cmd, "/w"); got.Tier != Forbidden {
						t.Errorf("%s %v", got.Tier, got.Reasons)
					}
				})
			}
			for _, cmd := range []string{"rm -rf h", "rm -rf deep", "rm -rf h/src", "rm -rf h/src/", "rm -rf " + real + "/src", "find h/src -delete",
				"rm -rf ./build", "find . -name '*.o' -delete", "rm -rf ~/Downloads/old", "rm -rf " + real + "/tmp/*"} {
				t.Run(home+"/ordinary/"+cmd, func(t *testing.T) {
					if got := p.ClassifyIn(cmd, "/w"); got.Tier == Forbidden {
						t.Errorf("forbidden: %v", got.Reasons)
					}
				})
			}
		}
	}
	t.Logf("%d generated lines", n)
}

// argSpellings hand a value H to a deletion through the positional
// parameters, function arguments, substrings, replacements, negative
// subscripts, printf -v and command substitutions that only echo it.
var argSpellings = []struct{ pre, word, post string }{
	{"set -- {H}; ", `"$1"`, ""}, {"set -- a {H}; ", `"$2"`, ""}, {"set -- a {H}; shift; ", `"$1"`, ""}, {"set -- {H}; ", `"$@"`, ""},
	{"set -- {H}; ", "$*", ""}, {"set -x -- {H}; ", "$1", ""}, {"f() { ", `"$1"`, "; }; f {H}"}, {"f() { ", `"$@"`, "; }; f x {H}"},
	{"g() { f \"$2\"; }; f() { ", `"$1"`, "; }; g x {H}"}, {"x={H}; ", `"${x:0:999}"`, ""}, {"x={H}; ", `"${x/#/}"`, ""},
	{"x={H}; ", `"${x/zz/}"`, ""}, {"x={H}; ", `"${x:0}"`, ""}, {"x=(a {H}); ", `"${x[-1]}"`, ""}, {"x=({H} b); ", `"${x[-2]}"`, ""},
	{"printf -v x %s {H}; ", `"$x"`, ""}, {"printf -v x {H}; ", "$x", ""}, {"", "$(printf {H})", ""}, {"", `"$(echo {H})"`, ""},
	{"x=$(echo {H}); ", `"$x"`, ""}, {"", `"$(printf %s {H})"`, ""}, {"", "`echo {H}`", ""},
}

// TestFloorFollowsArguments: home or / handed on through arguments and
// echoes is refused in each floor member; the same forms with an
// ordinary folder still only ask.
func TestFloorFollowsArguments(t *testing.T) {
	verbs := []string{"rm -rf {T}", "rm -r {T}", "find {T} -delete", "chmod -R 777 {T}", "sudo rm -rf {T}"}
	n := 0
	for _, o := range []Options{{}, {Home: "/var/home/alice"}} {
		p := New(o)
		homes := []string{"~", "$HOME", `"$HOME"`, "~/", "/"}
		if o.Home != "" {
			homes = append(homes, o.Home, o.Home+"/", "/var/home")
		}
		for _, h := range homes {
			for _, s := range argSpellings {
				for _, v := range verbs {
					cmd := strings.ReplaceAll(s.pre+strings.ReplaceAll(v, "{T}", s.word)+s.post, "{H}", h)
					n++
					t.Run(o.Home+"/"+cmd, func(t *testing.T) {
						if got := p.ClassifyIn(cmd, "~/src"); got.Tier != Forbidden {
							t.Errorf("%s %v", got.Tier, got.Reasons)
						}
					})
				}
			}
		}
		for _, h := range []string{"./build", "~/Downloads/old", "/var/home/alice/tmp", "build"} {
			for _, s := range argSpellings {
				cmd := strings.ReplaceAll(s.pre+"rm -rf "+s.word+s.post, "{H}", h)
				t.Run(o.Home+"/ordinary/"+cmd, func(t *testing.T) {
					if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
						t.Errorf("forbidden: %v", got.Reasons)
					}
				})
			}
		}
		for _, cmd := range []string{`set -- ~ build; shift; rm -rf "$1"`, `f() { rm -rf "$1"; }; f build; f ./x`, `f() { rm -rf "$2"; }; f ~ build`,
			"find . -name '*.o' -delete", `rm -rf "$(echo build)"`, `x=(~ a); rm -rf "${x[-1]}"`} {
			t.Run(o.Home+"/ordinary/"+cmd, func(t *testing.T) {
				if got := p.ClassifyIn(cmd, "~/src"); got.Tier == Forbidden {
					t.Errorf("forbidden: %v", got.Reasons)
				}
			})
		}
	}
	t.Logf("%d generated lines", n)
}
