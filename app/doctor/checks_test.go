package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/settings"
)

// expect runs one check and compares what matters to the user: the status,
// and words in the detail and the fix.
type expect struct {
	status Status
	detail string
	fix    string
}

func (e expect) check(t *testing.T, c Check) {
	t.Helper()
	r := Run(context.Background(), []Check{c}, 2*time.Second)[0].Result
	if r.Status != e.status {
		t.Errorf("status %v, want %v (%+v)", r.Status, e.status, r)
	}
	if !strings.Contains(r.Detail, e.detail) {
		t.Errorf("detail %q lacks %q", r.Detail, e.detail)
	}
	if !strings.Contains(r.Fix, e.fix) {
		t.Errorf("fix %q lacks %q", r.Fix, e.fix)
	}
	if r.Status != OK && r.Fix == "" {
		t.Errorf("a problem without a fix: %+v", r)
	}
}

func TestSettingsCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := errors.New(`settings.json: key "hotkeyMode": must be "push-to-talk" or "toggle", not "hold"`)
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"no file", Settings(filepath.Join(dir, "none.json"), nil), expect{OK, "using the defaults", ""}},
		{"file", Settings(existing, nil), expect{OK, existing, ""}},
		{"invalid", Settings(existing, bad), expect{Fail, `key "hotkeyMode"`, "edit " + existing}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); c.want.check(t, c.c) })
	}
}

func TestFoldersCheck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	good := settings.Paths{
		Settings: filepath.Join(root, "cfg", "settings.json"), Models: filepath.Join(root, "data", "models"),
		History: filepath.Join(root, "state", "history"), Audit: filepath.Join(root, "state", "audit.jsonl"),
		Logs: filepath.Join(root, "state"), Runtime: filepath.Join(root, "run"),
	}
	blocker := filepath.Join(root, "blocker")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	blocked := good
	blocked.History = filepath.Join(blocker, "history") // a file where a folder belongs
	t.Run("writable", func(t *testing.T) {
		expect{OK, filepath.Join(root, "state"), ""}.check(t, Folders(good))
		if left, _ := filepath.Glob(filepath.Join(root, "*", ".hark-doctor-*")); len(left) > 0 {
			t.Errorf("probe files left behind: %v", left)
		}
	})
	t.Run("blocked", func(t *testing.T) {
		expect{Fail, blocked.History, "HARK_HOME"}.check(t, Folders(blocked))
	})
}

func TestLoginItemCheck(t *testing.T) {
	t.Parallel()
	st := func(s bundle.Status, err error) func() (bundle.Status, error) {
		return func() (bundle.Status, error) { return s, err }
	}
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"off", LoginItem(st(bundle.Status{}, nil)), expect{OK, "hark login-item on", ""}},
		{"on", LoginItem(st(bundle.Status{Enabled: true, Path: "/h/.config/autostart/hark.desktop"}, nil)), expect{OK, "on (/h/.config/autostart/hark.desktop)", ""}},
		{"switched off by the user", LoginItem(st(bundle.Status{Note: "hidden"}, nil)), expect{OK, "off: hidden", ""}},
		{"points elsewhere", LoginItem(st(bundle.Status{Enabled: true, Note: "it starts a different Hark binary"}, nil)), expect{Warn, "different Hark binary", "hark login-item on"}},
		{"unreadable", LoginItem(st(bundle.Status{}, errors.New("corrupt plist"))), expect{Warn, "corrupt plist", "hark login-item"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.want.check(t, c.c)
			if c.c.Required {
				t.Error("launch at login is a preference, not a requirement")
			}
		})
	}
}

func TestCommonRoots(t *testing.T) {
	t.Parallel()
	got := commonRoots([]string{"/s/hark/history", "/c/hark", "/s/hark", "/d/hark/models"})
	want := []string{"/c/hark", "/d/hark/models", "/s/hark"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("commonRoots = %v, want %v", got, want)
	}
}

// `hark doctor` names what signed Hark.app, from real-shaped `codesign -dv`
// output (the fixtures of app/bundle).
func TestMacSignatureCheck(t *testing.T) {
	t.Parallel()
	bundled := func() (string, bool) { return "/Applications/Hark.app", true }
	from := func(name string) func(context.Context, string) string {
		b, err := os.ReadFile(filepath.Join("..", "bundle", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return func(_ context.Context, app string) string {
			if app != "/Applications/Hark.app" {
				t.Errorf("codesign ran on %q", app)
			}
			return string(b)
		}
	}
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"Apple Development", MacSignature(bundled, from("codesign-development.txt")), expect{OK, "signed by Apple Development: Jane Doe (AB12CD34EF); permissions survive", ""}},
		{"self-signed", MacSignature(bundled, from("codesign-selfsigned.txt")), expect{OK, "signed by Hark Code Signing", ""}},
		{"ad hoc", MacSignature(bundled, from("codesign-adhoc.txt")), expect{Warn, "signed ad hoc", "tccutil reset Microphone sh.hark.Hark"}},
		{"unsigned", MacSignature(bundled, from("codesign-unsigned.txt")), expect{Warn, "not signed", "make app"}},
		{"no bundle", MacSignature(func() (string, bool) { return "", false }, nil), expect{Warn, "no Hark.app", "make app"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); c.want.check(t, c.c) })
	}
}
