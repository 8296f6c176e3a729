package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

// TestMakeDarwinCheckVetsTestFiles runs `make darwin-check` with a go that
// only records how it is called. The check is Linux's only compile check of
// macOS code, and `go build` never compiles a _test.go file: a test that
// names something defined only for Linux broke `make test` on every Mac
// while CI stayed green. So the check must vet the whole module, test files
// included, for both Mac architectures with cgo off (the cgo files are
// type-checked by TestDarwinTypeCheck).
func TestMakeDarwinCheckVetsTestFiles(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must have make for this test")
		}
		t.Skip("needs make")
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	dir := t.TempDir()
	fakeGo := filepath.Join(dir, "go")
	rec := filepath.Join(dir, "ran.txt")
	exectest.WriteProgram(t, fakeGo, []byte("#!/bin/sh\necho \"GOOS=${GOOS:-host} GOARCH=${GOARCH:-host} CGO_ENABLED=${CGO_ENABLED:-unset} go $*\" >> \"$RECORD\"\n"), 0o755)
	cmd := exec.Command(makeBin, "-s", "--no-print-directory", "-C", root, "darwin-check", "GO="+fakeGo)
	cmd.Env = append(os.Environ(), "RECORD="+rec)
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
		return strings.HasPrefix(kv, "GOOS=") || strings.HasPrefix(kv, "GOARCH=") || strings.HasPrefix(kv, "CGO_ENABLED=")
	})
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make darwin-check: %v\n%s", err, out)
	}
	ranB, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	ran := strings.Split(strings.TrimSpace(string(ranB)), "\n")
	for _, arch := range []string{"arm64", "amd64"} {
		want := "GOOS=darwin GOARCH=" + arch + " CGO_ENABLED=0 go vet ./..."
		if !slices.Contains(ran, want) {
			t.Errorf("make darwin-check never ran %q; it ran:\n\t%s", want, strings.Join(ran, "\n\t"))
		}
	}
}
