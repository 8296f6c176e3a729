package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell/trash"
)

// watchFast looks at the shared files every few milliseconds, so a test
// waits for a view rather than for the real period.
func watchFast(o *Options) { o.WatchEvery = 5 * time.Millisecond }

// TestTrashRecordIsSharedLive: a Move to Trash made by another process
// (hark ask) shows Undo last trash in the menu without a restart, and an
// undo made elsewhere (hark undo) takes the entry away, so the menu never
// offers an undo that does nothing.
func TestTrashRecordIsSharedLive(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	state := filepath.Join(home, "state", "last-trash.json")
	newBin := func() *trash.Bin {
		b, err := trash.New(trash.Options{GOOS: "linux", Home: home, State: state})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	target := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(target, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := start(t, answerAgent("ok"), func(o *Options) { o.Trash = newBin(); watchFast(o) })
	h.views.waitFrom(t, 0, "an idle menu with nothing to undo", func(v View) bool { return v.State == Idle && v.UndoTrash == "" })

	other := newBin() // the terminal's own Bin, same record file
	m := h.views.mark()
	if _, err := other.Trash(context.Background(), "rm notes.txt", []string{target}); err != nil {
		t.Fatal(err)
	}
	h.views.waitFrom(t, m, "Undo last trash after a Move to Trash in the terminal", func(v View) bool { return v.UndoTrash == "notes.txt" })

	m = h.views.mark()
	if _, err := other.UndoLast(); err != nil {
		t.Fatal(err)
	}
	h.views.waitFrom(t, m, "no Undo last trash after hark undo", func(v View) bool { return v.UndoTrash == "" })
}

// TestSettingsEditsApplyLive: a bad value saved in settings.json shows as
// a problem at once, fixing it clears the problem (and a stale "could not
// save" line), live keys apply from the next request, and a key read only
// at start is named as waiting for a restart.
func TestSettingsEditsApplyLive(t *testing.T) {
	t.Parallel()
	h := start(t, answerAgent("ok"), watchFast)
	path := h.paths.Settings
	h.views.waitFrom(t, 0, "idle", func(v View) bool { return v.State == Idle })
	write := func(body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		// The app's own writer renames into place; an editor may too.
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}

	m := h.views.mark()
	write(`{"confirmTimeout": "2 minutes", "soundCues": false}`)
	v := h.views.waitFrom(t, m, "the bad value as a problem", func(v View) bool { _, ok := v.Problems["settings"]; return ok })
	if p := v.Problems["settings"]; !strings.Contains(p.Detail, `"confirmTimeout"`) || !strings.Contains(p.Detail, "line 1") {
		t.Errorf("the problem does not name the key and its line: %+v", p)
	}
	if v.Cues {
		t.Error("soundCues:false, a valid key beside the bad one, did not apply")
	}
	n := recv(t, "notification", h.notifier.got)
	if n.title != "Settings problem" || !strings.Contains(n.body, "confirmTimeout") {
		t.Errorf("notification %+v", n)
	}

	m = h.views.mark()
	// The file as Hark writes it starts with _help, which is never read:
	// it is no setting to restart for.
	write(`{"_help": "` + settings.HelpText + `", "confirmTimeout": "90s", "soundCues": false}`)
	v = h.views.waitFrom(t, m, "the problem cleared", func(v View) bool { _, ok := v.Problems["settings"]; return !ok })
	if !strings.Contains(v.Settings, "confirmTimeout") || !strings.Contains(v.Settings, "applied") || strings.Contains(v.Settings, "restart") {
		t.Errorf("note %q does not say the change applied, or asks for a restart", v.Settings)
	}
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "hi", Wait: true, Reply: reply})
	recv(t, "reply", reply)
	if r := recv(t, "request", h.agent.calls); r.ConfirmTimeout != 90*time.Second {
		t.Errorf("the next request's approval timeout is %v, want the edited 90s", r.ConfirmTimeout)
	}

	m = h.views.mark()
	write(`{"_help": "` + settings.HelpText + `", "confirmTimeout": "90s", "soundCues": false, "ollamaModel": "llama3.2:3b"}`)
	v = h.views.waitFrom(t, m, "a restart named", func(v View) bool { return strings.Contains(v.Settings, "ollamaModel") })
	if !strings.Contains(v.Settings, "restarts") {
		t.Errorf("note %q does not say the key needs a restart", v.Settings)
	}
	for n := recv(t, "notification", h.notifier.got); ; n = recv(t, "notification", h.notifier.got) {
		if n.title == "Restart to apply" {
			if !strings.HasPrefix(n.body, "Changed in settings.json: ollamaModel.") {
				t.Errorf("restart notification %+v", n)
			}
			break
		}
	}
	// Saving again (a menu toggle rewrites the file) does not repeat it.
	m = h.views.mark()
	write(`{"confirmTimeout": "90s", "soundCues": true, "ollamaModel": "llama3.2:3b"}`)
	h.views.waitFrom(t, m, "sound cues back on", func(v View) bool { return v.Cues })
	h.notifier.mu.Lock()
	restarts := 0
	for _, n := range h.notifier.sent {
		if n.title == "Restart to apply" {
			restarts++
		}
	}
	h.notifier.mu.Unlock()
	if restarts != 1 {
		t.Errorf("the restart was announced %d times, want once", restarts)
	}
}

// keyedNotifier records keyed notifications and their withdrawals.
type keyedNotifier struct {
	*fakeNotifier
	mu     sync.Mutex
	open   map[string]string // key → title still shown
	closed chan string
}

func (k *keyedNotifier) NotifyKey(key, title, body string) error {
	k.mu.Lock()
	k.open[key] = title
	k.mu.Unlock()
	return k.Notify(title, body)
}

func (k *keyedNotifier) CloseKey(key string) error {
	k.mu.Lock()
	delete(k.open, key)
	k.mu.Unlock()
	k.closed <- key
	return nil
}

// TestSettingsFixClearsOnTheFileEvent: a file event alone (the periodic
// look is an hour away) shows a bad value, and clears the problem once
// the file is fixed, and the error's notification is withdrawn then.
// Saves of every kind an editor makes: rename over, write in place with
// the same size, delete and create.
func TestSettingsFixClearsOnTheFileEvent(t *testing.T) {
	t.Parallel()
	kick := make(chan struct{}, 1)
	n := &keyedNotifier{fakeNotifier: newFakeNotifier(), open: map[string]string{}, closed: make(chan string, 8)}
	h := start(t, answerAgent("ok"), func(o *Options) {
		o.WatchEvery = time.Hour
		o.Notifier = n
		o.fileEvents = func(context.Context, []string) <-chan struct{} { return kick }
	})
	path := h.paths.Settings
	h.views.waitFrom(t, 0, "idle", func(v View) bool { return v.State == Idle })
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	saves := map[string]func(body string) error{
		"rename over": func(body string) error {
			if err := os.WriteFile(path+".tmp", []byte(body), 0o600); err != nil {
				return err
			}
			return os.Rename(path+".tmp", path)
		},
		"in place": func(body string) error { return os.WriteFile(path, []byte(body), 0o600) },
		"delete and create": func(body string) error {
			os.Remove(path)
			return os.WriteFile(path, []byte(body), 0o600)
		},
	}
	// Same length, so only the content tells the saves apart.
	bad, good := `{"confirmTimeout": "2 minutes"}`, `{"confirmTimeout": "120s"     }`
	for _, name := range []string{"rename over", "in place", "delete and create"} {
		save := saves[name]
		m := h.views.mark()
		if err := save(bad); err != nil {
			t.Fatal(err)
		}
		kick <- struct{}{}
		h.views.waitFrom(t, m, name+": the bad value shows", func(v View) bool { _, ok := v.Problems["settings"]; return ok })
		select {
		case <-n.got:
		case <-time.After(waitTimeout):
		}
		n.mu.Lock()
		_, shown := n.open["settings"]
		n.mu.Unlock()
		if !shown {
			t.Fatalf("%s: the settings error was not posted as a keyed notification", name)
		}
		m = h.views.mark()
		if err := save(good); err != nil {
			t.Fatal(err)
		}
		kick <- struct{}{}
		h.views.waitFrom(t, m, name+": the fix clears the problem", func(v View) bool { _, ok := v.Problems["settings"]; return !ok })
		select {
		case key := <-n.closed:
			if key != "settings" {
				t.Errorf("%s: withdrew %q, want settings", name, key)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("%s: the settings error's notification was not withdrawn", name)
		}
	}
}
