package trash

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/hark-sh/hark/shell/exectest"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The differential test: for generated trees and rm command lines, what
// Move to Trash moves in one copy of the tree is exactly what the real
// `bash -c 'rm …'` removes from another, or the plan refuses. It holds the
// Trash to GNU rm (coreutils) and bash themselves rather than to what
// this package believes they do.

// node is one entry of a generated tree, relative to its root.
type node struct {
	path, link string // link: a symbolic link's target
	dir        bool
	mode       fs.FileMode
}

// treeNodes builds a tree from seed: a fixed set of awkward names (dot
// files, brackets, spaces, a leading dash, links to folders inside and
// outside home, a dangling link), each kept or left out at random so
// that patterns match differently from one tree to the next.
func treeNodes(seed uint64) []node {
	r := rand.New(rand.NewPCG(seed, 20))
	all := [][]node{
		{{path: "home/w/f.txt"}},
		{{path: "home/w/.hidden"}},
		{{path: "home/w/a b"}},
		{{path: "home/w/[x]"}},
		{{path: "home/w/-v"}},
		{{path: "home/w/-q"}},
		{{path: "home/w/b.log"}},
		{{path: "home/w/ro.txt", mode: 0o444}},
		{{path: "home/w/d", dir: true}, {path: "home/w/d/x"}, {path: "home/w/d/.y"}, {path: "home/w/d/sub", dir: true}, {path: "home/w/d/sub/z"}},
		{{path: "home/w/.dotdir", dir: true}, {path: "home/w/.dotdir/k"}},
		{{path: "home/w/e", dir: true}},
		{{path: "home/w/a", dir: true}, {path: "home/w/a/b", dir: true}, {path: "home/w/a/b/c"}},
		{{path: "home/w/ld", link: "d"}},
		{{path: "home/w/le", link: "e"}},
		{{path: "home/w/lo", link: "../../outside/o"}},
		{{path: "home/w/lf", link: "f.txt"}},
		{{path: "home/w/ln", link: "nope"}},
	}
	out := []node{{path: "home", dir: true}, {path: "home/w", dir: true}, {path: "outside", dir: true},
		{path: "outside/o", dir: true}, {path: "outside/o/secret"}, {path: "outside/o/.s"}}
	for i, group := range all {
		if seed == 0 || i < 2 || r.IntN(10) < 7 {
			out = append(out, group...)
		}
	}
	return out
}

func materialize(t *testing.T, root string, nodes []node) {
	t.Helper()
	for _, n := range nodes {
		p := filepath.Join(root, n.path)
		var err error
		switch {
		case n.dir:
			err = os.Mkdir(p, 0o755)
		case n.link != "":
			err = os.Symlink(n.link, p)
		default:
			err = os.WriteFile(p, []byte(n.path), 0o644)
		}
		if err == nil && n.mode != 0 {
			err = os.Chmod(p, n.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// listing is every path under root, links not followed.
func listing(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rmLines are the command lines tried on every tree, in folder home/w.
func rmLines() []string {
	flags := []string{"", "-f", "-r", "-Rf", "-d", "-df", "--recu", "--rec --force", "-I", "-fi", "-if", "-r --"}
	targets := []string{
		"f.txt", "f.txt/", "f.txt/x", "d", "d/", "d/.", "d/..", "d/./", "a/b/..", "a/b/../b", "e", "e/", "e/.",
		"ld", "ld/", "le", "le/", "lo", "lo/", "lf", "lf/", "ln", "ln/", "nope", "nope/x",
		"*", ".*", "[!f]*", "[.]*", "{a,b}*", "d/*", "d/.*", "ld/*", "lo/*", "ld/x", "lo/secret", "**", "*/", ".[!.]*",
		"'a b'", `\[x\]`, "'[x]'", "-- -v", "./-v", "~/w/d", "~/w/d/.", "~/w/../w/f.txt", "ld/../f.txt", "lo/../x",
		"d d/x", "d/x d", "f.txt f.txt", "e d/sub/z", "d/sub/z d/sub d/x d/.y d", ".hidden", ".dotdir", "f.txt -r", "f.txt nope",
		"zz*", "~",
	}
	var out []string
	for _, f := range flags {
		for _, tg := range targets {
			out = append(out, strings.Join(strings.Fields("rm "+f+" "+tg), " "))
		}
	}
	for _, tg := range []string{"e", "e/", "le/", "d", "ld", "f.txt", "e/.", "a/b/..", "-v e", "a/b a", "a a/b", "nope", "*/"} {
		out = append(out, "rmdir "+tg)
	}
	// Lines that change the shell's options first are more than one
	// command, so the Trash is not offered; bash would still run them.
	out = append(out, "shopt -s dotglob; rm -rf *", "shopt -s nullglob; rm -f zz*", "GLOBIGNORE=x; rm *", "cd d && rm x", "set -f; rm '*'")
	// Patterns with spaces where bash sees them: f.txt and "a b" differ.
	out = append(out, "rm -r 'a b' d", `rm a\ b`, "rm -r {d,e}/", "rm -r ~/w/{d,ld}/")
	return out
}

type rmOutcome struct {
	refused, noStandIn, accepted, ran int
}

func TestMoveToTrashMatchesRm(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the deletions with")
	}
	if out, err := exec.Command("rm", "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU coreutils")) {
		t.Skip("the differential test holds the Trash to GNU rm, which is not on PATH")
	}
	// Tree 0 holds every name; the others leave some out at random.
	// HARK_TRASH_TREES asks for more of them.
	trees := 1
	if n, err := strconv.Atoi(os.Getenv("HARK_TRASH_TREES")); err == nil && n > 0 {
		trees = n
	}
	seeds := make([]uint64, trees)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	// Every line takes a tree copy and a real rm, so the suite (and CI,
	// root and nobody, under the race detector) takes every fifth: the
	// same kinds, a fifth of the time.
	// HARK_TRASH_ALL=1 takes them all; -short every twenty-fifth.
	lines := rmLines()
	if os.Getenv("HARK_TRASH_ALL") == "" {
		step := 5
		if testing.Short() {
			step = 25
		}
		var some []string
		for i := 0; i < len(lines); i += step {
			some = append(some, lines[i])
		}
		lines = some
	}
	var mu sync.Mutex
	var total rmOutcome
	t.Run("trees", func(t *testing.T) {
		for _, seed := range seeds {
			t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
				t.Parallel()
				nodes := treeNodes(seed)
				for _, line := range lines {
					o := diffOne(t, seed, nodes, line)
					mu.Lock()
					total.refused += o.refused
					total.noStandIn += o.noStandIn
					total.accepted += o.accepted
					total.ran += o.ran
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("as uid %d: %d cases (%d trees × %d lines): %d plans accepted and compared with rm, %d refused as rm cannot be stood in for, %d refused; rm ran %d times",
		os.Getuid(), len(seeds)*len(lines), len(seeds), len(lines), total.accepted, total.noStandIn, total.refused, total.ran)
	if total.accepted < len(seeds)*len(lines)/4 {
		t.Errorf("only %d plans accepted: the comparison barely ran", total.accepted)
	}
}

// diffOne runs line in two copies of the tree: the real rm in one, the
// Trash plan in the other, and compares what is left.
func diffOne(t *testing.T, seed uint64, nodes []node, line string) (o rmOutcome) {
	t.Helper()
	base := t.TempDir()
	rmRoot, trRoot := filepath.Join(base, "rm"), filepath.Join(base, "trash")
	for _, r := range []string{rmRoot, trRoot} {
		if err := os.Mkdir(r, 0o755); err != nil {
			t.Fatal(err)
		}
		materialize(t, r, nodes)
	}
	before := listing(t, trRoot)
	home := filepath.Join(trRoot, "home")
	p, perr := PlanFor(line, filepath.Join(home, "w"), home)

	// rm runs for every accepted plan, and for refusals that cite rm's
	// own; the other refusals make no claim about rm to check.
	dots := perr != nil && strings.Contains(perr.Error(), "refuses to remove '.' or '..'")
	if perr != nil && !dots {
		o.refused = 1
		return o
	}
	rmHome := filepath.Join(rmRoot, "home")
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = filepath.Join(rmHome, "w")
	cmd.Env = []string{"HOME=" + rmHome, "PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		t.Fatalf("%s: %v", line, runErr)
	}
	o.ran = 1
	afterRm := listing(t, rmRoot)
	where := fmt.Sprintf("tree %d, `%s`", seed, line)

	if perr != nil {
		o.refused = 1
		// A refusal that cites rm's own must be one: rm removed nothing.
		if !slices.Equal(afterRm, before) {
			t.Errorf("%s: the plan says rm refuses, but rm removed %q", where, missingFrom(before, afterRm))
		}
		return o
	}
	ok, problems := p.Check(p.Paths)
	if len(problems) == 1 && errors.Is(problems[0], ErrNoStandIn) {
		o.noStandIn = 1
		if len(ok) > 0 {
			t.Errorf("%s: no stand-in, yet %q would move", where, ok)
		}
		return o
	}
	for _, q := range ok {
		if !within(q, home) {
			t.Errorf("%s: would move %s, outside home", where, q)
		}
	}
	o.accepted = 1
	if len(ok) > 0 {
		b, err := New(Options{GOOS: "linux", Home: home, DataHome: filepath.Join(base, "data"), UID: os.Getuid(), UIDSet: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Trash(t.Context(), line, ok); err != nil {
			t.Errorf("%s: Trash(%q): %v", where, ok, err)
		}
	}
	afterTrash := listing(t, trRoot)
	if !slices.Equal(afterRm, afterTrash) {
		t.Errorf("%s:\nrm removed    %q (%s)\nTrash moved   %q (ok %q, problems %v)", where,
			missingFrom(before, afterRm), strings.TrimSpace(stderr.String()), missingFrom(before, afterTrash), ok, problems)
	}
	if (runErr == nil) != (len(problems) == 0) {
		t.Errorf("%s: rm exit %v (%s), Check problems %v", where, runErr, strings.TrimSpace(stderr.String()), problems)
	}
	return o
}

func missingFrom(before, after []string) []string {
	var out []string
	for _, p := range before {
		if !slices.Contains(after, p) {
			out = append(out, p)
		}
	}
	return out
}

const nobodyEnv = "HARK_TRASH_AS_NOBODY"

// The same comparison as an unprivileged user, who cannot pass over
// permissions as root does: the test binary runs again as nobody.
func TestMoveToTrashMatchesRmAsNobody(t *testing.T) {
	if os.Getenv(nobodyEnv) != "" {
		t.Skip("already the unprivileged run")
	}
	if os.Getuid() != 0 {
		t.Skip("runs as root, to drop to nobody; this run is already unprivileged")
	}
	if testing.Short() {
		t.Skip("the unprivileged run repeats the whole comparison; -short runs it once")
	}
	bin, work := exectest.NobodyCopy(t, "trash.test")
	cmd := exec.Command(bin, "-test.run", "^TestMoveToTrashMatchesRm$", "-test.count=1", "-test.v")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TMPDIR=" + work, nobodyEnv + "=1",
		"HARK_TRASH_TREES=" + os.Getenv("HARK_TRASH_TREES"), "HARK_TRASH_ALL=" + os.Getenv("HARK_TRASH_ALL")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the comparison failed as nobody: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestMoveToTrashMatchesRm")) {
		t.Fatalf("the unprivileged run did not run the comparison:\n%s", out)
	}
	t.Logf("as nobody:\n%s", out)
}
