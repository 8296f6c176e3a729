package scope

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rowCase is what one row of the policy table gives a run: the places it
// adds with their reasons (relative to home unless absolute), where the
// environment variables it honours move them, and what else it may use.
type rowCase struct {
	args    []string          // the program and its first argument
	places  map[string]string // place → why
	env     map[string]string // variables that move the places
	moved   map[string]string // the places under env
	net     bool
	agent   bool
	signals bool
	// more are the same program with other first arguments, where the
	// row tells them apart (git's remote commands).
	more []rowCase
}

const rowHome = "/home/u"

// rowCases has one case per program of the table, keyed by its name:
// TestRowsAllHaveACase fails when a row is added without one.
var rowCases = map[string]rowCase{
	"npm": {args: []string{"npm", "install"}, net: true,
		places: map[string]string{".npm": "npm's package cache and logs"},
		env:    map[string]string{"npm_config_cache": "/c/npm"}, moved: map[string]string{"/c/npm": "npm's package cache and logs"}},
	"npx": {args: []string{"npx", "eslint"}, net: true,
		places: map[string]string{".npm": "npm's package cache and logs"},
		env:    map[string]string{"npm_config_cache": "/c/npm"}, moved: map[string]string{"/c/npm": "npm's package cache and logs"}},
	"pnpm": {args: []string{"pnpm", "install"}, net: true,
		places: map[string]string{".local/share/pnpm": "pnpm's package store", ".cache/pnpm": "pnpm's cache",
			"/tmp/pnpm-store-operation-locks-" + strconv.Itoa(os.Getuid()): "pnpm's store locks"}},
	"yarn": {args: []string{"yarn", "install"}, net: true,
		places: map[string]string{".cache/yarn": "Yarn's package cache", ".yarn": "Yarn's own files"},
		env:    map[string]string{"YARN_CACHE_FOLDER": "/c/yarn"},
		moved:  map[string]string{"/c/yarn": "Yarn's package cache", ".yarn": "Yarn's own files"}},
	"pip": {args: []string{"pip", "install"}, net: true,
		places: map[string]string{".cache/pip": "pip's download cache"},
		env:    map[string]string{"PIP_CACHE_DIR": "/c/pip"}, moved: map[string]string{"/c/pip": "pip's download cache"}},
	"pip3": {args: []string{"pip3", "install"}, net: true,
		places: map[string]string{".cache/pip": "pip's download cache"},
		env:    map[string]string{"PIP_CACHE_DIR": "/c/pip"}, moved: map[string]string{"/c/pip": "pip's download cache"}},
	"uv": {args: []string{"uv", "sync"}, net: true,
		places: map[string]string{".cache/uv": "uv's cache", ".local/share/uv": "uv's Pythons and tools"},
		env:    map[string]string{"UV_CACHE_DIR": "/c/uv"},
		moved:  map[string]string{"/c/uv": "uv's cache", ".local/share/uv": "uv's Pythons and tools"}},
	"cargo": {args: []string{"cargo", "build"}, net: true,
		places: map[string]string{".cargo/registry": "cargo's crate cache", ".cargo/git": "cargo's git checkouts"},
		env:    map[string]string{"CARGO_HOME": "/opt/cargo"},
		moved:  map[string]string{"/opt/cargo/registry": "cargo's crate cache", "/opt/cargo/git": "cargo's git checkouts"}},
	"go": {args: []string{"go", "build"}, net: true,
		places: map[string]string{".cache/go-build": "Go's build cache", "go/pkg/mod": "Go's module cache"},
		env:    map[string]string{"GOCACHE": "/c/gocache", "GOMODCACHE": "/c/gomod"},
		moved:  map[string]string{"/c/gocache": "Go's build cache", "/c/gomod": "Go's module cache"},
		more: []rowCase{{args: []string{"go", "test"}, net: true,
			// GOPATH, first of a list, moves the module cache when
			// GOMODCACHE does not.
			places: map[string]string{".cache/go-build": "Go's build cache", "go/pkg/mod": "Go's module cache"},
			env:    map[string]string{"GOPATH": "/gp/one:/gp/two"},
			moved:  map[string]string{".cache/go-build": "Go's build cache", "/gp/one/pkg/mod": "Go's module cache"}}}},
	// git works in proj/sub, a subfolder of the work tree proj.
	"git": {args: []string{"git", "commit"},
		places: map[string]string{"proj/.git": "the repository's history"},
		more: []rowCase{
			{args: []string{"git", "push"}, net: true, agent: true, places: map[string]string{"proj/.git": "the repository's history"}},
			{args: []string{"git", "fetch"}, net: true, agent: true, places: map[string]string{"proj/.git": "the repository's history"}},
			{args: []string{"git", "remote"}, net: true, places: map[string]string{"proj/.git": "the repository's history"}},
			{args: []string{"git", "worktree", "add", "-b", "fix", "../../wt"}, places: map[string]string{"proj/.git": "the repository's history",
				"wt": "the work tree git worktree add makes"}},
		}},
	"ssh-keygen": {args: []string{"ssh-keygen", "-t"},
		places: map[string]string{".ssh": "where ssh-keygen writes keys"}},
	"brew": {args: []string{"brew", "install"}, net: true,
		places: map[string]string{"/opt/homebrew": "Homebrew's prefix", "/usr/local/Homebrew": "Homebrew's prefix",
			"Library/Caches/Homebrew": "Homebrew's cache"}},
	"curl":    {args: []string{"curl", "-fsSO"}, net: true},
	"wget":    {args: []string{"wget", "-q"}, net: true},
	"ssh":     {args: []string{"ssh", "host"}, net: true, agent: true},
	"scp":     {args: []string{"scp", "a"}, net: true, agent: true},
	"sftp":    {args: []string{"sftp", "host"}, net: true, agent: true},
	"rsync":   {args: []string{"rsync", "-a"}, net: true, agent: true},
	"kill":    {args: []string{"kill", "123"}, signals: true},
	"pkill":   {args: []string{"pkill", "-f"}, signals: true},
	"killall": {args: []string{"killall", "sleep"}, signals: true},
}

// TestRowsAllHaveACase fails when the table gains a row without a case
// here, or a case outlives its row.
func TestRowsAllHaveACase(t *testing.T) {
	rows := Rows()
	for _, p := range rows {
		if _, ok := rowCases[p]; !ok {
			t.Errorf("the table has a row for %s but rowCases has no case for it", p)
		}
	}
	for p := range rowCases {
		if !slices.Contains(rows, p) {
			t.Errorf("rowCases has a case for %s, which has no row in the table", p)
		}
	}
}

// TestRows checks each row alone: an approved run of its program, whose
// preview names no place, may change exactly the row's places, each with
// its reason on the card, and use what the row says; the variables the
// program honours move the places, and the card shows where to.
func TestRows(t *testing.T) {
	for _, prog := range slices.Sorted(maps.Keys(rowCases)) {
		c := rowCases[prog]
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			for _, v := range append([]rowCase{c}, c.more...) {
				t.Run(strings.Join(v.args, "_"), func(t *testing.T) {
					checkRow(t, v, v.places, nil)
					if v.env != nil {
						checkRow(t, v, v.moved, func(k string) string { return v.env[k] })
					}
				})
			}
		})
	}
}

func checkRow(t *testing.T, c rowCase, places map[string]string, env func(string) string) {
	t.Helper()
	dir := rowHome + "/proj"
	if c.args[0] == "git" {
		dir = rowHome + "/proj/sub"
	}
	in := Input{Dir: dir, Home: rowHome, Known: true, Programs: [][]string{c.args}, Env: env,
		Stat: func(p string) (bool, bool) { return p == rowHome+"/proj/.git", p == rowHome+"/proj/.git" }}
	s := Build(in)
	want := map[string]string{}
	for p, why := range places {
		if !strings.HasPrefix(p, "/") {
			p = rowHome + "/" + p
		}
		want[p] = why
	}
	if got := slices.Sorted(slices.Values(s.Write)); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Errorf("env %v: may change %q, want %q", c.env != nil && env != nil, got, slices.Sorted(maps.Keys(want)))
	}
	if !maps.Equal(s.Why, want) && (len(s.Why) != 0 || len(want) != 0) {
		t.Errorf("reasons %q, want %q", s.Why, want)
	}
	if s.Network != c.net || s.Agent != c.agent || s.Signals != c.signals || len(s.Remove) != 0 {
		t.Errorf("network %v agent %v signals %v remove %q, want network %v agent %v signals %v and nothing removed",
			s.Network, s.Agent, s.Signals, s.Remove, c.net, c.agent, c.signals)
	}

	// The card names each place, under home with ~, and its reason, and
	// says what else the run may use.
	lines := s.Lines(rowHome)
	may := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "May change: ") {
			may = l
		}
	}
	for p, why := range want {
		if shown := Tilde(p, rowHome) + " (" + why + ")"; !strings.Contains(may, shown) {
			t.Errorf("the card does not show %q: %q", shown, lines)
		}
	}
	if len(want) == 0 && may != "May change: nothing outside its temporary folder" {
		t.Errorf("a row with no places, yet the card says %q", lines)
	}
	text := strings.Join(lines, "\n")
	for _, u := range []struct {
		on   bool
		what string
	}{{c.net, "the network"}, {c.agent, "your ssh key"}, {c.signals, "signals to your other programs"}} {
		if strings.Contains(text, u.what) != u.on {
			t.Errorf("the card says %q; it should say %q: %v", text, u.what, u.on)
		}
	}
}

// readCases has one case per read row, keyed by the place under home:
// what it is and where its variable, if any, moves it.
var readCases = map[string]struct {
	env, moved string
}{
	".gitconfig":      {},
	".config/git":     {},
	"go":              {"GOPATH", "/gp/one"},
	".cache/go-build": {"GOCACHE", "/c/gocache"},
	".config/go":      {},
	"sdk":             {},
	".cargo":          {"CARGO_HOME", "/opt/cargo"},
	".rustup":         {"RUSTUP_HOME", "/opt/rustup"},
	".nvm":            {"NVM_DIR", "/opt/nvm"},
	".npm":            {},
	".pyenv":          {"PYENV_ROOT", "/opt/pyenv"},
	".local/lib":      {},
	".local/share/uv": {},
	".cache/pip":      {},
}

// TestReadRows checks each read row alone: the place is read under home,
// and where a variable moves it, there instead (GOPATH's first folder).
// It fails when a read row is added without a case.
func TestReadRows(t *testing.T) {
	for _, r := range readRows {
		c, ok := readCases[r.rel]
		t.Run(r.rel, func(t *testing.T) {
			t.Parallel()
			if !ok {
				t.Fatalf("the read row %s (%s) has no case in readCases", r.rel, r.what)
			}
			if r.env != c.env {
				t.Errorf("moved by %q, want %q", r.env, c.env)
			}
			if got := Reads(rowHome, nil); !slices.Contains(got, rowHome+"/"+r.rel) {
				t.Errorf("Reads lacks ~/%s: %q", r.rel, got)
			}
			if c.env == "" {
				return
			}
			val := c.moved
			if c.env == "GOPATH" {
				val += ":/gp/two"
			}
			got := Reads(rowHome, func(k string) string { return map[string]string{c.env: val}[k] })
			if !slices.Contains(got, c.moved) || slices.Contains(got, rowHome+"/"+r.rel) {
				t.Errorf("%s=%s: Reads %q, want %s in place of ~/%s", c.env, val, got, c.moved, r.rel)
			}
		})
	}
	for rel := range readCases {
		if !slices.ContainsFunc(readRows, func(r struct{ env, rel, what string }) bool { return r.rel == rel }) {
			t.Errorf("readCases has a case for %s, which has no read row", rel)
		}
	}
}
