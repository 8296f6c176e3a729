package app

import (
	"context"
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
// undo` and `hark ask` change too. The app looks at both with a stat
// every WatchEvery, which costs next to nothing, works alike on macOS and
// Linux, and needs no notification API; an atomic save (a rename) shows
// as a new file even within the clock's resolution.

// defaultWatchEvery is how often the shared files are looked at.
const defaultWatchEvery = 2 * time.Second

// stampOf is what a change of path is judged by; nil: no such file.
func stampOf(path string) os.FileInfo {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return fi
}

func sameStamp(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// stateFiler is a Trash whose record lives in a file (*trash.Bin).
type stateFiler interface{ StateFile() string }

// filesChanged says which shared files changed since the last look.
type filesChanged struct{ settings, trash bool }

func (filesChanged) isEvent() {}

// startWatching takes the files' stamps now, so a change made right after
// start is seen, and polls them until ctx ends.
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
	lastSettings, lastTrash := stampOf(settingsPath), stampOf(trashPath)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			s, t := stampOf(settingsPath), stampOf(trashPath)
			e := filesChanged{settings: !sameStamp(s, lastSettings), trash: trashPath != "" && !sameStamp(t, lastTrash)}
			lastSettings, lastTrash = s, t
			if (e.settings || e.trash) && !a.post(e) {
				return
			}
		}
	}()
}

func (a *App) filesChanged(e filesChanged) {
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
			a.notify("Hark — settings.json has a problem", err.Error())
		}
	} else {
		delete(a.problems, "settings")
		// A failed save said the file had an error; that is over now.
		if strings.HasPrefix(a.note, "Could not save the setting") {
			a.note = ""
		}
	}
	// What applies is judged against what the app started with, so a
	// key changed and changed back no longer asks for a restart.
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
		a.note = "settings.json: " + strings.Join(later, ", ") + " apply when Hark restarts (Quit, then start it again)"
		if len(now) > 0 {
			a.note = "settings.json: " + strings.Join(now, ", ") + " applied; " + strings.Join(later, ", ") + " apply when Hark restarts"
		}
		if keys := strings.Join(later, ", "); keys != a.restartNoted {
			a.restartNoted = keys
			a.notify("Hark — restart to apply "+keys, "Hark reads these settings when it starts: quit it from the menu and start it again. "+
				"Confirm before executing, sound cues, confirmTimeout, maxRecording and the hotkey mode apply at once.")
		}
	case len(now) > 0:
		a.note = "settings.json: " + strings.Join(now, ", ") + " applied"
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
