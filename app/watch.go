package app

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/hark-sh/hark/app/settings"
)

// Two files are shared with the world outside the app: settings.json,
// which the user edits through Settings…, and the Trash record that `hark
// undo` and `hark ask` change too. Where the system tells of file changes
// (inotify on Linux: fileEvents) a save is seen at once, whatever the
// editor does (write in place, rename over, or delete and create); a look
// every WatchEvery is the backstop there and the way on macOS. A change is
// judged by the file's identity, size, time and content, so that a save
// within the clock's resolution that keeps the size still counts.

// defaultWatchEvery is how often the shared files are looked at.
const defaultWatchEvery = 2 * time.Second

// stamp is what a change of a file is judged by.
type stamp struct {
	fi  os.FileInfo // nil: no such file
	sum [sha256.Size]byte
}

// stampOf reads path's stamp; the content counts only for a small file
// (settings.json, the Trash record), which costs next to nothing.
func stampOf(path string) stamp {
	if path == "" {
		return stamp{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	st := stamp{fi: fi}
	if fi.Size() <= 1<<20 {
		if b, err := os.ReadFile(path); err == nil {
			st.sum = sha256.Sum256(b)
		}
	}
	return st
}

func sameStamp(a, b stamp) bool {
	if a.fi == nil || b.fi == nil {
		return a.fi == nil && b.fi == nil
	}
	return os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime()) && a.sum == b.sum
}

// stateFiler is a Trash whose record lives in a file (*trash.Bin).
type stateFiler interface{ StateFile() string }

// filesChanged says which shared files changed since the last look, and
// whether a file event (not the periodic look) found it.
type filesChanged struct{ settings, trash, byEvent bool }

func (filesChanged) isEvent() {}

// startWatching takes the files' stamps now, so a change made right after
// start is seen, and looks at them again on every file event and every
// WatchEvery until ctx ends.
func (a *App) startWatching(ctx context.Context) {
	every := a.o.WatchEvery
	if every == 0 {
		every = defaultWatchEvery
	}
	if every < 0 {
		return
	}
	settingsPath, trashPath := a.o.Paths.Settings, ""
	if sf, ok := a.o.Trash.(stateFiler); ok {
		trashPath = sf.StateFile()
	}
	watch := a.o.fileEvents
	if watch == nil {
		watch = func(ctx context.Context, paths []string) <-chan struct{} { return fileEvents(ctx, paths, a.log) }
	}
	var paths []string
	for _, p := range []string{settingsPath, trashPath} {
		if p != "" {
			paths = append(paths, p)
		}
	}
	events := watch(ctx, paths)
	lastSettings, lastTrash := stampOf(settingsPath), stampOf(trashPath)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			byEvent := false
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			case _, ok := <-events:
				if !ok {
					events = nil // no more events: the look goes on
					continue
				}
				byEvent = true
			}
			s, t := stampOf(settingsPath), stampOf(trashPath)
			e := filesChanged{settings: !sameStamp(s, lastSettings), trash: trashPath != "" && !sameStamp(t, lastTrash), byEvent: byEvent}
			lastSettings, lastTrash = s, t
			if (e.settings || e.trash) && !a.post(e) {
				return
			}
		}
	}()
}

func (a *App) filesChanged(e filesChanged) {
	seen := "periodic look"
	if e.byEvent {
		seen = "file event"
	}
	a.log.Info("shared file changed", "settings", e.settings, "trash", e.trash, "seen", seen)
	if e.trash {
		a.loadTrash()
	}
	if e.settings {
		a.reloadSettings()
	}
	a.renderNow()
}

// liveKeys are the settings the app applies as soon as the file changes;
// every other key is read once, when Hark starts.
var liveKeys = map[string]bool{
	"confirmBeforeExecute": true,
	"soundCues":            true,
	"voiceAnswers":         true,
	"speak":                true,
	"confirmTimeout":       true, // from the next request on
	"maxRecording":         true,
	"hotkeyMode":           true,
	"tapThreshold":         true,
}

// reloadSettings reads settings.json after it changed: a bad value shows
// at once as a problem (and the valid keys still apply, as at start), a
// fixed file clears it, the keys in liveKeys apply now, and a change to
// any other key is named as waiting for a restart.
func (a *App) reloadSettings() {
	path := a.o.Paths.Settings
	s, err := settings.Load(path)
	old := a.problems["settings"]
	if err != nil {
		msg := fmt.Sprintf("%v\nFix it in Settings…; every other setting is in use, and the keys named here have their defaults.", err)
		a.setProblem(Problem{Source: "settings", Message: msg})
		if old.Detail != msg {
			a.notifyKey("settings", "Settings problem", err.Error())
		}
	} else {
		if _, was := a.problems["settings"]; was {
			// The error's notification would go on saying the file is
			// broken, in the desktop's list if nowhere else.
			a.withdrawNote("settings")
		}
		delete(a.problems, "settings")
		// A failed save said the file had an error; that is over now.
		if strings.HasPrefix(a.note, "Could not save the setting") {
			a.note = ""
		}
	}
	// What applies is judged against what the app started with, so a
	// key changed and changed back no longer asks for a restart.
	if a.holdConfirm(&s) {
		a.notifyKey("confirm", "Confirm stays on", a.problems["confirm"].Detail)
	}
	live, restart := changedKeys(a.settings, s), changedKeys(a.o.Settings, s)
	applied := a.settings
	applied.ConfirmBeforeExecute = s.ConfirmBeforeExecute
	applied.SoundCues = s.SoundCues
	applied.VoiceAnswers = s.VoiceAnswers
	applied.Speak = s.Speak
	applied.ConfirmTimeout = s.ConfirmTimeout
	applied.MaxRecording = s.MaxRecording
	if s.HotkeyMode != applied.HotkeyMode || s.TapThreshold != applied.TapThreshold {
		applied.HotkeyMode, applied.TapThreshold = s.HotkeyMode, s.TapThreshold
		if a.keys.m == nil || !a.keys.m.latched {
			a.keys.m = nil // rebuilt with the new mode at the next key
		}
	}
	a.settings = applied
	var now, later []string
	for _, k := range live {
		if liveKeys[k] {
			now = append(now, k)
		}
	}
	for _, k := range restart {
		if !liveKeys[k] {
			later = append(later, k)
		}
	}
	switch {
	case len(later) > 0:
		a.settingsNote = "settings.json: " + strings.Join(later, ", ") + " apply when Hark restarts (Quit, then start it again)"
		if len(now) > 0 {
			a.settingsNote = "settings.json: " + strings.Join(now, ", ") + " applied; " + strings.Join(later, ", ") + " apply when Hark restarts"
		}
		if keys := strings.Join(later, ", "); keys != a.restartNoted {
			a.restartNoted = keys
			a.notify("Restart to apply", "Changed in settings.json: "+keys+". Hark reads these when it starts: quit it from the menu and start it again. "+
				"Confirm before executing, sound cues, confirmTimeout, maxRecording and the hotkey mode apply at once.")
		}
	case len(now) > 0:
		a.settingsNote = "settings.json: " + strings.Join(now, ", ") + " applied"
	}
}

// changedKeys lists the JSON keys whose values differ between a and b.
func changedKeys(a, b settings.Settings) []string {
	va, vb, t := reflect.ValueOf(a), reflect.ValueOf(b), reflect.TypeOf(a)
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.HasPrefix(name, "_") {
			continue // _help is written for people and never read
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}
