package bundle

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Golden copies of every file Hark generates for macOS, so a change to any
// of them shows in review as a diff of the file itself. Refresh them with
// `go test ./app/bundle -run Golden -update`.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what is generated now; run with -update if the change is intended:\n%s", path, got)
	}
}

// wellFormedPlist checks what macOS's parser needs before anything else:
// one XML declaration, Apple's plist DOCTYPE, a version-1.0 plist root with
// one dict, and keys each followed by exactly one value.
func wellFormedPlist(t *testing.T, data []byte) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Error("no UTF-8 XML declaration first")
	}
	if !bytes.Contains(data, []byte(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">`)) {
		t.Error("no Apple plist DOCTYPE")
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []string
	afterKey := map[int]bool{} // depth of a dict whose last child was a <key>
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth := len(stack)
			if depth == 0 {
				if el.Name.Local != "plist" || len(el.Attr) != 1 || el.Attr[0].Value != "1.0" {
					t.Errorf("root <%s %v>, want <plist version=\"1.0\">", el.Name.Local, el.Attr)
				}
			} else if stack[depth-1] == "dict" {
				isKey := el.Name.Local == "key"
				if isKey == afterKey[depth] {
					t.Errorf("dict at depth %d: <%s> where a %s belongs", depth, el.Name.Local, map[bool]string{true: "value", false: "key"}[afterKey[depth]])
				}
				afterKey[depth] = isKey
			}
			stack = append(stack, el.Name.Local)
		case xml.EndElement:
			if stack[len(stack)-1] == "dict" && afterKey[len(stack)] {
				t.Errorf("a key without a value at the end of a dict")
			}
			delete(afterKey, len(stack))
			stack = stack[:len(stack)-1]
		}
	}
}

func TestGoldenInfoPlist(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "hark")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	template, err := os.ReadFile("../../Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	icns, err := realIcns()
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(dir, "Hark.app")
	if err := BuildApp(AppOptions{Dest: app, Binary: bin, InfoPlist: template, Version: "v1.2.3-4-gabcdef0", Commits: 42, icns: icns}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(app, "Contents", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "Info.plist.golden", got)
	wellFormedPlist(t, got)
	// The bundle's layout is what LaunchServices and codesign expect.
	var files []string
	filepath.WalkDir(app, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(app, p)
			files = append(files, rel)
		}
		return nil
	})
	want := []string{"Contents/Info.plist", "Contents/MacOS/hark", "Contents/PkgInfo", "Contents/Resources/hark.icns"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("bundle files %q, want %q", files, want)
	}
}

func TestGoldenLaunchAgent(t *testing.T) {
	t.Parallel()
	l := LoginItem{GOOS: "darwin", Home: "/Users/jane", Executable: "/Applications/Hark.app/Contents/MacOS/hark"}
	got, err := l.Contents()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "LaunchAgent.plist.golden", got)
	wellFormedPlist(t, got)
	d, err := ParsePlist(got)
	if err != nil {
		t.Fatal(err)
	}
	wants := map[string]any{
		"Label":                       BundleID,
		"ProgramArguments":            []any{"/usr/bin/open", "-a", "/Applications/Hark.app"},
		"AssociatedBundleIdentifiers": []any{BundleID},
		"RunAtLoad":                   true,
		"ProcessType":                 "Interactive",
		"LimitLoadToSessionType":      "Aqua",
	}
	for k, want := range wants {
		if v, _ := d.Get(k); !reflect.DeepEqual(v, want) {
			t.Errorf("%s = %#v, want %#v", k, v, want)
		}
	}
	// open exits at once: KeepAlive would make launchd respawn it in a loop.
	if _, ok := d.Get("KeepAlive"); ok {
		t.Error("the LaunchAgent has KeepAlive")
	}
}

// TestGoldenIcns decodes hark.icns without the package's own reader: the
// container header, then each entry's OSType, length and PNG image with its
// dimensions, into a manifest compared with a golden copy.
func TestGoldenIcns(t *testing.T) {
	t.Parallel()
	data, err := realIcns()
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 8 || string(data[:4]) != "icns" || int(binary.BigEndian.Uint32(data[4:8])) != len(data) {
		t.Fatalf("header %q: want magic icns and the file's length", data[:min(8, len(data))])
	}
	var manifest strings.Builder
	sizes := map[string]int{}
	for off := 8; off < len(data); {
		if off+8 > len(data) {
			t.Fatalf("truncated entry header at %d", off)
		}
		typ, n := string(data[off:off+4]), int(binary.BigEndian.Uint32(data[off+4:off+8]))
		if n < 8 || off+n > len(data) {
			t.Fatalf("entry %q at %d claims %d bytes of %d", typ, off, n, len(data)-off)
		}
		body := data[off+8 : off+n]
		cfg, err := png.DecodeConfig(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("entry %q is not a PNG: %v", typ, err)
		}
		if _, err := png.Decode(bytes.NewReader(body)); err != nil {
			t.Fatalf("entry %q does not decode: %v", typ, err)
		}
		fmt.Fprintf(&manifest, "%s png %dx%d\n", typ, cfg.Width, cfg.Height)
		sizes[typ] = cfg.Width
		off += n
	}
	golden(t, "hark.icns.manifest", []byte(manifest.String()))
	// The PNG OSTypes macOS reads, at the pixel sizes Apple defines for them.
	for typ, px := range map[string]int{"icp4": 16, "icp5": 32, "ic11": 32, "ic12": 64, "ic07": 128, "ic13": 256, "ic08": 256, "ic14": 512, "ic09": 512, "ic10": 1024} {
		if sizes[typ] != px {
			t.Errorf("%s is %d pixels, want %d", typ, sizes[typ], px)
		}
	}
}
