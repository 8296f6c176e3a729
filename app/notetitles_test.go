package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxNoteTitle is the longest title of a notification without buttons
// that xfce4-notifyd shows whole: it keeps such a notification about 200
// pixels wide and ends a longer bold title with "…" (the walk saw "Hark —
// that did not …" and "Hark — download ca…"). Measured on Debian 12's
// xfce4-notifyd 0.6.4 with its default theme and font: 19 characters of
// "That did not happen" fit, "Something went wrong" (20) did not. GNOME
// and macOS show the app's name beside the title, so the title need not
// say "Hark" there either; Hark's icon says it on Xfce.
const maxNoteTitle = 19

// TestNotificationTitlesFit reads every notification the app and cmd/hark
// post as plain text (notify, notifyKey, Notify, …): each title is a
// literal short enough to be read whole, or a variable every one of whose
// literal values is; a title built from something variable (a model's or
// a file's name) is refused, since that is what made titles run past the
// edge. Names belong in the body. Approvals, whose buttons widen the
// notification, go through other calls and are not held to this.
//
// And all are in one style (walk 6, B3-14 saw "Hark", "That didn't
// happen", "Hark can't listen", "Could not open it" side by side): what
// happened in a few words, sentence case, no ending stop or dash, and no
// "Hark", which the icon and the app's name beside the title say.
func TestNotificationTitlesFit(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, dir := range []string{".", "../cmd/hark"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	titleArg := map[string]int{"notify": 0, "Notify": 0, "notifyKey": 1, "notifyEnding": 0, "NotifyKeyUndo": 1}
	seen := 0
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				i, ok := titleArg[sel.Sel.Name]
				if !ok || len(call.Args) <= i+1 {
					return true
				}
				at := fset.Position(call.Pos())
				titles, ok := literalValues(fn.Body, call.Args[i])
				if !ok {
					if id, isIdent := call.Args[i].(*ast.Ident); isIdent && fn.Type.Params != nil && isParam(fn, id.Name) {
						return true // a pass-through (notifyKey → Notify): its callers are checked
					}
					t.Errorf("%s: a notification title built from something variable; put names in the body", at)
					return true
				}
				for _, title := range titles {
					seen++
					if n := len([]rune(title)); n > maxNoteTitle {
						t.Errorf("%s: title %q has %d characters; xfce4-notifyd cuts it past %d", at, title, n, maxNoteTitle)
					}
					if why := titleStyle(title); why != "" {
						t.Errorf("%s: title %q %s", at, title, why)
					}
				}
				return true
			})
		}
	}
	if seen < 15 {
		t.Errorf("read only %d titles; the scan no longer finds the notifications", seen)
	}
	title, _ := openFailedNote("linux", "/a/long/path/to/some settings file.json", nil)
	if n := len([]rune(title)); n > maxNoteTitle {
		t.Errorf("openFailedNote's title %q has %d characters", title, n)
	}
}

// titleStyle says how title breaks the one style of titles, "" when it
// keeps it.
func titleStyle(title string) string {
	r := []rune(title)
	switch {
	case len(r) == 0:
		return "is empty"
	case strings.Contains(strings.ToLower(title), "hark"):
		return "names Hark, which the icon and the app's name say"
	case strings.ContainsAny(title, "—–"):
		return "has a dash"
	case strings.ContainsAny(string(r[len(r)-1]), ".:!;,"):
		return "ends with a stop"
	case strings.ToUpper(string(r[0])) != string(r[0]):
		return "does not start with a capital"
	}
	return ""
}

// literalValues is every value expr can have when it is a string literal,
// or an identifier (a variable or constant of the function) only ever
// given string literals; ok is false for anything else.
func literalValues(body *ast.BlockStmt, expr ast.Expr) (vals []string, ok bool) {
	switch e := expr.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return []string{s}, err == nil
	case *ast.Ident:
		ok = true
		found := false
		ast.Inspect(body, func(n ast.Node) bool {
			var rhs []ast.Expr
			switch s := n.(type) {
			case *ast.AssignStmt:
				for k, l := range s.Lhs {
					if id, isIdent := l.(*ast.Ident); isIdent && id.Name == e.Name && k < len(s.Rhs) {
						rhs = append(rhs, s.Rhs[k])
					}
				}
			case *ast.ValueSpec:
				for k, name := range s.Names {
					if name.Name == e.Name && k < len(s.Values) {
						rhs = append(rhs, s.Values[k])
					}
				}
			}
			for _, r := range rhs {
				found = true
				if c, isCall := r.(*ast.CallExpr); isCall {
					if f, isIdent := c.Fun.(*ast.Ident); isIdent && f.Name == "openFailedNote" {
						continue // its titles are checked on their own
					}
				}
				lit, isLit := r.(*ast.BasicLit)
				if !isLit {
					ok = false
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil {
					vals = append(vals, s)
				}
			}
			return true
		})
		return vals, ok && found
	}
	return nil, false
}

// isParam says whether name is a parameter of fn.
func isParam(fn *ast.FuncDecl, name string) bool {
	for _, f := range fn.Type.Params.List {
		for _, n := range f.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}

// TestApprovalTitlesKeepTheStyle: an approval's title is in the style of
// every other title ("Hark wants to run a command" and "Hark — a new
// proposal" were not), and one another program asks for names that
// program, never Hark.
func TestApprovalTitlesKeepTheStyle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		p    Pending
		want string
	}{
		{"the model's own", Pending{Command: "rm -r ~/old"}, "Run this command?"},
		{"a retry after a no", Pending{Command: "rm -r ~/old/*", AfterNo: "rm -r ~/old"}, "A new proposal"},
		{"a retry after a timeout", Pending{Command: "rm -r ~/old/*", AfterNo: "rm -r ~/old", AfterTimeout: true}, "A new proposal"},
		{"another program", Pending{Command: "rm x", Client: "Claude Desktop"}, "Claude Desktop wants to run a command"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			title := ApprovalTitle(c.p)
			if title != c.want {
				t.Errorf("title %q, want %q", title, c.want)
			}
			if why := titleStyle(title); why != "" {
				t.Errorf("title %q %s", title, why)
			}
		})
	}
}
