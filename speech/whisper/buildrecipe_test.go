package whisper

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeWhisperBuildsThePinnedRelease runs `make whisper` against a
// local git repository standing in for whisper.cpp's (WHISPER_GIT=) and a
// fake cmake, so nothing is fetched or compiled: it checks that the tag
// is refused unless it is the pinned commit, that progress is shown, that
// a failed step leaves no prefix behind and says Hark goes on without
// voice, and that a finished prefix is what `make whisper-config` then
// finds with no variable set.
func TestMakeWhisperBuildsThePinnedRelease(t *testing.T) {
	t.Parallel()
	needTools(t, "make", "git", "pkg-config")
	root := makeRoot(t)

	// The stand-in source: one commit, tagged as the pinned release.
	src := filepath.Join(t.TempDir(), "whisper.cpp")
	gitRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", src}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	writeFile(t, filepath.Join(src, "CMakeLists.txt"), "project(whisper)\n")
	gitRun("init", "-q")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "release")
	gitRun("tag", "v1.9.3")
	commit := gitRun("rev-parse", "HEAD")

	// cmake as the recipe drives it: configure, build (printing progress),
	// install the files whisper.cpp's install rules make into --prefix.
	cmake := func(build string) string {
		return `echo "cmake $*" >> "$RECORD"
case "$1" in
--build) ` + build + `;;
--install) p=$4; mkdir -p "$p/include" "$p/lib/pkgconfig"; : > "$p/include/whisper.h"; : > "$p/lib/libwhisper.a"; : > "$p/lib/libggml-cpu.a"
  printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: whisper\nDescription: t\nVersion: 1.9.3\nLibs: -L${libdir} -lwhisper\nCflags: -I${includedir}\n' "$HARK_WHISPER_PREFIX" > "$p/lib/pkgconfig/whisper.pc";;
esac`
	}
	progress := `echo "[ 50%] Building C object ggml/src/ggml.c.o"; echo "[100%] Linking CXX static library libwhisper.a"`

	cases := []struct {
		name      string
		commit    string // WHISPER_COMMIT
		cmake     string
		prebuilt  bool
		wantExit  int
		says      []string
		wantBuilt bool
	}{
		{name: "the pinned commit builds, with progress", commit: commit, cmake: cmake(progress),
			says:      []string{"Fetching whisper.cpp v1.9.3 from", "[ 50%] Building", "is built in", "commit " + commit},
			wantBuilt: true},
		{name: "another commit under the tag is refused", commit: strings.Repeat("0", 40), cmake: cmake(progress), wantExit: 2,
			says: []string{"is commit " + commit + ", not the pinned " + strings.Repeat("0", 40), "Hark is built without voice input"}},
		{name: "a failed compile leaves nothing behind", commit: commit, cmake: cmake(`echo "[ 10%] Building"; echo "error: bad" >&2; exit 2`), wantExit: 2,
			says: []string{"[ 10%] Building", "whisper.cpp was not built: the compile failed", "Hark is built without voice input"}},
		{name: "an existing build is kept", commit: commit, cmake: cmake(progress), prebuilt: true,
			says: []string{"already built in"}, wantBuilt: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			prefix := filepath.Join(home, ".local/share/hark/whisper.cpp-1.9.3")
			bin := fakeBin(t, dir, map[string]string{"cmake": c.cmake})
			rec := filepath.Join(dir, "ran.txt")
			if c.prebuilt {
				writeFile(t, filepath.Join(prefix, "include/whisper.h"), "")
				writeFile(t, filepath.Join(prefix, "lib/pkgconfig/whisper.pc"), "")
			}
			env := append(withoutTags(os.Environ()), "HOME="+home, "RECORD="+rec, "PATH="+bin+":"+os.Getenv("PATH"),
				"PKG_CONFIG_PATH=", "PKG_CONFIG_LIBDIR="+filepath.Join(dir, "none"), "GIT_CONFIG_GLOBAL=/dev/null")
			cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "whisper",
				"WHISPER_GIT="+src, "WHISPER_COMMIT="+c.commit, "WHISPER_RELEASE=1.9.3", "WHISPER_JOBS=1")
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if code := exitCode(t, err); code != c.wantExit {
				t.Errorf("exit %d, want %d\n%s", code, c.wantExit, out)
			}
			for _, s := range c.says {
				if !strings.Contains(string(out), s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if _, err := os.Stat(prefix); (err == nil) != c.wantBuilt {
				t.Errorf("prefix %s there: %v, want %v\n%s", prefix, err == nil, c.wantBuilt, out)
			}
			if _, err := os.Stat(prefix + ".build"); err == nil {
				t.Errorf("the source and build folder %s.build was left behind", prefix)
			}
			if c.prebuilt {
				if got := ran(t, rec); len(got) != 0 {
					t.Errorf("ran %q for a prefix already built", got)
				}
			}
			if !c.wantBuilt || c.prebuilt {
				return
			}
			if got := strings.Join(ran(t, rec), "\n"); !strings.Contains(got, "-DCMAKE_INSTALL_PREFIX="+prefix) || !strings.Contains(got, "-DBUILD_SHARED_LIBS=OFF") {
				t.Errorf("cmake ran as:\n%s", got)
			}
			// What was built is what the next build finds, unasked.
			cfg := exec.Command("make", "-s", "--no-print-directory", "-C", root, "HOST_OS=Linux",
				"WHISPER_ROOT="+filepath.Join(dir, "no-system"), "WHISPER_PCDIR="+filepath.Join(dir, "pc"), "whisper-config")
			cfg.Env = env
			out, err = cfg.CombinedOutput()
			if err != nil {
				t.Fatalf("make whisper-config: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "tags: whisper\n") || !strings.Contains(string(out), "from: built by Hark (make whisper) in "+prefix) {
				t.Errorf("make whisper-config after the build:\n%s", out)
			}
		})
	}
}
