package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hark-sh/hark/assets"
)

var (
	reverseDNS    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*(\.[A-Za-z0-9-]+)+$`)
	bundleVersion = regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,2}$`)
	describeTag   = regexp.MustCompile(`^v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?`)
)

// CheckInfoPlist reports every required key that is missing or has the wrong
// type or an unusable value, so a broken Info.plist never reaches a bundle
// that macOS would refuse to launch or that would crash on microphone access.
func CheckInfoPlist(d *Dict) error {
	var errs []error
	str := func(key string, ok func(string) bool, want string) {
		v, found := d.Get(key)
		s, isString := v.(string)
		switch {
		case !found:
			errs = append(errs, fmt.Errorf("%s is missing", key))
		case !isString:
			errs = append(errs, fmt.Errorf("%s is a %T, want a string", key, v))
		case !ok(s):
			errs = append(errs, fmt.Errorf("%s is %q, want %s", key, s, want))
		}
	}
	nonEmpty := func(s string) bool { return strings.TrimSpace(s) != "" }
	str("CFBundleIdentifier", reverseDNS.MatchString, "a reverse-DNS name such as sh.hark.Hark")
	str("CFBundleName", nonEmpty, "the app's name")
	str("CFBundleDisplayName", nonEmpty, "the app's name")
	str("CFBundleExecutable", func(s string) bool { return nonEmpty(s) && !strings.Contains(s, "/") }, "the file name in Contents/MacOS")
	str("CFBundlePackageType", func(s string) bool { return s == "APPL" }, "APPL")
	str("CFBundleShortVersionString", bundleVersion.MatchString, "up to three numbers such as 1.2.3")
	str("CFBundleVersion", bundleVersion.MatchString, "up to three numbers such as 42")
	str("CFBundleIconFile", func(s string) bool { return strings.HasSuffix(s, ".icns") }, "a .icns file name")
	str("LSMinimumSystemVersion", bundleVersion.MatchString, "a macOS version such as 12.0")
	sentence := func(s string) bool {
		return len(strings.Fields(s)) >= 6 && strings.HasSuffix(strings.TrimSpace(s), ".")
	}
	str("NSMicrophoneUsageDescription", sentence, "a full sentence telling people why Hark needs the microphone")
	str("NSAppleEventsUsageDescription", sentence, "a full sentence telling people why Hark asks Finder to move files to the Trash (without it macOS denies the Apple event silently)")
	str("NSAppDataUsageDescription", sentence, "a full sentence telling people why a command may read another app's data")
	str("NSLocalNetworkUsageDescription", sentence, "a full sentence telling people why Hark reaches a model server on the local network (macOS 15 asks, and shows it)")
	str("NSUserNotificationAlertStyle", func(s string) bool { return s == "alert" }, "alert (approvals must stay on screen until answered)")
	str("NSHumanReadableCopyright", nonEmpty, "a copyright line")
	switch v, found := d.Get("LSUIElement"); {
	case !found:
		errs = append(errs, errors.New("LSUIElement is missing (Hark must live in the menu bar, not the Dock)"))
	case v != true:
		errs = append(errs, fmt.Errorf("LSUIElement is %v, want <true/> (no Dock icon)", v))
	}
	return errors.Join(errs...)
}

// Versions turns `git describe --tags --always --dirty` output into the two
// bundle versions. CFBundleShortVersionString takes the numbers of the tag
// ("v1.4.2-3-gabc" → "1.4.2"; no tag → "0.0.0"); CFBundleVersion is the commit
// count when known, so every build from a later commit sorts higher.
func Versions(describe string, commits int) (short, build string) {
	short = "0.0.0"
	if m := describeTag.FindStringSubmatch(strings.TrimSpace(describe)); m != nil && !looksLikeHash(describe) {
		parts := []string{m[1], "0", "0"}
		for i, p := range m[2:] {
			if p != "" {
				parts[i+1] = p
			}
		}
		short = strings.Join(parts, ".")
	}
	build = short
	if commits > 0 {
		build = strconv.Itoa(commits)
	}
	return short, build
}

// looksLikeHash tells an abbreviated commit (what describe prints without a
// tag) from a tag that starts with digits.
func looksLikeHash(describe string) bool {
	head, _, _ := strings.Cut(strings.TrimSpace(describe), "-")
	if len(head) < 7 {
		return false
	}
	for _, r := range head {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// AppOptions describes a Hark.app to build.
type AppOptions struct {
	Dest      string      // the bundle's path; must end in ".app"
	Binary    string      // the hark executable to copy in
	InfoPlist []byte      // the Info.plist template (the repository's file)
	Version   string      // git describe output, stamped into the plist
	Commits   int         // commit count for CFBundleVersion; 0 if unknown
	Icon      image.Image // nil uses the embedded hark-1024.png

	icns []byte // an .icns already made from Icon (tests share one)
}

// BuildApp writes a complete bundle: Contents/Info.plist with the versions
// stamped, Contents/MacOS/<executable>, Contents/Resources/<icon>.icns and
// Contents/PkgInfo. It assembles the bundle beside Dest and swaps it in at the
// end, so an interrupted build never leaves half an app behind.
func BuildApp(o AppOptions) error {
	if filepath.Ext(o.Dest) != ".app" {
		return fmt.Errorf("bundle: %q does not end in .app", o.Dest)
	}
	info, err := ParsePlist(o.InfoPlist)
	if err != nil {
		return fmt.Errorf("bundle: Info.plist: %w", err)
	}
	short, build := Versions(o.Version, o.Commits)
	info.Set("CFBundleShortVersionString", short)
	info.Set("CFBundleVersion", build)
	if o.Version != "" {
		// The exact git version, which the two numeric keys cannot hold.
		info.Set("HarkVersion", o.Version)
	}
	if err := CheckInfoPlist(info); err != nil {
		return fmt.Errorf("bundle: Info.plist: %w", err)
	}
	plist, err := EncodePlist(info)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	exe, _ := info.Get("CFBundleExecutable")
	iconFile, _ := info.Get("CFBundleIconFile")

	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return fmt.Errorf("bundle: %w (run `make build` first)", err)
	}
	icns := o.icns
	if icns == nil {
		icon := o.Icon
		if icon == nil {
			if icon, err = appIcon(); err != nil {
				return err
			}
		}
		if icns, err = WriteIcns(icon); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
	}

	if err := os.MkdirAll(filepath.Dir(o.Dest), 0o755); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(o.Dest), ".Hark-build-*")
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer os.RemoveAll(tmp)
	files := []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{"Contents/Info.plist", plist, 0o644},
		{"Contents/PkgInfo", []byte("APPL????"), 0o644},
		{filepath.Join("Contents/MacOS", exe.(string)), bin, 0o755},
		{filepath.Join("Contents/Resources", iconFile.(string)), icns, 0o644},
	}
	for _, f := range files {
		p := filepath.Join(tmp, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if err := os.RemoveAll(o.Dest); err != nil {
		return fmt.Errorf("bundle: removing the old %s: %w", o.Dest, err)
	}
	if err := os.Rename(tmp, o.Dest); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// appIcon decodes the embedded application icon, once per process.
var appIcon = sync.OnceValues(func() (image.Image, error) {
	data, err := assets.Icon("hark-1024.png")
	if err != nil {
		return nil, fmt.Errorf("bundle: app icon: %w", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("bundle: app icon: %w", err)
	}
	return img, nil
})

// appIconMips are the halvings of the app icon, shared by every size the
// Linux install writes.
var appIconMips = sync.OnceValues(func() (*mipChain, error) {
	img, err := appIcon()
	if err != nil {
		return nil, err
	}
	return newMipChain(img), nil
})

var appIconMipsMu sync.Mutex // scale adds levels lazily

// WriteIconPNG writes the application icon scaled to size pixels, for the
// freedesktop icon theme (~/.local/share/icons/hicolor/SIZExSIZE/apps).
func WriteIconPNG(path string, size int) error {
	mips, err := appIconMips()
	if err != nil {
		return err
	}
	appIconMipsMu.Lock()
	img := mips.scale(size)
	appIconMipsMu.Unlock()
	var buf bytes.Buffer
	if err := iconEncoder.Encode(&buf, img); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
