package whisper

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMakefileFindsDistributionWhisper lays out, under a folder standing in
// for /, the files each way of installing whisper.cpp on Linux puts there
// (testdata/distributions: each file says where its list comes from), and
// asks `make whisper-config` what it decides. pkg-config sees only the
// distribution's default folders, as it would on that system; the package
// manager that owns whisper.h is a fake that knows only that file.
func TestMakefileFindsDistributionWhisper(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI must have %s for this test", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
	const debianPC = "usr/lib/x86_64-linux-gnu/pkgconfig:usr/share/pkgconfig"
	tests := []struct {
		list      string
		pcdefault string   // pkg-config's own folders on that system, under the root
		remove    []string // files taken away after the layout
		tags      string
		says      []string
	}{
		{list: "debian-sid.txt", pcdefault: debianPC, tags: "whisper", says: []string{
			"placeholders: libggml-cpu.a\n", "version: 1.9.5\n", "from: package libwhisper-dev, /usr\n",
			"plug-ins: ROOT/usr/lib/x86_64-linux-gnu/ggml/backends0\n", "-I" + "ROOT/usr/include",
		}},
		{list: "debian-sid.txt", pcdefault: debianPC,
			remove: []string{"usr/lib/x86_64-linux-gnu/ggml"}, // libggml0 without its plug-ins
			says:   []string{"building without whisper.cpp", "ggml's CPU backend is neither", "make whisper"}},
		{list: "fedora.txt", pcdefault: "usr/lib64/pkgconfig:usr/share/pkgconfig", tags: "whisper", says: []string{
			"placeholders: \n", "version: unknown\n", "from: package whisper-cpp-devel, /usr\n", "-I" + "ROOT/usr/include", "-L" + "ROOT/usr/lib64",
		}},
		{list: "arch.txt", pcdefault: "usr/lib/pkgconfig:usr/share/pkgconfig", tags: "whisper", says: []string{
			"placeholders: \n", "version: 1.9.1\n", "from: package whisper.cpp, /usr\n",
		}},
		{list: "nix.txt", pcdefault: debianPC, tags: "whisper", says: []string{
			"placeholders: libggml-cpu.a\n", "version: 1.7.5\n", "from: Nix, ROOT/nix/store/",
			"plug-ins: ROOT/nix/store/0c4ag8b4yr2ws6pqwc3dkx1bfnvjjrxy-whisper-cpp-1.7.5/bin\n",
		}},
		{list: "homebrew-linux.txt", pcdefault: debianPC, tags: "whisper", says: []string{
			"placeholders: libggml-cpu.a\n", "version: 1.9.4\n", "from: Homebrew, ",
			"plug-ins: ROOT/home/linuxbrew/.linuxbrew/Cellar/ggml/0.23.0/libexec\n",
			"-I" + "ROOT/home/linuxbrew/.linuxbrew/Cellar/ggml/0.23.0/include",
		}},
		{list: "local.txt", pcdefault: debianPC, tags: "whisper", says: []string{
			"placeholders: \n", "from: your build in ROOT/home/user/.local\n",
		}},
		{list: "hark.txt", pcdefault: debianPC, tags: "whisper", says: []string{
			"placeholders: \n", "version: 1.9.3\n", "from: built by Hark (make whisper) in ROOT/home/user/.local/share/hark/whisper.cpp-1.9.3\n",
		}},
	}
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	for _, tt := range tests {
		name := strings.TrimSuffix(tt.list, ".txt")
		if len(tt.remove) > 0 {
			name += " without " + filepath.Base(tt.remove[0])
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sys := filepath.Join(dir, "root")
			home := filepath.Join(sys, "home/user")
			owners := layOut(t, filepath.Join("testdata/distributions", tt.list), sys, home)
			for _, r := range tt.remove {
				if err := os.RemoveAll(filepath.Join(sys, r)); err != nil {
					t.Fatal(err)
				}
			}
			// The package managers' answer for whisper.h, and nothing else:
			// the machine running the test must not answer for its own files.
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			var owner strings.Builder
			owner.WriteString("#!/bin/sh\nfor a; do f=$a; done\ncase \"$f\" in\n")
			for file, pkg := range owners {
				owner.WriteString(file + ") echo '" + pkg + "';;\n")
			}
			owner.WriteString("*) exit 1;;\nesac\n")
			for _, pm := range []string{"rpm", "pacman"} {
				writeProgram(t, filepath.Join(bin, pm), []byte(owner.String()), 0o755)
			}
			writeProgram(t, filepath.Join(bin, "dpkg-query"), []byte(dpkgOwner(owners)), 0o755)

			var pcdirs []string
			for _, d := range strings.Split(tt.pcdefault, ":") {
				pcdirs = append(pcdirs, filepath.Join(sys, d))
			}
			cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "HOST_OS=Linux",
				"WHISPER_ROOT="+sys, "WHISPER_PCDIR="+filepath.Join(dir, "pc"), "whisper-config")
			cmd.Env = append(withoutTags(os.Environ()), "HOME="+home, "PKG_CONFIG_PATH=",
				"PKG_CONFIG_LIBDIR="+strings.Join(pcdirs, ":"), "PATH="+bin+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make whisper-config: %v\n%s", err, out)
			}
			got := strings.ReplaceAll(string(out), sys, "ROOT")
			if line := lineAfter(got, "tags: "); line != tt.tags {
				t.Errorf("tags %q, want %q:\n%s", line, tt.tags, got)
			}
			for _, s := range tt.says {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			if strings.Contains(strings.ToLower(got), "brew ") {
				t.Errorf("a message on Linux names brew:\n%s", got)
			}
		})
	}
}

// dpkgOwner is a fake dpkg-query -S: "package: file" for the files it owns.
func dpkgOwner(owners map[string]string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\nfor a; do f=$a; done\ncase \"$f\" in\n")
	for file, pkg := range owners {
		b.WriteString(file + ") echo '" + pkg + ": " + file + "';;\n")
	}
	b.WriteString("*) echo \"dpkg-query: no path found matching pattern $f\" >&2; exit 1;;\nesac\n")
	return b.String()
}

// layOut creates, under sys, the files a list names (empty), its links
// ("path -> /target", the target under sys too) and the .pc files its "pc"
// lines describe; "~/" is home. It returns the "owner" lines: file → package.
func layOut(t *testing.T, list, sys, home string) map[string]string {
	t.Helper()
	f, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	place := func(p string) string {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			return filepath.Join(home, rest)
		}
		return filepath.Join(sys, p)
	}
	owners := map[string]string{}
	var pcs [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		fields := strings.Fields(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case fields[0] == "owner":
			owners[fields[1]] = fields[2]
		case fields[0] == "pc":
			pcs = append(pcs, fields[1:])
		case len(fields) == 3 && fields[1] == "->":
			link := place(fields[0])
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(place(fields[2]), link); err != nil {
				t.Fatal(err)
			}
		default:
			writeFile(t, place(fields[0]), "")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, pc := range pcs {
		v := map[string]string{}
		for _, kv := range pc[1:] {
			k, val, _ := strings.Cut(kv, "=")
			v[k] = val
		}
		name := strings.TrimSuffix(filepath.Base(pc[0]), ".pc")
		libs := strings.ReplaceAll(v["libs"], ",", " ")
		writeFile(t, place(pc[0]), "prefix="+place(v["prefix"])+"\nexec_prefix=${prefix}\nlibdir="+place(v["libdir"])+
			"\nincludedir=${prefix}/include\n\nName: "+name+"\nDescription: "+name+" as the list's distribution installs it\nVersion: "+
			v["version"]+"\nLibs: -L${libdir} "+libs+"\nCflags: -I${includedir}\n")
	}
	return owners
}
