package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

// TestMakeMacOSFallsBackToVoiceless runs the Darwin branch of `make run`
// and `make install` on any OS, against a whisper.pc that promises a
// whisper.h which cannot be compiled (the fake go fails every build with
// the whisper tag, as cgo does on such an install). build-any must fall
// back to a build without voice input, and the bundle must be made from
// that binary instead of a second whisper build that fails the same way;
// the running app is asked to quit before open, and the bundle is copied
// to dist/ and /Applications without extended attributes.
func TestMakeMacOSFallsBackToVoiceless(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must have make for this test")
		}
		t.Skip("needs make")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build cmd/mkapp")
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	shared := t.TempDir()
	mkapp := filepath.Join(shared, "mkapp")
	if out, err := exec.Command(goBin, "build", "-o", mkapp, filepath.Join(root, "cmd", "mkapp")).CombinedOutput(); err != nil {
		t.Fatalf("building mkapp: %v\n%s", err, out)
	}

	for _, target := range []string{"run", "install"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			fake := filepath.Join(dir, "fake")
			inc, lib := filepath.Join(dir, "whisper", "include"), filepath.Join(dir, "whisper", "lib")
			for _, d := range []string{fake, inc, lib} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// A whisper.h that is there but useless, and every backend the
			// bindings link by name present as a library: the Makefile
			// believes whisper can be built, so only the build itself fails.
			files := map[string]string{filepath.Join(inc, "whisper.h"): ""}
			for _, n := range []string{"ggml-cpu", "ggml-metal", "ggml-blas"} {
				files[filepath.Join(lib, "lib"+n+".a")] = ""
			}
			record := `echo "$(basename "$0") $*" >> "$RECORD"`
			tools := map[string]string{
				"basename": `echo "${1##*/}"`,
				"dirname":  `echo "${1%/*}"`,
				"uname":    "echo Darwin",
				"brew":     record,
				"ollama":   "exit 0",
				"pkg-config": `case "$*" in
*--exists\ whisper*|*--exists\ portaudio-2.0*) exit 0;;
*--exists*) exit 1;;
*--variable=includedir*) echo "` + inc + `";;
*--variable=libdir*) echo "` + lib + `";;
*--variable=prefix*) echo "` + filepath.Dir(inc) + `";;
*--libs-only-L*) echo "-L` + lib + `";;
*--cflags*) echo "-I` + inc + `";;
esac`,
				// The fake go: a build with the whisper tag fails as cgo
				// does against an unusable whisper.h; any other build writes
				// a hark that records how it is called and says its tags.
				"go": record + `
[ "$1" = build ] || exit 0
tags=""; out=""
while [ $# -gt 0 ]; do
  case "$1" in -tags) tags="$2"; shift;; -o) out="$2"; shift;; esac; shift
done
case " $tags " in *" whisper "*) echo "whisper.go:21:10: error: unknown type name 'bool'" >&2; exit 2;; esac
mkdir -p "$(dirname "$out")"
printf '#!/bin/sh\n# built with tags: [%s]\necho "hark $*" >> "$RECORD"\n' "$tags" > "$out"
chmod +x "$out"`,
				"security": "exit 0", // no identities: ad hoc
				"codesign": record,
				"ditto":    record + `; shift $(($# - 2)); mkdir -p "$2" && cp -R "$1"/. "$2"/`,
				"open":     record,
			}
			for name, body := range tools {
				files[filepath.Join(fake, name)] = "#!/bin/sh\n" + body + "\n"
			}
			for path, body := range files {
				exectest.WriteProgram(t, path, []byte(body), 0o755)
			}
			bin := filepath.Join(dir, "bin", "hark")
			app := filepath.Join(dir, "dist", "Hark.app")
			apps := filepath.Join(dir, "Applications")
			rec := filepath.Join(dir, "ran.txt")
			cmd := exec.Command(makeBin, "-s", "--no-print-directory", "-C", root, target,
				"UNAME=Darwin", "HOST_OS=Darwin", "PREREQS_TTY=false",
				"BIN="+bin, "APP="+app, "APPLICATIONS="+apps, "MKAPP="+mkapp)
			cmd.Env = []string{"PATH=" + fake + ":/usr/bin:/bin", "RECORD=" + rec, "HOME=" + dir}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make %s: %v\n%s", target, err, out)
			}
			for _, s := range []string{"Building without voice input instead", "built without voice input (tags: none)"} {
				if !strings.Contains(string(out), s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			ranB, _ := os.ReadFile(rec)
			var builds, rest []string
			for _, l := range strings.Split(strings.TrimSpace(string(ranB)), "\n") {
				switch {
				case strings.HasPrefix(l, "go build"):
					builds = append(builds, l)
				case strings.HasPrefix(l, "go "):
				default:
					rest = append(rest, l)
				}
			}
			if len(builds) != 2 || !strings.Contains(builds[0], "-tags whisper") || strings.Contains(builds[1], "whisper") {
				t.Errorf("go builds %q, want one with whisper then exactly one without (no rebuild for the bundle)", builds)
			}
			stage := filepath.Join(dir, "Library", "Caches", "Hark", "build", "Hark.app")
			want := []string{"codesign --force --timestamp=none --sign - " + stage}
			if target == "run" {
				want = append([]string{"hark doctor -first-run"}, want...)
				want = append(want, "ditto --noextattr --norsrc "+stage+" "+app, "hark quit", "open "+app)
			} else {
				want = append(want, "ditto --noextattr --norsrc "+stage+" "+app, "hark quit", "ditto --noextattr --norsrc "+stage+" "+filepath.Join(apps, "Hark.app"))
			}
			if strings.Join(rest, "\n") != strings.Join(want, "\n") {
				t.Errorf("ran\n\t%s\nwant\n\t%s", strings.Join(rest, "\n\t"), strings.Join(want, "\n\t"))
			}
			for _, b := range []string{filepath.Join(stage, "Contents", "MacOS", "hark"), filepath.Join(app, "Contents", "MacOS", "hark")} {
				got, err := os.ReadFile(b)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(got), "# built with tags: []") {
					t.Errorf("%s is not the voiceless build:\n%s", b, got)
				}
			}
		})
	}
}
