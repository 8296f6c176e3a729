package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

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

func TestMicrophoneCheck(t *testing.T) {
	t.Parallel()
	devs := func(d ...InputDevice) func(context.Context) ([]InputDevice, error) {
		return func(context.Context) ([]InputDevice, error) { return d, nil }
	}
	failing := func(context.Context) ([]InputDevice, error) { return nil, errors.New("PortAudio: no host API") }
	usb := InputDevice{Name: "USB Mic"}
	builtin := InputDevice{Name: "Built-in", Default: true}
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"default present", Microphone(devs(usb, builtin), "", "linux"), expect{OK, `default "Built-in" (2 input devices)`, ""}},
		{"configured present", Microphone(devs(usb, builtin), "USB Mic", "linux"), expect{OK, `"USB Mic" (from settings`, ""}},
		{"configured absent", Microphone(devs(builtin), "USB Mic", "linux"), expect{Fail, "not connected", `"microphone"`}},
		{"none", Microphone(devs(), "", "darwin"), expect{Fail, "no input device", "Privacy & Security"}},
		{"no default", Microphone(devs(usb), "", "linux"), expect{Warn, "no default", "sound settings"}},
		{"listing fails", Microphone(failing, "", "linux"), expect{Fail, "no host API", "muted"}},
		{"build without audio", Microphone(nil, "", "linux"), expect{Fail, "cannot record", "portaudio19-dev"}},
		{"lister without audio", Microphone(func(context.Context) ([]InputDevice, error) { return nil, ErrCannotRecord }, "", "darwin"), expect{Fail, "cannot record", "brew install portaudio"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); c.want.check(t, c.c) })
	}
}

func TestWhisperChecks(t *testing.T) {
	t.Parallel()
	models := t.TempDir()
	if err := os.WriteFile(filepath.Join(models, "ggml-base.en.bin"), make([]byte, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	resolve := modelFileIn(models)
	unknown := func(name string) (string, error) { return "", errors.New("not in the catalog") }
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"built with whisper", WhisperBuild(true, "linux"), expect{OK, "whisper.cpp", ""}},
		{"without whisper on macOS", WhisperBuild(false, "darwin"), expect{Fail, "no whisper.cpp", "brew install whisper-cpp"}},
		{"without whisper on Linux", WhisperBuild(false, "linux"), expect{Fail, "no whisper.cpp", "libwhisper"}},
		{"model present", WhisperModel("base.en", resolve), expect{OK, "base.en", ""}},
		{"model missing", WhisperModel("small.en", resolve), expect{Fail, "small.en is missing", "hark models download small.en"}},
		{"model path missing", WhisperModel("/nope/ggml-x.bin", resolve), expect{Fail, "/nope/ggml-x.bin", "put the model at"}},
		{"unknown name", WhisperModel("huge", unknown), expect{Fail, "not in the catalog", "hark models list"}},
		{"no VAD model", VADModel(func() (string, string, error) { return "", "", nil }), expect{Warn, "not installed", "hark models download silero-v5"}},
		{"VAD model damaged", VADModel(func() (string, string, error) {
			return "silero-v6", "/m/v6.bin", errors.New("/m/v6.bin is not the published silero-v6 file")
		}), expect{Warn, "not the published", "hark models download silero-v6"}},
		{"VAD model present", VADModel(func() (string, string, error) { return "silero-v5", "/m/v5.bin", nil }), expect{OK, "silero-v5 (/m/v5.bin)", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); c.want.check(t, c.c) })
	}
}

// fakeOllama is an httptest server speaking the two endpoints doctor uses.
func fakeOllama(t testing.TB, models map[string][]string, hang bool) (*api.Client, string) {
	t.Helper()
	// A hanging handler waits for the test to end: the server cannot always
	// tell that the client gave up, and srv.Close waits for handlers.
	stop := make(chan struct{})
	wait := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, r *http.Request) {
		if hang {
			wait(r)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"version": "0.17.4"})
	})
	mux.HandleFunc("/api/show", func(w http.ResponseWriter, r *http.Request) {
		if hang {
			wait(r)
			return
		}
		var req api.ShowRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		caps, ok := models[req.Model]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "model '" + req.Model + "' not found"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"capabilities": caps, "model_info": map[string]any{}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs before srv.Close
	u, _ := url.Parse(srv.URL)
	return api.NewClient(u, srv.Client()), srv.URL
}

func TestOllamaChecks(t *testing.T) {
	t.Parallel()
	models := map[string][]string{
		"qwen3:4b":  {"completion", "tools", "thinking"},
		"gemma3:1b": {"completion"},
		"old:1b":    nil,
	}
	client, host := fakeOllama(t, models, false)
	// A closed port: connection refused at once.
	downSrv := httptest.NewServer(http.NotFoundHandler())
	downURL, _ := url.Parse(downSrv.URL)
	downSrv.Close()
	down := api.NewClient(downURL, http.DefaultClient)

	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"answers", Ollama(client, host, "linux"), expect{OK, "version 0.17.4 at " + host, ""}},
		{"down", Ollama(down, downSrv.URL, "linux"), expect{Fail, "not answering at " + downSrv.URL, "ollama serve"}},
		{"down on macOS", Ollama(down, downSrv.URL, "darwin"), expect{Fail, "not answering", "open the Ollama app"}},
		{"model with tools", OllamaModel(client, host, "qwen3:4b", "linux"), expect{OK, "supports tools", ""}},
		{"model not pulled", OllamaModel(client, host, "llama3.2:3b", "linux"), expect{Fail, "not pulled", "ollama pull llama3.2:3b"}},
		{"model without tools", OllamaModel(client, host, "gemma3:1b", "linux"), expect{Fail, "cannot call tools (it offers: completion)", `"ollamaModel"`}},
		{"old server", OllamaModel(client, host, "old:1b", "linux"), expect{Warn, "does not report capabilities", "update Ollama"}},
		{"model check with server down", OllamaModel(down, downSrv.URL, "qwen3:4b", "linux"), expect{Fail, "cannot check qwen3:4b until Ollama answers at " + downSrv.URL, "ollama pull qwen3:4b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); c.want.check(t, c.c) })
	}
}

// TestOllamaHangs: a server that accepts and never answers is reported as a
// failure after the timeout, not waited on.
func TestOllamaHangs(t *testing.T) {
	t.Parallel()
	client, host := fakeOllama(t, nil, true)
	reports := Run(context.Background(), []Check{Ollama(client, host, "linux"), OllamaModel(client, host, "qwen3:4b", "linux")}, 100*time.Millisecond)
	for _, r := range reports {
		if r.Result.Status != Fail || !r.Failed() {
			t.Errorf("%s: %+v, want a required failure", r.Check.Name, r.Result)
		}
		if !strings.Contains(r.Result.Detail, "no answer") && !strings.Contains(r.Result.Detail, "in time") {
			t.Errorf("%s: detail %q does not say it hung", r.Check.Name, r.Result.Detail)
		}
	}
}

func TestSandboxCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"landlock", Sandbox(func() (bool, string) { return true, "Landlock ABI 4" }, "linux"), expect{OK, "Landlock ABI 4", ""}},
		{"none on linux", Sandbox(func() (bool, string) { return false, "Landlock is not enabled in this kernel" }, "linux"), expect{Warn, "not enabled", "Landlock"}},
		{"none on macOS", Sandbox(func() (bool, string) { return false, "sandbox-exec not found" }, "darwin"), expect{Warn, "sandbox-exec", "/usr/bin/sandbox-exec"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.want.check(t, c.c)
			if c.c.Required {
				t.Error("the sandbox check must be optional: Hark runs without one")
			}
		})
	}
}

func TestDesktopChecks(t *testing.T) {
	t.Parallel()
	caps := func(c ...string) func(context.Context) ([]string, error) {
		return func(context.Context) ([]string, error) { return c, nil }
	}
	noServer := func(context.Context) ([]string, error) {
		return nil, errors.New("org.freedesktop.Notifications was not provided by any .service files")
	}
	tray := func(ok bool, err error) func(context.Context) (bool, error) {
		return func(context.Context) (bool, error) { return ok, err }
	}
	cases := []struct {
		name string
		c    Check
		want expect
	}{
		{"actions", Notifications(caps("body", "actions")), expect{OK, "approve/deny", ""}},
		{"no actions", Notifications(caps("body")), expect{Warn, "no \"actions\"", "tray menu"}},
		{"no server", Notifications(noServer), expect{Warn, "no notification server", "tray menu"}},
		{"mac bundled", MacNotifications(func() (string, bool) { return "/Applications/Hark.app", true }), expect{OK, "/Applications/Hark.app", ""}},
		{"mac unbundled", MacNotifications(func() (string, bool) { return "", false }), expect{Warn, "not running from Hark.app", "make app"}},
		{"tray host", TrayHost(tray(true, nil)), expect{OK, "StatusNotifierWatcher", ""}},
		{"no tray host", TrayHost(tray(false, nil)), expect{Fail, "no tray host", "AppIndicator"}},
		{"no bus", TrayHost(tray(false, errors.New("no D-Bus session"))), expect{Fail, "no D-Bus session", "desktop session"}},
		{"mac tray", MacTray(func() error { return nil }), expect{OK, "menu bar", ""}},
		{"mac tray without cgo", MacTray(func() error { return errors.New("this build of Hark was made without cgo") }), expect{Fail, "without cgo", "make build"}},
		{"hotkey free", Hotkey("ctrl+alt+space", validCombo, func(context.Context, string) error { return nil }), expect{OK, "ctrl+alt+space can be registered", ""}},
		{"hotkey taken", Hotkey("ctrl+alt+space", validCombo, func(context.Context, string) error { return fmt.Errorf("%w: BadAccess", ErrHotkeyTaken) }), expect{Fail, "BadAccess", `choose another "hotkey"`}},
		{"no X display", Hotkey("ctrl+alt+space", validCombo, func(context.Context, string) error { return errors.New("no X11 display (DISPLAY is not set)") }), expect{Fail, "DISPLAY is not set", "X11 session"}},
		{"hotkey checked at start", Hotkey("ctrl+option+space", validCombo, nil), expect{OK, "registered when Hark starts", ""}},
		{"hotkey not understood", Hotkey("ctrl+banana", func(string) error { return errors.New(`unknown key "banana"`) }, nil), expect{Fail, "banana", `fix "hotkey"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { t.Parallel(); c.want.check(t, c.c) })
	}
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

// modelFileIn resolves a model setting the way hark doctor's resolver does,
// without the catalog: a path stays as it is, a name becomes whisper.cpp's
// file name in dir.
func modelFileIn(dir string) func(string) (string, error) {
	return func(name string) (string, error) {
		if looksLikePath(name) {
			return name, nil
		}
		return filepath.Join(dir, "ggml-"+name+".bin"), nil
	}
}

// validCombo is a hotkey parser that accepts every setting.
func validCombo(string) error { return nil }
