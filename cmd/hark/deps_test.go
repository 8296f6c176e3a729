package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The module's import rules as data, in the spirit of tailscale's
// tstest/deptest but turned around: instead of listing what a few named
// packages must not pull in, every package of the module has a row saying
// what it may import, so a package nobody thought of yet fails until it is
// placed, and an edge nobody wrote down fails until it is added on purpose.
//
// On top of the rows sit the rules from DESIGN.md, checked on their own so
// that loosening a row cannot quietly break them:
//   - layers: cmd → app → agent → shell; speech and assets are leaves;
//   - test kits are imported by _test.go files only;
//   - only cmd/hark links the cgo adapters (tests that need one sit behind a
//     build tag, which the listing below does not set) and no kit or other
//     package reaches cmd/hark or an adapter, through the module or outside it.

// role says which of the cross-cutting rules a package falls under.
type role int

const (
	lib     role = iota // pure Go under CGO_ENABLED=0; linked wherever its layer allows
	kit                 // a test helper: imported by _test.go files only
	adapter             // wraps a cgo library; linked by cmd/hark alone
	binary              // cmd/hark, the one program that links the adapters
)

// deps is one row: imports lists the module packages (relative to the module
// path) that the package's non-test files may import; tests lists what its
// _test.go files may import beyond that. "x/..." means x and everything below.
type deps struct {
	role    role
	imports string
	tests   string
}

var importTable = map[string]deps{
	// cmd: the programs. cmd/hark wires everything, so its row is the layers.
	"cmd/hark":  {role: binary, imports: "app/... agent/... shell/... speech/... assets/..."},
	"cmd/mkapp": {imports: "app/bundle"},

	// app: the menu-bar core and the pieces around it.
	"app":             {imports: "agent app/settings shell shell/preview shell/rules shell/trash shell/visible speech speech/models", tests: "agent/ollamatest shell/exectest shell/scope"},
	"app/bundle":      {imports: "app/settings assets", tests: "shell/exectest"},
	"app/control":     {imports: "app", tests: "agent app/settings"},
	"app/desktop":     {imports: "app app/doctor app/settings assets shell shell/preview shell/rules speech", tests: "agent app/e2e/harness shell/exectest shell/scope"},
	"app/doctor":      {imports: "app/bundle app/settings", tests: "agent agent/ollamatest speech/models"},
	"app/e2e":         {}, // its tests are all behind the e2e tag
	"app/e2e/harness": {role: kit},
	"app/hotkey":      {role: adapter, imports: "app/doctor", tests: "app/e2e/harness"},
	"app/logs":        {imports: "app/settings"},
	"app/settings":    {imports: "shell/atomicfile"},
	"app/tray":        {role: adapter, imports: "app app/desktop app/doctor assets", tests: "app/e2e/harness"},

	// agent: the loop. Its tests borrow app/settings' atomic writer for the
	// files the agent keeps; a test-only edge, so it links nothing into agent.
	// Its scenarios run against each OpenAI-compatible runtime too, so its
	// tests import the adapter, which therefore imports nothing of agent.
	"agent":            {imports: "agent/internal/loopback assets shell shell/plan shell/policy shell/preview shell/rules shell/scope shell/trash shell/visible", tests: "agent/ollamatest agent/openai agent/openai/openaitest app/settings shell/exectest"},
	"agent/ollamatest": {role: kit},
	// agent/internal/loopback: what keeps both model clients' "local"
	// requests on this machine.
	"agent/internal/loopback": {},
	// agent/openai: the ChatClient for LM Studio, llama-server, mlx-lm and
	// Jan; its tests check it against the agent's seams.
	"agent/openai":            {imports: "agent/internal/loopback", tests: "agent agent/openai/openaitest"},
	"agent/openai/openaitest": {role: kit},

	// shell: running, classifying and undoing commands.
	"shell":                  {imports: "shell/internal/sandbox shell/plan shell/policy shell/scope", tests: "shell/internal/abitest shell/exectest"},
	"shell/atomicfile":       {},
	"shell/exectest":         {role: kit}, // programs a test writes and runs, never "text file busy"
	"shell/internal/abitest": {role: kit},
	// Its tests check the Seatbelt rules against agent's private list.
	"shell/internal/sandbox": {imports: "shell/scope", tests: "agent shell/exectest"},
	"shell/plan":             {},
	"shell/visible":          {},
	"shell/policy":           {imports: "shell/plan"},
	"shell/preview":          {imports: "shell shell/plan shell/policy shell/scope shell/visible", tests: "shell/exectest"},
	// shell/scope: what one run may change and reach, pure.
	"shell/scope": {},
	"shell/rules": {imports: "shell/atomicfile shell/plan shell/policy"},
	"shell/trash": {imports: "shell/atomicfile shell/plan", tests: "shell/exectest"},

	// speech: a leaf, with its two cgo adapters.
	"speech":            {tests: "speech/speechtest"},
	"speech/models":     {imports: "speech"},
	"speech/portaudio":  {role: adapter, imports: "speech"},
	"speech/speechtest": {role: kit, imports: "speech"},
	"speech/whisper":    {role: adapter, imports: "speech"},

	// assets: a leaf.
	"assets":                  {},
	"assets/internal/icongen": {},
}

// layerRank orders the top-level directories: a package may import its own
// layer or a lower one. speech and assets share the bottom rank, so neither
// imports the other or anything above.
var layerRank = map[string]int{"cmd": 4, "app": 3, "agent": 2, "shell": 1, "speech": 0, "assets": 0}

// cgoLibraries need a C toolchain and system libraries in some build (cgo
// on one OS only, or behind a tag), so only adapters import them. Any other
// non-standard package with cgo files in the listing counts too, unless
// cgoOptional says it has a pure-Go path under CGO_ENABLED=0.
var cgoLibraries = []string{
	"fyne.io/systray",
	"github.com/ggerganov/whisper.cpp/bindings/go",
	"github.com/gordonklaus/portaudio",
	"golang.design/x/hotkey",
}

var cgoOptional = map[string]string{
	"kernel.org/pub/linux/libs/security/libcap/psx": "go-landlock's all-threads system calls; pure Go when CGO_ENABLED=0",
}

// listedPkg holds the fields of `go list -json` the checker reads.
type listedPkg struct {
	ImportPath   string
	ForTest      string
	Standard     bool
	CgoFiles     []string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Module       *struct {
		Path string
		Main bool
	}
}

// depGraph is one build's packages by import path, test variants left out
// (a package's test imports are on its own entry).
type depGraph struct {
	module string
	pkgs   map[string]*listedPkg
}

// parseGoList reads the stream of JSON objects `go list -json` writes.
func parseGoList(r io.Reader) (depGraph, error) {
	g := depGraph{pkgs: map[string]*listedPkg{}}
	dec := json.NewDecoder(r)
	for {
		p := new(listedPkg)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return g, err
		}
		// "x [y.test]" and "y_test [y.test]" are recompiled copies and
		// external test packages, "y.test" the generated main: their
		// edges already appear as TestImports and XTestImports of y.
		if p.ForTest != "" || strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		g.pkgs[p.ImportPath] = p
		if p.Module != nil && p.Module.Main {
			g.module = p.Module.Path
		}
	}
	if g.module == "" {
		return g, errors.New("no package of the main module in the listing")
	}
	return g, nil
}

// rel returns path relative to the module, and whether it is the module's.
func (g depGraph) rel(path string) (string, bool) {
	if path == g.module {
		return ".", true
	}
	r, ok := strings.CutPrefix(path, g.module+"/")
	return r, ok
}

func layerOf(rel string) string {
	l, _, _ := strings.Cut(rel, "/")
	return l
}

// layerAllows reports whether from may import to under the layer order.
func layerAllows(from, to string) bool {
	lf, lt := layerOf(from), layerOf(to)
	if lf == lt {
		return true
	}
	rf, okf := layerRank[lf]
	rt, okt := layerRank[lt]
	return okf && okt && rf > rt
}

const layerRule = "cmd → app → agent → shell; speech and assets are leaves"

func matches(pattern, rel string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == prefix || strings.HasPrefix(rel, prefix+"/")
	}
	return pattern == rel
}

func (d deps) allows(rel string, test bool) bool {
	list := strings.Fields(d.imports)
	if test {
		list = append(list, strings.Fields(d.tests)...)
	}
	return slices.ContainsFunc(list, func(p string) bool { return matches(p, rel) })
}

// checkTable finds rows that contradict the rules they sit under, so the
// table itself cannot grant what DESIGN.md forbids.
func checkTable(table map[string]deps) []string {
	var errs []string
	for _, name := range sortedKeys(table) {
		row := table[name]
		if elems := strings.Split(name, "/"); strings.HasSuffix(elems[len(elems)-1], "test") && row.role != kit {
			errs = append(errs, fmt.Sprintf("row %s: named like a test kit (httptest, ollamatest) but not given role kit", name))
		}
		if _, ok := layerRank[layerOf(name)]; !ok {
			errs = append(errs, fmt.Sprintf("row %s: top-level directory %q has no place in layerRank", name, layerOf(name)))
		}
		for _, imp := range strings.Fields(row.imports) {
			target := strings.TrimSuffix(imp, "/...")
			if !layerAllows(name, target) {
				errs = append(errs, fmt.Sprintf("row %s allows %s against the layers (%s)", name, imp, layerRule))
			}
			if !slices.ContainsFunc(sortedKeys(table), func(r string) bool { return matches(imp, r) }) {
				errs = append(errs, fmt.Sprintf("row %s allows %s, which is no row of the table", name, imp))
			}
			if t, ok := table[imp]; ok && t.role == kit {
				errs = append(errs, fmt.Sprintf("row %s lets non-test code import test kit %s: list it under tests", name, imp))
			}
			if t, ok := table[imp]; ok && t.role == adapter && row.role != binary {
				errs = append(errs, fmt.Sprintf("row %s allows cgo adapter %s: only cmd/hark links adapters", name, imp))
			}
		}
		for _, imp := range strings.Fields(row.tests) {
			if !slices.ContainsFunc(sortedKeys(table), func(r string) bool { return matches(imp, r) }) {
				errs = append(errs, fmt.Sprintf("row %s lets tests import %s, which is no row of the table", name, imp))
			}
		}
	}
	return errs
}

// checkGraph checks one build's graph against the table and the rules.
func checkGraph(g depGraph, table map[string]deps) []string {
	var errs []string
	for _, path := range sortedKeys(g.pkgs) {
		p := g.pkgs[path]
		name, ours := g.rel(path)
		if !ours {
			continue
		}
		row, placed := table[name]
		if !placed {
			errs = append(errs, fmt.Sprintf("%s is in no row of importTable: give it a role and what it may import", name))
			continue
		}
		if len(p.CgoFiles) > 0 && row.role != adapter && row.role != binary {
			errs = append(errs, fmt.Sprintf("%s has cgo files %v: cgo belongs in an adapter that only cmd/hark imports", name, p.CgoFiles))
		}
		for _, imp := range p.Imports {
			if msg := g.checkEdge(table, name, row, imp, false); msg != "" {
				errs = append(errs, msg)
			}
		}
		for _, imp := range testImports(p) {
			if msg := g.checkEdge(table, name, row, imp, true); msg != "" {
				errs = append(errs, msg)
			}
		}
		if row.role == lib || row.role == kit {
			errs = append(errs, g.checkReach(table, name, p)...)
		}
	}
	return errs
}

func testImports(p *listedPkg) []string {
	var all []string
	for _, imp := range append(slices.Clone(p.TestImports), p.XTestImports...) {
		if imp != p.ImportPath && !slices.Contains(all, imp) {
			all = append(all, imp)
		}
	}
	return all
}

// checkEdge judges one direct import of the module by the module.
func (g depGraph) checkEdge(table map[string]deps, from string, row deps, imp string, test bool) string {
	to, ours := g.rel(imp)
	if !ours {
		return "" // outside packages only matter through checkReach
	}
	in := "imports"
	if test {
		in = "tests import"
	}
	target, placed := table[to]
	switch {
	case !placed:
		return "" // reported on its own entry
	case target.role == kit && !test:
		return fmt.Sprintf("%s imports test kit %s: kits are imported by _test.go files only", from, to)
	case !test && !layerAllows(from, to):
		return fmt.Sprintf("%s imports %s: %s sits below %s (%s)", from, to, layerOf(from), layerOf(to), layerRule)
	case !row.allows(to, test):
		return fmt.Sprintf("%s %s %s, which its row in importTable does not list: add it there if the edge is meant", from, in, to)
	}
	return ""
}

// checkReach walks everything the package links, in the module and outside
// it, and fails it if that reaches a program, a cgo adapter or a cgo
// library. Its tests are walked too: the listing sets no build tags, so
// what it sees of them is what plain `go test` builds.
func (g depGraph) checkReach(table map[string]deps, name string, p *listedPkg) []string {
	var errs []string
	if chain := g.reach(table, p.Imports); chain != nil {
		errs = append(errs, fmt.Sprintf("%s links %s (%s → %s): only cmd/hark links programs, cgo adapters and cgo libraries", name, g.show(chain[len(chain)-1:]), name, g.show(chain)))
	}
	if chain := g.reach(table, testImports(p)); chain != nil {
		errs = append(errs, fmt.Sprintf("%s's tests link %s (%s tests → %s): a test that needs it goes behind a build tag", name, g.show(chain[len(chain)-1:]), name, g.show(chain)))
	}
	return errs
}

// reach returns the first import chain from roots to a package that only
// cmd/hark may link, or nil.
func (g depGraph) reach(table map[string]deps, roots []string) []string {
	parent := map[string]string{}
	var queue []string
	for _, r := range roots {
		if _, seen := parent[r]; !seen {
			parent[r] = ""
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		if g.forbidden(table, path) {
			var chain []string
			for at := path; at != ""; at = parent[at] {
				chain = append(chain, at)
			}
			slices.Reverse(chain)
			return chain
		}
		if p := g.pkgs[path]; p != nil {
			for _, imp := range p.Imports {
				if _, seen := parent[imp]; !seen {
					parent[imp] = path
					queue = append(queue, imp)
				}
			}
		}
	}
	return nil
}

func (g depGraph) forbidden(table map[string]deps, path string) bool {
	if name, ours := g.rel(path); ours {
		r := table[name].role
		return r == adapter || r == binary
	}
	if slices.ContainsFunc(cgoLibraries, func(lib string) bool { return path == lib || strings.HasPrefix(path, lib+"/") }) {
		return true
	}
	p := g.pkgs[path]
	_, optional := cgoOptional[path]
	return p != nil && !p.Standard && len(p.CgoFiles) > 0 && !optional
}

func (g depGraph) show(chain []string) string {
	out := make([]string, len(chain))
	for i, c := range chain {
		if r, ours := g.rel(c); ours {
			c = r
		}
		out[i] = c
	}
	return strings.Join(out, " → ")
}

// staleRows finds rows naming a package no build listed.
func staleRows(table map[string]deps, seen map[string]bool) []string {
	var errs []string
	for _, name := range sortedKeys(table) {
		if !seen[name] {
			errs = append(errs, fmt.Sprintf("row %s names no package of the module: remove it", name))
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestImportTable lists the module once per shipped GOOS, tests included,
// with cgo on as in the release builds (cgo files are where adapter imports
// live), and checks every package and edge.
func TestImportTable(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH to list the module with")
	}
	for _, msg := range checkTable(importTable) {
		t.Error(msg)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	listed := 0
	t.Run("GOOS", func(t *testing.T) {
		for _, target := range []struct{ goos, goarch string }{{"linux", "amd64"}, {"darwin", "arm64"}} {
			t.Run(target.goos, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command("go", "list", "-deps", "-test",
					"-json=ImportPath,ForTest,Standard,CgoFiles,Imports,TestImports,XTestImports,Module",
					"github.com/hark-sh/hark/...")
				cmd.Env = append(cmd.Environ(), "GOOS="+target.goos, "GOARCH="+target.goarch, "CGO_ENABLED=1")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
				}
				g, err := parseGoList(bytes.NewReader(out))
				if err != nil {
					t.Fatalf("reading go list output: %v", err)
				}
				for _, msg := range checkGraph(g, importTable) {
					t.Error(msg)
				}
				mu.Lock()
				defer mu.Unlock()
				listed++
				for path := range g.pkgs {
					if name, ours := g.rel(path); ours {
						seen[name] = true
					}
				}
			})
		}
	})
	// A row is stale only if no build has its package, so both must have
	// been listed.
	if listed == 2 {
		for _, msg := range staleRows(importTable, seen) {
			t.Error(msg)
		}
	}
}

// synthGraph builds a graph from lines "pkg: imports | test imports". Names
// whose first element has no dot are the module's (relative to it), the rest
// outside it; a leading "cgo " marks a package with cgo files. Packages only
// imported get empty entries, as go list -deps would list them.
func synthGraph(lines ...string) depGraph {
	const mod = "example.com/hark"
	g := depGraph{module: mod, pkgs: map[string]*listedPkg{}}
	full := func(name string) string {
		if first, _, _ := strings.Cut(name, "/"); strings.Contains(first, ".") {
			return name
		}
		return mod + "/" + name
	}
	get := func(name string) *listedPkg {
		path := full(name)
		if g.pkgs[path] == nil {
			g.pkgs[path] = &listedPkg{ImportPath: path}
		}
		return g.pkgs[path]
	}
	for _, line := range lines {
		name, rest, _ := strings.Cut(line, ":")
		cgo := false
		if n, ok := strings.CutPrefix(name, "cgo "); ok {
			name, cgo = n, true
		}
		p := get(name)
		if cgo {
			p.CgoFiles = []string{"c.go"}
		}
		imports, tests, _ := strings.Cut(rest, "|")
		for _, imp := range strings.Fields(imports) {
			p.Imports = append(p.Imports, full(imp))
			get(imp)
		}
		for _, imp := range strings.Fields(tests) {
			p.TestImports = append(p.TestImports, full(imp))
			get(imp)
		}
	}
	return g
}

// TestImportRules feeds the checker graphs that break one rule each (and a
// few that break none), so every rule is seen to fail, not only to pass.
func TestImportRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		graph []string
		want  string // a substring of one error; "" means no errors at all
	}{
		{name: "the layers in order pass",
			graph: []string{"cmd/hark: app agent shell speech assets app/hotkey speech/whisper", "app: agent shell speech", "agent: shell assets", "shell: shell/policy", "app/hotkey: golang.design/x/hotkey", "speech/whisper: speech"}},
		{name: "a test kit imported by a test passes",
			graph: []string{"agent: shell | agent/ollamatest", "agent/ollamatest: github.com/ollama/ollama/api"}},
		{name: "a cgo-optional library passes",
			graph: []string{"shell/internal/sandbox: github.com/landlock-lsm/go-landlock/landlock", "github.com/landlock-lsm/go-landlock/landlock: kernel.org/pub/linux/libs/security/libcap/psx", "cgo kernel.org/pub/linux/libs/security/libcap/psx:"}},
		{name: "an adapter's own tests may link it",
			graph: []string{"speech/portaudio: speech github.com/gordonklaus/portaudio | github.com/gordonklaus/portaudio"}},

		{name: "a new package is in no row", graph: []string{"shell/newthing: shell/policy"},
			want: "shell/newthing is in no row of importTable"},
		{name: "shell imports agent", graph: []string{"shell: agent"},
			want: "shell imports agent: shell sits below agent"},
		{name: "shell imports app", graph: []string{"shell/rules: app/settings"},
			want: "shell/rules imports app/settings: shell sits below app"},
		{name: "agent imports app", graph: []string{"agent: app"},
			want: "agent imports app: agent sits below app"},
		{name: "speech imports shell", graph: []string{"speech: shell/policy"},
			want: "speech imports shell/policy: speech sits below shell"},
		{name: "speech imports agent", graph: []string{"speech/models: agent"},
			want: "speech/models imports agent: speech sits below agent"},
		{name: "speech imports app", graph: []string{"speech: app/settings"},
			want: "speech imports app/settings: speech sits below app"},
		{name: "a leaf imports the other leaf", graph: []string{"speech: assets"},
			want: "speech imports assets: speech sits below assets"},
		{name: "an edge within the layers but not in the row", graph: []string{"shell/policy: shell/atomicfile"},
			want: "shell/policy imports shell/atomicfile, which its row in importTable does not list"},
		{name: "a test edge not in the row", graph: []string{"shell/rules: | shell/trash"},
			want: "shell/rules tests import shell/trash, which its row"},
		{name: "a test kit imported by non-test code", graph: []string{"agent: agent/ollamatest"},
			want: "agent imports test kit agent/ollamatest"},
		{name: "a test kit imports the binary", graph: []string{"speech/speechtest: speech cmd/hark"},
			want: "speech/speechtest links cmd/hark"},
		{name: "a test kit imports an adapter", graph: []string{"app/e2e/harness: app/hotkey"},
			want: "app/e2e/harness links app/hotkey"},
		{name: "a pure package imports an adapter", graph: []string{"app/desktop: app speech/whisper"},
			want: "app/desktop links speech/whisper (app/desktop → speech/whisper)"},
		{name: "an adapter two steps down", graph: []string{"app: agent", "agent: app/tray"},
			want: "app links app/tray (app → agent → app/tray)"},
		{name: "a plain test links an adapter", graph: []string{"speech/models: speech | speech/portaudio"},
			want: "speech/models's tests link speech/portaudio"},
		{name: "a plain test links a cgo library", graph: []string{"app/hotkey: app/doctor", "app/doctor: | golang.design/x/hotkey"},
			want: "app/doctor's tests link golang.design/x/hotkey"},
		{name: "another program links an adapter", graph: []string{"cmd/mkapp: app/bundle app/tray"},
			want: "cmd/mkapp links app/tray"},
		{name: "a cgo library through an outside package", graph: []string{"app/logs: example.org/notify", "example.org/notify: fyne.io/systray/internal"},
			want: "app/logs links fyne.io/systray/internal (app/logs → example.org/notify → fyne.io/systray/internal)"},
		{name: "an unknown cgo library", graph: []string{"shell/trash: example.org/xattr", "cgo example.org/xattr:"},
			want: "shell/trash links example.org/xattr"},
		{name: "cgo files in a pure package", graph: []string{"cgo shell/trash:"},
			want: "shell/trash has cgo files [c.go]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			errs := checkGraph(synthGraph(c.graph...), importTable)
			if c.want == "" {
				if len(errs) > 0 {
					t.Fatalf("want no errors, got:\n%s", strings.Join(errs, "\n"))
				}
				return
			}
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, c.want) }) {
				t.Fatalf("want an error containing %q, got:\n%s", c.want, strings.Join(errs, "\n"))
			}
		})
	}
}

// TestImportTableRules loosens one row of a copy of the table per case: the
// table must not be able to grant what the rules forbid.
func TestImportTableRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(map[string]deps)
		want string
	}{
		{name: "a row allows an upward import",
			edit: func(m map[string]deps) { m["shell"] = deps{imports: "shell/policy agent"} },
			want: "row shell allows agent against the layers"},
		{name: "a leaf row allows the other leaf",
			edit: func(m map[string]deps) { m["speech"] = deps{imports: "assets"} },
			want: "row speech allows assets against the layers"},
		{name: "a row outside the layers",
			edit: func(m map[string]deps) { m["tools/gen"] = deps{} },
			want: `row tools/gen: top-level directory "tools" has no place in layerRank`},
		{name: "non-test code may import a kit",
			edit: func(m map[string]deps) { m["agent"] = deps{imports: "shell agent/ollamatest"} },
			want: "row agent lets non-test code import test kit agent/ollamatest"},
		{name: "a library may import an adapter",
			edit: func(m map[string]deps) { m["app"] = deps{imports: "agent app/hotkey"} },
			want: "row app allows cgo adapter app/hotkey"},
		{name: "a test kit placed as a library",
			edit: func(m map[string]deps) { m["app/desktoptest"] = deps{imports: "app"} },
			want: "row app/desktoptest: named like a test kit"},
		{name: "a row names a package that has no row",
			edit: func(m map[string]deps) { m["shell/rules"] = deps{imports: "shell/polcy"} },
			want: "row shell/rules allows shell/polcy, which is no row"},
		{name: "a test entry names a package that has no row",
			edit: func(m map[string]deps) { m["shell"] = deps{tests: "shell/internal/abitests"} },
			want: "row shell lets tests import shell/internal/abitests, which is no row"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			table := make(map[string]deps, len(importTable))
			for k, v := range importTable {
				table[k] = v
			}
			c.edit(table)
			errs := checkTable(table)
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, c.want) }) {
				t.Fatalf("want an error containing %q, got:\n%s", c.want, strings.Join(errs, "\n"))
			}
		})
	}
	t.Run("a row whose package is gone", func(t *testing.T) {
		t.Parallel()
		seen := map[string]bool{}
		for name := range importTable {
			seen[name] = name != "shell/trash"
		}
		errs := staleRows(importTable, seen)
		if len(errs) != 1 || !strings.Contains(errs[0], "row shell/trash names no package") {
			t.Fatalf("want one stale row shell/trash, got %q", errs)
		}
	})
}
