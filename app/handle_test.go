package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestHandleStaysShort keeps the event loop's dispatch readable at once:
// handle in app.go is at most 70 lines, and every case of its switch is a
// single call, so what an event means lives in a method of its own.
func TestHandleStaysShort(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "app.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var handle *ast.FuncDecl
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "handle" && fn.Recv != nil {
			handle = fn
		}
	}
	if handle == nil {
		t.Fatal("no method handle in app.go")
	}
	lines := fset.Position(handle.End()).Line - fset.Position(handle.Pos()).Line + 1
	if lines > 70 {
		t.Errorf("handle is %d lines, want at most 70: move events that only call a method of theirs behind selfHandled", lines)
	}
	cases := 0
	ast.Inspect(handle.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok {
			return true
		}
		cases++
		pos := fset.Position(cc.Pos())
		if len(cc.Body) != 1 {
			t.Errorf("case at line %d holds %d statements, want one call", pos.Line, len(cc.Body))
			return false
		}
		es, ok := cc.Body[0].(*ast.ExprStmt)
		if !ok {
			t.Errorf("case at line %d is a %T, want one call", pos.Line, cc.Body[0])
			return false
		}
		if _, ok := es.X.(*ast.CallExpr); !ok {
			t.Errorf("case at line %d is not a call", pos.Line)
		}
		return false
	})
	if cases == 0 {
		t.Error("handle has no switch cases; the test reads nothing")
	}
}
