package bundle

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hark-sh/hark/shell/exectest"
)

// realIcns is the .icns of the real app icon, made once: encoding ten PNGs
// up to 1024 pixels is the slowest step of these tests under -race.
var realIcns = sync.OnceValues(func() ([]byte, error) {
	src, err := appIcon()
	if err != nil {
		return nil, err
	}
	return WriteIcns(src)
})

// TestWriteIcnsParsesBack writes the real app icon and reads the container
// back: magic, total length, every entry's type and length, and each PNG at
// the size its type promises.
func TestWriteIcnsParsesBack(t *testing.T) {
	t.Parallel()
	data, err := realIcns()
	if err != nil {
		t.Fatal(err)
	}
	checkIcns(t, data)
}

func checkIcns(t *testing.T, data []byte) {
	t.Helper()
	entries, err := readIcns(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(IcnsEntries) {
		t.Fatalf("%d entries, want %d", len(entries), len(IcnsEntries))
	}
	for i, want := range IcnsEntries {
		got := entries[i]
		t.Run(want.Type, func(t *testing.T) {
			if got.Type != want.Type {
				t.Fatalf("entry %d is %q, want %q", i, got.Type, want.Type)
			}
			if !bytes.HasPrefix(got.Data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatal("entry is not PNG data")
			}
			img, err := png.Decode(bytes.NewReader(got.Data))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != want.Size || b.Dy() != want.Size {
				t.Fatalf("%dx%d, want %d", b.Dx(), b.Dy(), want.Size)
			}
			// The scaled icon keeps its transparent margin and opaque middle.
			if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
				t.Errorf("corner alpha %d, want transparent", a)
			}
			if _, _, _, a := img.At(want.Size/2, want.Size*3/4).RGBA(); a != 0xffff {
				t.Errorf("lower middle alpha %d, want opaque", a)
			}
		})
	}
}

func TestWriteIcnsRejectsNonSquare(t *testing.T) {
	t.Parallel()
	if _, err := WriteIcns(image.NewNRGBA(image.Rect(0, 0, 10, 20))); err == nil {
		t.Error("want an error for a non-square source")
	}
}

func TestReadIcnsRejectsCorruption(t *testing.T) {
	t.Parallel()
	good, err := realIcns()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"bad magic":       append([]byte("icnz"), good[4:]...),
		"short file":      good[:len(good)-1],
		"too short":       []byte("icn"),
		"entry overflows": func() []byte { b := bytes.Clone(good); b[8+4] = 0xff; return b }(),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := readIcns(data); err == nil {
				t.Error("want an error")
			}
		})
	}
}

func TestBuildApp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "hark")
	exectest.WriteProgram(t, bin, []byte("#!/bin/sh\necho hark\n"), 0o755)
	plist, err := os.ReadFile("../../Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "dist", "Hark.app") // dist does not exist yet
	// A stale file from an older build must not survive the rebuild.
	if err := os.MkdirAll(filepath.Join(dest, "Contents", "Stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	icns, err := realIcns()
	if err != nil {
		t.Fatal(err)
	}
	if err := BuildApp(AppOptions{Dest: dest, Binary: bin, InfoPlist: plist, Version: "v1.2.3-4-gabcdef0-dirty", Commits: 42, icns: icns}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, "Contents", "Stale")); !os.IsNotExist(err) {
		t.Errorf("stale folder survived the rebuild: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dest, "Contents/MacOS/hark"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("binary mode %v is not executable", fi.Mode())
	}
	info, err := os.ReadFile(filepath.Join(dest, "Contents/Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParsePlist(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInfoPlist(d); err != nil {
		t.Error(err)
	}
	if v, _ := d.Get("CFBundleShortVersionString"); v != "1.2.3" {
		t.Errorf("short version %v, want 1.2.3", v)
	}
	if v, _ := d.Get("CFBundleVersion"); v != "42" {
		t.Errorf("build version %v, want 42", v)
	}
	if v, _ := d.Get("HarkVersion"); v != "v1.2.3-4-gabcdef0-dirty" {
		t.Errorf("HarkVersion %v, want the git describe output", v)
	}
	if pk, err := os.ReadFile(filepath.Join(dest, "Contents/PkgInfo")); err != nil || string(pk) != "APPL????" {
		t.Errorf("PkgInfo %q, %v", pk, err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "Contents/Resources/hark.icns"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, icns) {
		t.Error("Contents/Resources/hark.icns differs from the icon it was given")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "dist", ".Hark-build-*"))
	if len(left) > 0 {
		t.Errorf("build folder left behind: %v", left)
	}
}

func TestBuildAppRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plist, err := os.ReadFile("../../Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    AppOptions
	}{
		{"not .app", AppOptions{Dest: filepath.Join(dir, "Hark"), Binary: "/bin/sh", InfoPlist: plist}},
		{"missing binary", AppOptions{Dest: filepath.Join(dir, "A.app"), Binary: filepath.Join(dir, "nope"), InfoPlist: plist}},
		{"broken plist", AppOptions{Dest: filepath.Join(dir, "B.app"), Binary: "/bin/sh", InfoPlist: []byte("<plist>")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := BuildApp(c.o); err == nil {
				t.Error("want an error")
			}
			if _, err := os.Stat(c.o.Dest); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed build", c.o.Dest)
			}
		})
	}
}

func TestWriteIconPNG(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "icons/hicolor/256x256/apps/hark.png")
	if err := WriteIconPNG(p, 256); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 256 || cfg.Height != 256 {
		t.Errorf("config %+v, %v; want 256x256", cfg, err)
	}
}

func TestLinuxInstall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "built-hark")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "my prefix", ".local")
	files, err := LinuxInstall(bin, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2+len(IconSizes) {
		t.Errorf("%d files written: %v", len(files), files)
	}
	exe := filepath.Join(prefix, "bin", "hark")
	if fi, err := os.Stat(exe); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("binary: %v %v", fi, err)
	}
	keys := desktopKeys(mustRead(t, filepath.Join(prefix, "share/applications/hark.desktop")))
	if keys["Exec"] != desktopExecArg(exe) || !strings.HasPrefix(keys["Exec"], `"`) {
		t.Errorf("Exec=%s, want the quoted installed binary %s", keys["Exec"], exe)
	}
	for _, size := range IconSizes {
		p := filepath.Join(prefix, "share/icons/hicolor", fmt.Sprintf("%dx%d", size, size), "apps/hark.png")
		cfg, err := png.DecodeConfig(bytes.NewReader(mustRead(t, p)))
		if err != nil || cfg.Width != size {
			t.Errorf("%s: %+v %v", p, cfg, err)
		}
	}
	if _, err := LinuxInstall(filepath.Join(dir, "missing"), prefix); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("missing binary: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
