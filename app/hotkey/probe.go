package hotkey

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/hark-sh/hark/app/doctor"
)

// Probe is the hotkey's line in `hark doctor`: the "hotkey" setting parses,
// and on X11 the combination can be grabbed (and is let go at once). When
// Hark itself runs it holds the combination, which the fix mentions. On
// macOS the grab needs the app's run loop, so it is left to Hark's start
// and only the setting is checked.
func Probe(_ context.Context, combo string) (string, error) {
	if runtime.GOOS != "darwin" && WaylandSession(os.Getenv) {
		return probeWayland(combo, PortalAvailable)
	}
	grab := func(c Combo) error {
		l, err := Register(c, Options{})
		if err != nil {
			return err
		}
		return l.Close()
	}
	if runtime.GOOS == "darwin" {
		s, err := probe(combo, nil)
		if err == nil {
			if c, perr := Parse(combo); perr == nil {
				s += USPositionNote(c)
			}
		}
		return s, err
	}
	return probe(combo, grab)
}

// USPositionNote is what macOS users of a letter or digit hotkey must
// know: Carbon hot keys name physical keys by their place on a US
// keyboard (kVK_ANSI_*), so on AZERTY "ctrl+option+a" is the key labelled
// Q. Other keys (space, return, F-keys) are the same everywhere: "".
func USPositionNote(c Combo) string {
	if len(c.Key) != 1 {
		return ""
	}
	if k := c.Key[0]; !('a' <= k && k <= 'z' || '0' <= k && k <= '9') {
		return ""
	}
	return "; " + strings.ToUpper(c.Key) + " means the key in that place on a US keyboard, whatever your layout prints on it"
}

// probeWayland is the doctor's line on a Wayland desktop: the portal lends
// the hotkey, or the user binds `hark listen` and the fix says how.
func probeWayland(combo string, portal func() error) (string, error) {
	c, err := Parse(combo)
	if err != nil {
		return "", &doctor.Problem{Detail: err.Error(), Next: "fix \"hotkey\" in settings, for example \"ctrl+alt+space\""}
	}
	if err := portal(); err != nil {
		return "", &doctor.Problem{Detail: "this Wayland desktop lends no global key to apps (" + err.Error() + ")", Next: BindGuide(c)}
	}
	return combo + " through the desktop's GlobalShortcuts portal (the desktop asks once when Hark starts, and may assign another key; the menu shows the one it chose)", nil
}

func probe(combo string, grab func(Combo) error) (string, error) {
	c, err := Parse(combo)
	if err != nil {
		return "", &doctor.Problem{Detail: err.Error(), Next: "fix \"hotkey\" in settings, for example \"ctrl+alt+space\""}
	}
	if grab == nil {
		return combo + " (registered when Hark starts)", nil
	}
	err = grab(c)
	switch {
	case errors.Is(err, ErrTaken):
		// The grab's error ends with its own fix; the line's fix is said
		// once, in Next. Err keeps ErrTaken for `hark doctor`, which
		// knows when the running Hark is what holds it.
		what, _, _ := strings.Cut(err.Error(), "; ")
		return "", &doctor.Problem{Detail: combo + ": " + what, Err: err,
			Next: "choose another \"hotkey\" in settings, or quit the program that holds it"}
	case err != nil:
		return "", &doctor.Problem{Detail: fmt.Sprintf("%s: %v", combo, err),
			Next: "run Hark in an X11 session (DISPLAY set; XWayland on Wayland); until then speak through the tray's Type a request… or `hark send`"}
	}
	return combo + " can be registered", nil
}
