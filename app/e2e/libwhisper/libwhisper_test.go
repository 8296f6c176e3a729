//go:build e2e

// Package libwhisper runs the whisper-tagged build against Debian's
// libwhisper in the sid root that .ci/sid-root.sh makes. It is a package
// of its own so that its compile and its tests (a minute or two on two
// cores) get their own test binary and timeout beside the desktop suite.
package libwhisper

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The whisper-tagged build, compiled and run against Debian's libwhisper
// in the sid root (libwhisper-dev, with ggml's CPU plug-ins) through the
// Makefile's own detection, so the cgo path is compiled on every
// submission: `make whisper-config` must choose the tag, `make build`
// must link, the binary's doctor must hear with that library, and the
// speech/whisper tests run with the weight-less test model
// (../shared/whisper, or HARK_WHISPER_TEST_MODEL).
//
// The repository is copied into the root (make writes its placeholder
// archives under bin/); the host's Go, module cache and the model are
// bound in read-only, in a mount namespace of the test's own, so nothing
// stays mounted. The build cache stays in the root for the next run.
// Cold, on two cores, the build and the tests take two to three minutes.
func TestWhisperAgainstDebianLibwhisper(t *testing.T) {
	root := needRoot(t)
	repo := filepath.Join("..", "..", "..")
	model := os.Getenv("HARK_WHISPER_TEST_MODEL")
	if model == "" {
		model, _ = filepath.Abs(filepath.Join(repo, "..", "shared", "whisper", "for-tests-ggml-tiny.en.bin"))
	}
	if !present(model) {
		skipOrFail(t, "no whisper test model at "+model+" (set HARK_WHISPER_TEST_MODEL)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		skipOrFail(t, "unshare (util-linux) is not installed")
	}
	goroot, modcache := goEnv(t, "GOROOT"), goEnv(t, "GOMODCACHE")

	// One fixed folder: the compiler records where the source was, so a
	// new folder each run would rebuild everything.
	src, inner := filepath.Join(root, "hark-ci", "src"), "/hark-ci/src"
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(src) })
	copyTree(t, repo, src)

	// Mount points, made once and left empty outside the namespace.
	for _, d := range []string{"hark-ci/go", "hark-ci/mod", "hark-ci/model", "var/cache/hark-go"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mounts := "set -e\n" +
		"mount --bind -o ro " + quote(goroot) + " " + quote(root+"/hark-ci/go") + "\n" +
		"mount --bind -o ro " + quote(modcache) + " " + quote(root+"/hark-ci/mod") + "\n" +
		"mount --bind -o ro " + quote(filepath.Dir(model)) + " " + quote(root+"/hark-ci/model") + "\n"
	env := []string{"PATH=/hark-ci/go/bin:/usr/bin:/bin", "HOME=" + inner, "GOROOT=/hark-ci/go", "GOMODCACHE=/hark-ci/mod",
		"GOCACHE=/var/cache/hark-go", "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "LANG=C.UTF-8",
		"HARK_WHISPER_TEST_MODEL=/hark-ci/model/" + filepath.Base(model)}
	inRoot := func(script string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		// Niced: the desktop suite runs beside it (go test runs the two
		// packages at once) and its waits are the ones with time limits.
		cmd := exec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "nice", "-n", "10", "sh", "-c",
			mounts+"exec chroot "+quote(root)+" /usr/bin/env -i "+strings.Join(env, " ")+" sh -c "+quote("cd "+inner+" && "+script))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("in the sid root: %s: %v\n%s", script, err, tail(string(out), 6000))
		}
		return string(out)
	}

	config := inRoot("make -s whisper-config")
	if !strings.Contains(config, "tags: whisper") {
		t.Fatalf("make whisper-config does not choose the whisper tag against Debian's libwhisper:\n%s", config)
	}
	t.Logf("make whisper-config:\n%s", config)

	doctor := inRoot("make -s build BIN=" + inner + "/bin/hark && cat bin/hark.tags && HARK_HOME=" + inner + "/home bin/hark doctor || true")
	if !strings.Contains(doctor, "Speech recognition") || !strings.Contains(doctor, "built with whisper.cpp") {
		t.Errorf("the whisper-tagged binary's doctor does not hear with libwhisper:\n%s", doctor)
	}

	// The Makefile exports its cgo flags to its own build and test; the
	// whisper-tagged tests get the same ones here (the others run in
	// every make test already).
	tagged := taggedTests(t, filepath.Join(repo, "speech", "whisper"))
	out := inRoot(`CGO_LDFLAGS="-O2 -g $(make -s whisper-config | sed -n 's/^ldflags: //p')" ` +
		`CGO_CFLAGS="-O2 -g $(make -s whisper-config | sed -n 's/^cflags: //p')" ` +
		`go test -tags whisper -count=1 -run '^(` + strings.Join(tagged, "|") + `)$' -v ./speech/whisper/ 2>&1 | grep -E '^(--- |ok|FAIL|PASS|panic)'`)
	if !strings.Contains(out, "ok ") || strings.Contains(out, "FAIL") {
		t.Errorf("speech/whisper's tests against Debian's libwhisper:\n%s", out)
	}
	// The cgo path really ran: a skip would hide what this test is for.
	for _, name := range []string{"TestTranscribeJFK", "TestModelLoadHasACPUBackend", "TestTranscribeWords"} {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass against libwhisper:\n%s", name, out)
		}
	}
	t.Logf("against Debian's libwhisper:\n%s", out)
}

// taggedTests are the tests of dir's files built only with the whisper
// tag: the ones that need libwhisper.
func taggedTests(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if !strings.HasPrefix(first, "//go:build") || !strings.Contains(first, "whisper") || strings.Contains(first, "!whisper") {
			continue
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("no whisper-tagged tests in %s", dir)
	}
	return names
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

// copyTree copies the repository's files from src to dst, without its
// history and what builds leave in bin/.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (rel == ".git" || rel == "bin" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, _ := d.Info()
			return os.WriteFile(to, b, info.Mode().Perm())
		}
		return nil // links and the like are not part of the source
	})
	if err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// needRoot is the sid root, or a skip (a fatal error in CI) saying why it
// cannot be used.
func needRoot(t *testing.T) string {
	t.Helper()
	root := os.Getenv("HARK_CI_ROOT")
	if root == "" {
		root = "/var/lib/hark-ci/sid"
	}
	switch {
	case !present(filepath.Join(root, ".hark-ready")):
		skipOrFail(t, "no Debian sid root with libwhisper at "+root+" (make it with .ci/sid-root.sh, as root; .ci/run does)")
	case os.Geteuid() != 0:
		skipOrFail(t, "the sid root is entered with chroot and its own mounts, which need root")
	}
	return root
}

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

func present(p string) bool { _, err := os.Stat(p); return err == nil }

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
