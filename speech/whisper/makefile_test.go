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
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}

	pc := func(t *testing.T, path, prefix, name, libs string) {
		t.Helper()
		writeFile(t, path, "prefix="+prefix+"\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\n"+
			"Name: "+name+"\nDescription: test\nVersion: 1.8.0\nLibs: -L${libdir} "+libs+"\nCflags: -I${includedir}\n")
	}
	tests := []struct {
		name   string
		layout func(t *testing.T, dir string) string // returns PKG_CONFIG_PATH
		vars   []string                              // make variables, e.g. HOST_OS to plan another system's link
		tags   string
		says   []string
		lacks  []string
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
			name: "a from-source install links its backends as libraries, no placeholders",
			vars: []string{"HOST_OS=Darwin"},
			layout: func(t *testing.T, dir string) string {
				pc(t, filepath.Join(dir, "lib/pkgconfig/whisper.pc"), dir, "whisper", "-lwhisper")
				writeFile(t, filepath.Join(dir, "include/whisper.h"), "")
				for _, l := range []string{"libggml-cpu.a", "libggml-metal.a", "libggml-blas.a"} {
					writeFile(t, filepath.Join(dir, "lib", l), "")
				}
				return filepath.Join(dir, "lib/pkgconfig")
			},
			tags:  "whisper",
			says:  []string{"libwhisper found", "placeholders: \n", "-Wl,-rpath,DIR/lib"},
			lacks: []string{"ggml-placeholders"},
		},
		{
			name: "Homebrew on macOS: separate kegs, backends only as plug-ins in libexec",
			vars: []string{"HOST_OS=Darwin"},
			layout: func(t *testing.T, dir string) string {
				w, g := homebrewKegs(t, dir, ".dylib")
				return filepath.Join(w, "lib/pkgconfig") + ":" + filepath.Join(g, "lib/pkgconfig")
			},
			tags: "whisper",
			says: []string{
				"libwhisper found",
				"cflags: -I" + "DIR/Cellar/whisper-cpp/1.8.3/include -I" + "DIR/Cellar/ggml/0.9.7/include",
				"-L" + "ROOT/bin/ggml-placeholders",
				"-Wl,-rpath,DIR/Cellar/ggml/0.9.7/lib",
				"-Wl,-rpath,DIR/Cellar/whisper-cpp/1.8.3/lib",
				"placeholders: libggml-cpu.a libggml-metal.a libggml-blas.a\n",
			},
		},
		{
			name: "the same layout on Linux needs only the CPU placeholder",
			vars: []string{"HOST_OS=Linux"},
			layout: func(t *testing.T, dir string) string {
				w, g := homebrewKegs(t, dir, ".so")
				return filepath.Join(w, "lib/pkgconfig") + ":" + filepath.Join(g, "lib/pkgconfig")
			},
			tags: "whisper",
			says: []string{"libwhisper found", "placeholders: libggml-cpu.a\n", "-L" + "ROOT/bin/ggml-placeholders"},
		},
		{
			name: "on macOS a libggml-cpu.so beside the libraries is a bundle, not a library",
			vars: []string{"HOST_OS=Darwin"},
			layout: func(t *testing.T, dir string) string {
				pc(t, filepath.Join(dir, "lib/pkgconfig/whisper.pc"), dir, "whisper", "-lwhisper")
				writeFile(t, filepath.Join(dir, "include/whisper.h"), "")
				writeFile(t, filepath.Join(dir, "lib/libggml-cpu.so"), "")
				writeFile(t, filepath.Join(dir, "lib/libggml-metal.dylib"), "")
				return filepath.Join(dir, "lib/pkgconfig")
			},
			tags: "whisper",
			says: []string{"placeholders: libggml-cpu.a libggml-blas.a\n"},
		},
		{
			name: "plug-in ggml whose plug-ins are gone falls back and says so",
			vars: []string{"HOST_OS=Darwin"},
			layout: func(t *testing.T, dir string) string {
				w, g := homebrewKegs(t, dir, ".dylib")
				if err := os.RemoveAll(filepath.Join(g, "libexec")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(w, "lib/pkgconfig") + ":" + filepath.Join(g, "lib/pkgconfig")
			},
			says:  []string{"building without whisper.cpp", "neither a library to link", "nor a plug-in", "brew reinstall ggml"},
			lacks: []string{"ggml-placeholders"},
		},
		{
			name: "kegs with a linkable CPU backend get both header folders",
			layout: func(t *testing.T, dir string) string {
				w, g := filepath.Join(dir, "opt/whisper-cpp"), filepath.Join(dir, "opt/ggml")
				pc(t, filepath.Join(w, "lib/pkgconfig/whisper.pc"), w, "whisper", "-lwhisper")
				pc(t, filepath.Join(g, "lib/pkgconfig/ggml.pc"), g, "ggml", "-lggml")
				writeFile(t, filepath.Join(w, "include/whisper.h"), "")
				writeFile(t, filepath.Join(g, "lib/libggml-cpu.a"), "")
				return filepath.Join(w, "lib/pkgconfig") + ":" + filepath.Join(g, "lib/pkgconfig")
			},
			vars: []string{"HOST_OS=Linux"},
			tags: "whisper",
			says: []string{"libwhisper found", "-I" + "DIR/opt/whisper-cpp/include", "-I" + "DIR/opt/ggml/include", "placeholders: \n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := tt.layout(t, dir)
			// WHISPER_ROOT and HOME keep locate.sh's search (/usr, /usr/local,
			// ~/.local, Nix, Homebrew) to the temporary folder as well, so a
			// whisper.cpp installed on the machine running the test is not seen.
			args := append([]string{"-s", "--no-print-directory", "-C", root,
				"WHISPER_ROOT=" + filepath.Join(dir, "no-system"), "WHISPER_PCDIR=" + filepath.Join(dir, "pc")}, tt.vars...)
			cmd := exec.Command("make", append(args, "whisper-config")...)
			// PKG_CONFIG_LIBDIR replaces the system's folders, so only the fake
			// installation is seen.
			cmd.Env = append(withoutTags(os.Environ()), "PKG_CONFIG_PATH="+path, "PKG_CONFIG_LIBDIR="+path, "HOME="+filepath.Join(dir, "home"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make whisper-config: %v\n%s", err, out)
			}
			got := strings.ReplaceAll(strings.ReplaceAll(string(out), dir, "DIR"), absRoot, "ROOT")
			if line := lineAfter(got, "tags: "); line != tt.tags {
				t.Errorf("tags %q, want %q:\n%s", line, tt.tags, got)
			}
			for _, s := range tt.says {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.lacks {
				if strings.Contains(got, s) {
					t.Errorf("output has %q:\n%s", s, got)
				}
			}
		})
	}
}

// homebrewKegs lays out whisper-cpp and ggml as Homebrew installs them: two
// Cellar prefixes, each with its .pc, ggml.h only in ggml's, and ggml's
// backends built with GGML_BACKEND_DL as plug-ins in its libexec (always
// .so, even on macOS). libExt is the shared-library suffix of lib/.
func homebrewKegs(t *testing.T, dir, libExt string) (whisperKeg, ggmlKeg string) {
	t.Helper()
	w, g := filepath.Join(dir, "Cellar/whisper-cpp/1.8.3"), filepath.Join(dir, "Cellar/ggml/0.9.7")
	writeFile(t, filepath.Join(w, "lib/pkgconfig/whisper.pc"), "prefix="+w+"\nexec_prefix=${prefix}\nlibdir=${exec_prefix}/lib\nincludedir=${prefix}/include\n\n"+
		"Name: whisper\nDescription: test\nVersion: 1.8.3\nLibs: -L${libdir} -lggml  -lggml-base -lwhisper\nCflags: -I${includedir}\n")
	writeFile(t, filepath.Join(g, "lib/pkgconfig/ggml.pc"), "prefix="+g+"\nexec_prefix=${prefix}\nincludedir=${prefix}/include\nlibdir=${prefix}/lib\n\n"+
		"Name: ggml\nDescription: test\nVersion: 0.9.7\nLibs: -L${libdir} -lggml\nCflags: -I${includedir}\n")
	writeFile(t, filepath.Join(w, "include/whisper.h"), "#include \"ggml.h\"\n")
	writeFile(t, filepath.Join(w, "lib/libwhisper"+libExt), "")
	writeFile(t, filepath.Join(g, "include/ggml.h"), "")
	writeFile(t, filepath.Join(g, "include/ggml-backend.h"), "")
	writeFile(t, filepath.Join(g, "lib/libggml"+libExt), "")
	writeFile(t, filepath.Join(g, "lib/libggml-base"+libExt), "")
	for _, m := range []string{"libggml-cpu-apple_m1.so", "libggml-cpu-apple_m4.so", "libggml-metal.so", "libggml-blas.so"} {
		writeFile(t, filepath.Join(g, "libexec", m), "")
	}
	return w, g
}

// The placeholder archive the Makefile builds for a plug-in backend must be
// one that a real link against -lggml-cpu accepts.
func TestMakefilePlaceholderLinks(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "ar"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI must have %s for this test", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
	cc, err := exec.Command("go", "env", "CC").Output()
	if err != nil {
		t.Fatalf("go env CC: %v", err)
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	dir := t.TempDir()
	out, err := exec.Command("make", "-s", "--no-print-directory", "-C", root,
		"WHISPER_SHIMDIR="+dir, filepath.Join(dir, "libggml-cpu.a")).CombinedOutput()
	if err != nil {
		t.Fatalf("make the placeholder: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "libggml-cpu.a"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "!<arch>\n") {
		t.Fatalf("the placeholder is not an ar archive: %q", data[:min(len(data), 16)])
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "*.[ot]*")); len(leftovers) != 0 {
		t.Errorf("temporary files left beside the placeholder: %v", leftovers)
	}
	writeFile(t, filepath.Join(dir, "main.c"), "int main(void) { return 0; }\n")
	link := exec.Command(strings.TrimSpace(string(cc)), "-o", filepath.Join(dir, "main"), filepath.Join(dir, "main.c"), "-L"+dir, "-lggml-cpu")
	if out, err := link.CombinedOutput(); err != nil {
		t.Fatalf("linking with -lggml-cpu against the placeholder: %v\n%s", err, out)
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
