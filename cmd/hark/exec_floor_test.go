package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
)

// floorCommand is one forbidden entry of shell/policy's floor cases.
type floorCommand struct{ dir, cmd string }

// forbiddenFloorCases reads the forbidden entries of the policy's floor
// table (shell/policy/floor_cases_test.go) from its source, so that this
// test follows the table instead of a copy of it.
func forbiddenFloorCases(t *testing.T) []floorCommand {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "shell", "policy", "floor_cases_test.go"), nil, 0)
	if err != nil {
		t.Fatalf("reading the floor cases: %v", err)
	}
	var out []floorCommand
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "floorCases" || len(vs.Values) != 1 {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			el := e.(*ast.CompositeLit).Elts
			if len(el) != 5 {
				t.Fatalf("a floor case of %d fields", len(el))
			}
			if id, ok := el[3].(*ast.Ident); !ok || id.Name != "Forbidden" {
				continue
			}
			dir, err1 := strconv.Unquote(el[1].(*ast.BasicLit).Value)
			cmd, err2 := strconv.Unquote(el[2].(*ast.BasicLit).Value)
			if err1 != nil || err2 != nil {
				t.Fatalf("a floor case that is not two plain strings: %v %v", err1, err2)
			}
			out = append(out, floorCommand{dir, cmd})
		}
		return false
	})
	if len(out) < 40 {
		t.Fatalf("%d forbidden floor cases read, want the table's (at least 40)", len(out))
	}
	return out
}

// Every forbidden floor case is refused by `hark exec --yes`, where
// confirmation is off: forbidden beats --yes and the user's rules alike.
// The command must never act if the policy regressed, so each is first
// checked against the policy (and not run unless forbidden), and runs with
// --sandbox read-only, which writes nothing or, without a sandbox, runs
// nothing, in a throwaway home whose marker file must survive.
func TestExecYesRefusesFloor(t *testing.T) {
	execHome(t)
	home := os.Getenv("HOME")
	work := t.TempDir()
	for _, d := range []string{filepath.Join(home, "src"), filepath.Join(home, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	markers := []string{filepath.Join(home, "marker"), filepath.Join(work, "marker")}
	for _, m := range markers {
		if err := os.WriteFile(m, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pol := shell.NewPolicyFor(shell.SandboxReadOnly)
	for _, fc := range forbiddenFloorCases(t) {
		dir := fc.dir // exec reads ~ and ~/… as the (throwaway) home
		if dir == "" {
			dir = work
		}
		t.Run(fc.cmd, func(t *testing.T) {
			if fc.dir != "" && fc.dir != "/" && !strings.HasPrefix(fc.dir, "~") {
				t.Fatalf("a floor case in %q: place it in this test", fc.dir)
			}
			if v := pol.ClassifyIn(fc.cmd, dir); v.Tier != shell.Forbidden {
				t.Fatalf("the policy calls it %s in %s, so it is not run here: %v", v.Tier, dir, v.Reasons)
			}
			r := runExecCLI(t, "", false, "--yes", "--sandbox", "read-only", "--dir", dir, "--", fc.cmd)
			if r.code != exitOK {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if r.result.Executed || r.result.Tier != shell.Forbidden || !strings.Contains(r.result.Error, "Hark never runs this kind of command") {
				t.Errorf("%+v", r.result)
			}
		})
	}
	for _, m := range markers {
		if b, err := os.ReadFile(m); err != nil || string(b) != "keep" {
			t.Errorf("%s: %q, %v: a refused command acted", m, b, err)
		}
	}
}
