package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDarwinTypeCheck type-checks every package of Hark as macOS builds it
// with cgo, which no other check here does: the cross-build runs with
// CGO_ENABLED=0, so files such as app/hotkey/darwin_cgo.go,
// speech/portaudio/recorder_cgo.go and the menu-bar tray would otherwise
// never be compiled before they reach a Mac. The package list, files and
// import maps come from `go list` for GOOS=darwin with cgo on; go/types
// then checks the sources with FakeImportC, so a Go-side mistake (a wrong
// field, a missing method, a type mismatch) fails here, while the C side
// (`C.…`) stays unchecked: only a Mac's compiler can check that.
// The whisper tag is on, as make sets it where libwhisper is found, so
// speech/whisper's cgo (which CI, lacking libwhisper, compiles on no OS)
// is checked as well.
func TestDarwinTypeCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module and its dependencies for macOS; skipped with -short")
	}
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "-json", "-tags", "whisper", "github.com/hark-sh/hark/...")
	cmd.Env = append(cmd.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	type listed struct {
		ImportPath string
		Dir        string
		Standard   bool
		GoFiles    []string
		CgoFiles   []string
		ImportMap  map[string]string
		Module     *struct{ Path string }
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}

	// go list -deps lists every package after its dependencies, so one
	// pass in order finds each import already checked.
	fset := token.NewFileSet()
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	ours, withCgo := 0, 0
	// The cgo files this check exists for: each must have been reached.
	mustReach := map[string]bool{
		"speech/whisper/transcriber.go":        false,
		"speech/portaudio/recorder_cgo.go":     false,
		"app/hotkey/darwin_cgo.go":             false,
		"app/hotkey/escape_darwin_cgo.go":      false,
		"speech/portaudio/coreaudio_darwin.go": false,
		"app/hotkey/carbon_darwin_cgo.go":      false,
	}
	for _, p := range pkgs {
		if p.ImportPath == "unsafe" {
			continue
		}
		mine := p.Module != nil && p.Module.Path == "github.com/hark-sh/hark"
		var files []*ast.File
		cgoOnly := 0 // files built only with cgo: what the cgo-less cross-build never sees
		for _, name := range append(append([]string{}, p.GoFiles...), p.CgoFiles...) {
			if rel, ok := strings.CutPrefix(p.ImportPath+"/"+name, "github.com/hark-sh/hark/"); ok {
				if _, want := mustReach[rel]; want {
					mustReach[rel] = true
				}
			}
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			if needsCgo(f) {
				cgoOnly++
			}
		}
		var errs []string
		conf := types.Config{
			FakeImportC: true,
			GoVersion:   "", // each file's own go version applies
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if mapped, ok := p.ImportMap[path]; ok {
					path = mapped
				}
				if pkg := checked[path]; pkg != nil {
					return pkg, nil
				}
				return nil, fmt.Errorf("%s is not among the listed dependencies", path)
			}),
			// Keep going past an error, so that a dependency whose C side
			// cannot be modelled still yields its Go API.
			// An error about an invalid type comes from a value that a
			// dependency defines in C (FakeImportC gives those no type), not
			// from the Go code under test.
			Error: func(err error) {
				if msg := err.Error(); len(errs) < 20 && !strings.Contains(msg, "invalid type") {
					errs = append(errs, msg)
				}
			},
		}
		pkg, _ := conf.Check(p.ImportPath, fset, files, nil)
		checked[p.ImportPath] = pkg
		if !mine {
			continue
		}
		ours++
		if cgoOnly > 0 || len(p.CgoFiles) > 0 {
			withCgo++
		}
		if len(errs) > 0 {
			t.Errorf("%s does not type-check for macOS with cgo:\n\t%s", p.ImportPath, strings.Join(errs, "\n\t"))
		}
	}
	// The check must have reached the cgo files it exists for.
	for rel, reached := range mustReach {
		if !reached {
			t.Errorf("%s was not type-checked (a build tag or a constraint left it out)", rel)
		}
	}
	if ours < 10 || withCgo < 3 {
		t.Errorf("checked %d packages of Hark, %d with cgo files; want the whole module and its cgo adapters", ours, withCgo)
	}
}

// needsCgo reports whether f's build constraint asks for cgo.
func needsCgo(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if line, ok := strings.CutPrefix(c.Text, "//go:build "); ok {
				return strings.Contains(strings.ReplaceAll(line, "!cgo", ""), "cgo")
			}
		}
	}
	return false
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
