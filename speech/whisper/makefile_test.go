package whisper

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The Makefile decides whether hark is built with whisper.cpp. These cases
// lay out fake installations in a temporary folder, as pkg-config would
// find them, and ask `make whisper-config` what it decided: a build that
// would fail must fall back to building without whisper.cpp and say why,
// and a usable install must get the tag and both header folders.
func TestMakefileWhisperDetection(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI must have %s for this test", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")

	pc := func(t *testing.T, path, prefix, name, libs string) {
		t.Helper()
		writeFile(t, path, "prefix="+prefix+"\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\n"+
			"Name: "+name+"\nDescription: test\nVersion: 1.8.0\nLibs: -L${libdir} "+libs+"\nCflags: -I${includedir}\n")
	}
	tests := []struct {
		name   string
		layout func(t *testing.T, dir string) string // returns PKG_CONFIG_PATH
		tags   string
		says   []string
	}{
		{
			name:   "no whisper.pc",
			layout: func(t *testing.T, dir string) string { return dir },
			says:   []string{"building without whisper.cpp", "knows no whisper.pc"},
		},
		{
			name: "whisper.pc keeps a configure-time prefix",
			layout: func(t *testing.T, dir string) string {
				// cmake --install --prefix moved the files, the .pc still says /usr/local-like.
				pc(t, filepath.Join(dir, "lib/pkgconfig/whisper.pc"), filepath.Join(dir, "configured-prefix"), "whisper", "-lwhisper")
				writeFile(t, filepath.Join(dir, "include/whisper.h"), "")
				writeFile(t, filepath.Join(dir, "lib/libggml-cpu.a"), "")
				return filepath.Join(dir, "lib/pkgconfig")
			},
			says: []string{"building without whisper.cpp", "whisper.h is not there", "-DCMAKE_INSTALL_PREFIX"},
		},
		{
			name: "a private install that works",
			layout: func(t *testing.T, dir string) string {
				pc(t, filepath.Join(dir, "lib/pkgconfig/whisper.pc"), dir, "whisper", "-lwhisper")
				writeFile(t, filepath.Join(dir, "include/whisper.h"), "")
				writeFile(t, filepath.Join(dir, "lib/libggml-cpu.a"), "")
				return filepath.Join(dir, "lib/pkgconfig")
			},
			tags: "whisper",
			says: []string{"libwhisper found", "cflags: -I"},
		},
		{
			name: "Homebrew: whisper-cpp and ggml kegs, backends as plug-ins",
			layout: func(t *testing.T, dir string) string {
				w, g := filepath.Join(dir, "opt/whisper-cpp"), filepath.Join(dir, "opt/ggml")
				pc(t, filepath.Join(w, "lib/pkgconfig/whisper.pc"), w, "whisper", "-lggml -lggml-base -lwhisper")
				pc(t, filepath.Join(g, "lib/pkgconfig/ggml.pc"), g, "ggml", "-lggml -lggml-base")
				writeFile(t, filepath.Join(w, "include/whisper.h"), "")
				writeFile(t, filepath.Join(g, "include/ggml.h"), "")
				writeFile(t, filepath.Join(g, "lib/libggml.dylib"), "")
				writeFile(t, filepath.Join(g, "lib/libggml-base.dylib"), "")
				writeFile(t, filepath.Join(g, "libexec/libggml-cpu-apple_m1.so"), "")
				writeFile(t, filepath.Join(g, "libexec/libggml-metal.so"), "")
				return filepath.Join(w, "lib/pkgconfig") + ":" + filepath.Join(g, "lib/pkgconfig")
			},
			says: []string{"building without whisper.cpp", "plug-ins"},
		},
		{
			name: "Homebrew-like kegs with a linkable CPU backend get both header folders",
			layout: func(t *testing.T, dir string) string {
				w, g := filepath.Join(dir, "opt/whisper-cpp"), filepath.Join(dir, "opt/ggml")
				pc(t, filepath.Join(w, "lib/pkgconfig/whisper.pc"), w, "whisper", "-lwhisper")
				pc(t, filepath.Join(g, "lib/pkgconfig/ggml.pc"), g, "ggml", "-lggml")
				writeFile(t, filepath.Join(w, "include/whisper.h"), "")
				writeFile(t, filepath.Join(g, "lib/libggml-cpu.dylib"), "")
				return filepath.Join(w, "lib/pkgconfig") + ":" + filepath.Join(g, "lib/pkgconfig")
			},
			tags: "whisper",
			says: []string{"libwhisper found", "-I" + "DIR/opt/whisper-cpp/include", "-I" + "DIR/opt/ggml/include"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := tt.layout(t, dir)
			cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "whisper-config")
			// PKG_CONFIG_LIBDIR replaces the system's folders, so only the fake
			// installation is seen.
			cmd.Env = append(withoutTags(os.Environ()), "PKG_CONFIG_PATH="+path, "PKG_CONFIG_LIBDIR="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make whisper-config: %v\n%s", err, out)
			}
			got := strings.ReplaceAll(string(out), dir, "DIR")
			if line := lineAfter(got, "tags: "); line != tt.tags {
				t.Errorf("tags %q, want %q:\n%s", line, tt.tags, got)
			}
			for _, s := range tt.says {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lineAfter(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return "(no line " + prefix + ")"
}

// withoutTags drops TAGS from the environment: the Makefile's TAGS ?=
// would keep a value from outside instead of deciding.
func withoutTags(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "TAGS=") {
			out = append(out, e)
		}
	}
	return out
}
