package bundle

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestRepositoryInfoPlist checks the Info.plist at the repository root: it
// parses, and every key macOS needs is there with the right type.
func TestRepositoryInfoPlist(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParsePlist(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInfoPlist(d); err != nil {
		t.Fatal(err)
	}
	wants := map[string]any{
		"CFBundleIdentifier":  BundleID,
		"CFBundleExecutable":  "hark",
		"CFBundlePackageType": "APPL",
		"CFBundleIconFile":    "hark.icns",
		"LSUIElement":         true,
	}
	for k, want := range wants {
		t.Run(k, func(t *testing.T) {
			got, ok := d.Get(k)
			if !ok || got != want {
				t.Errorf("%s = %#v, want %#v", k, got, want)
			}
		})
	}
	for _, k := range []string{"CFBundleName", "CFBundleDisplayName", "CFBundleShortVersionString", "CFBundleVersion", "LSMinimumSystemVersion", "NSMicrophoneUsageDescription", "NSHumanReadableCopyright"} {
		t.Run(k, func(t *testing.T) {
			if v, ok := d.Get(k); !ok {
				t.Errorf("%s is missing", k)
			} else if _, isString := v.(string); !isString {
				t.Errorf("%s is a %T, want string", k, v)
			}
		})
	}
}

func TestCheckInfoPlistFindsProblems(t *testing.T) {
	t.Parallel()
	good, err := os.ReadFile("../../Info.plist")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		change  func(d *Dict)
		wantErr string
	}{
		{"missing identifier", func(d *Dict) { remove(d, "CFBundleIdentifier") }, "CFBundleIdentifier is missing"},
		{"identifier not reverse DNS", func(d *Dict) { d.Set("CFBundleIdentifier", "Hark") }, "reverse-DNS"},
		{"LSUIElement as string", func(d *Dict) { d.Set("LSUIElement", "true") }, "LSUIElement is true, want <true/>"},
		{"LSUIElement false", func(d *Dict) { d.Set("LSUIElement", false) }, "LSUIElement is false"},
		{"usage description too short", func(d *Dict) { d.Set("NSMicrophoneUsageDescription", "mic") }, "NSMicrophoneUsageDescription"},
		{"package type", func(d *Dict) { d.Set("CFBundlePackageType", "BNDL") }, "want APPL"},
		{"version with a hash", func(d *Dict) { d.Set("CFBundleShortVersionString", "1fccd07") }, "CFBundleShortVersionString"},
		{"version as integer", func(d *Dict) { d.Set("CFBundleVersion", int64(3)) }, "CFBundleVersion is a int64"},
		{"icon not icns", func(d *Dict) { d.Set("CFBundleIconFile", "hark.png") }, ".icns"},
		// Without it Finder's Move to Trash is denied with no prompt (-1743).
		{"no Apple events reason", func(d *Dict) { remove(d, "NSAppleEventsUsageDescription") }, "NSAppleEventsUsageDescription is missing"},
		{"no app data reason", func(d *Dict) { remove(d, "NSAppDataUsageDescription") }, "NSAppDataUsageDescription is missing"},
		// macOS 15 asks before an ollamaHost on the LAN is reached; a
		// prompt without a reason gets denied, and stays denied.
		{"no local network reason", func(d *Dict) { remove(d, "NSLocalNetworkUsageDescription") }, "NSLocalNetworkUsageDescription is missing"},
		{"banners, not alerts", func(d *Dict) { d.Set("NSUserNotificationAlertStyle", "banner") }, "NSUserNotificationAlertStyle is \"banner\", want alert"},
		{"no alert style", func(d *Dict) { remove(d, "NSUserNotificationAlertStyle") }, "NSUserNotificationAlertStyle is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParsePlist(good)
			if err != nil {
				t.Fatal(err)
			}
			c.change(d)
			err = CheckInfoPlist(d)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

func remove(d *Dict, key string) {
	for i, e := range d.Entries {
		if e.Key == key {
			d.Entries = append(d.Entries[:i], d.Entries[i+1:]...)
			return
		}
	}
}

func TestPlistRoundTrip(t *testing.T) {
	t.Parallel()
	d := &Dict{}
	d.Set("Label", "a & <b>")
	d.Set("Args", []string{"/usr/bin/open", "-a", "/Applications/Hark.app"})
	d.Set("Run", true)
	d.Set("Off", false)
	d.Set("N", int64(-3))
	d.Set("F", 1.5)
	inner := &Dict{}
	inner.Set("k", "v")
	d.Set("Nested", inner)
	d.Set("Mixed", []any{"x", int64(1), false})
	data, err := EncodePlist(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParsePlist(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	want := map[string]any{
		"Label":  "a & <b>",
		"Args":   []any{"/usr/bin/open", "-a", "/Applications/Hark.app"},
		"Run":    true,
		"Off":    false,
		"N":      int64(-3),
		"F":      1.5,
		"Nested": inner,
		"Mixed":  []any{"x", int64(1), false},
	}
	if len(back.Entries) != len(want) {
		t.Fatalf("%d entries back, want %d", len(back.Entries), len(want))
	}
	for k, w := range want {
		if got, _ := back.Get(k); !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v, want %#v", k, got, w)
		}
	}
}

func TestParsePlistErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"not a plist":    `<html></html>`,
		"array at top":   `<plist><array/></plist>`,
		"value sans key": `<plist><dict><string>x</string></dict></plist>`,
		"duplicate key":  `<plist><dict><key>a</key><true/><key>a</key><false/></dict></plist>`,
		"bad integer":    `<plist><dict><key>a</key><integer>x</integer></dict></plist>`,
		"unsupported":    `<plist><dict><key>a</key><date>2020-01-01T00:00:00Z</date></dict></plist>`,
		"truncated":      `<plist><dict><key>a</key>`,
		"empty":          ``,
		"key sans value": `<plist><dict><key>a</key></dict></plist>`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d, err := ParsePlist([]byte(in)); err == nil {
				t.Errorf("parsed %q into %+v, want an error", in, d)
			}
		})
	}
}

func TestVersions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		describe         string
		commits          int
		wantShort, build string
	}{
		{"v1.4.2", 0, "1.4.2", "1.4.2"},
		{"v1.4.2-3-gabcdef0", 57, "1.4.2", "57"},
		{"v2.0-dirty", 0, "2.0.0", "2.0.0"},
		{"1fccd07", 12, "0.0.0", "12"},
		{"1fccd07-dirty", 0, "0.0.0", "0.0.0"},
		{"dev", 0, "0.0.0", "0.0.0"},
		{"", 3, "0.0.0", "3"},
	}
	for _, c := range cases {
		t.Run(c.describe, func(t *testing.T) {
			t.Parallel()
			short, build := Versions(c.describe, c.commits)
			if short != c.wantShort || build != c.build {
				t.Errorf("Versions(%q, %d) = %q, %q; want %q, %q", c.describe, c.commits, short, build, c.wantShort, c.build)
			}
			if !bundleVersion.MatchString(short) || !bundleVersion.MatchString(build) {
				t.Errorf("not a valid bundle version: %q %q", short, build)
			}
		})
	}
}
