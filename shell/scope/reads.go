package scope

import (
	"path/filepath"
	"slices"
	"strings"
)

// readRows are what programs read under home beyond the folder they work
// in: their settings and the toolchains they run, one row each. A command
// whose output leaves the machine (another program's call, a cloud
// model's) reads these, the folder it works in, what its scope may change
// and the system; the rest of home is hidden from it (Fence). Keys,
// tokens and history inside these stay hidden all the same: the private
// list is hidden on top.
var readRows = []struct {
	env  string // the variable that moves it, if any
	rel  string // under home otherwise
	what string
}{
	{"", ".gitconfig", "git's settings"},
	{"", ".config/git", "git's settings"},
	{"GOPATH", "go", "Go's modules and tools"},
	{"GOCACHE", ".cache/go-build", "Go's build cache"},
	{"", ".config/go", "Go's settings"},
	{"", "sdk", "Go toolchains"},
	{"CARGO_HOME", ".cargo", "cargo's crates and tools"},
	{"RUSTUP_HOME", ".rustup", "Rust toolchains"},
	{"NVM_DIR", ".nvm", "Node.js versions"},
	{"", ".npm", "npm's package cache"},
	{"PYENV_ROOT", ".pyenv", "Python versions"},
	{"", ".local/lib", "Python packages installed for you"},
	{"", ".local/share/uv", "uv's Pythons and tools"},
	{"", ".cache/pip", "pip's download cache"},
}

// Reads are the places under home that every command may read, as
// readRows and the folders of PATH under home (the user's own programs)
// name them, with env looking up the environment (nil: none).
func Reads(home string, env func(string) string) []string {
	if home == "" {
		return nil
	}
	if env == nil {
		env = func(string) string { return "" }
	}
	var out []string
	add := func(p string) {
		if p = filepath.Clean(p); filepath.IsAbs(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, r := range readRows {
		if v := env(r.env); r.env != "" && filepath.IsAbs(v) {
			add(strings.Split(v, string(filepath.ListSeparator))[0])
			continue
		}
		add(filepath.Join(home, r.rel))
	}
	for _, d := range filepath.SplitList(env("PATH")) {
		if filepath.IsAbs(d) && Under(filepath.Clean(d), filepath.Clean(home)) && filepath.Clean(d) != filepath.Clean(home) {
			add(d)
		}
	}
	return out
}
