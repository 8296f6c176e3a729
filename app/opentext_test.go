package app

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// docOpener fails to open documents (no xdg-open, no gio) and records
// any fall back to Open, which would start an editor in a terminal.
type docOpener struct{ opened chan string }

func (d docOpener) Open(path string) error { d.opened <- path; return nil }
func (d docOpener) OpenDocument(path string) error {
	return errors.New("no program to open it was found (xdg-open or gio)")
}

type terminalViewer struct{ fakeViewer }

func (terminalViewer) InTerminal() bool { return true }

// TestProblemsWithoutXdgOpen: with no xdg-open, Problems… shows in a text
// window (zenity, kdialog), and without one as a notification — never
// in an editor or a pager in a terminal.
func TestProblemsWithoutXdgOpen(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		viewer   TextViewer
		inWindow bool
	}{
		{"zenity text window", &fakeViewer{shown: make(chan string, 1)}, true},
		{"only less in a terminal: a notification", &terminalViewer{fakeViewer{shown: make(chan string, 1)}}, false},
		{"no viewer: a notification", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			op := docOpener{opened: make(chan string, 4)}
			h := start(t, answerAgent("ok"), func(o *Options) { o.Opener = op; o.Viewer = c.viewer })
			h.app.Post(Problem{Source: "hotkey", Message: "no X display — set DISPLAY or use hark send"})
			h.views.waitFrom(t, 0, "problem", func(v View) bool { _, ok := v.Problems["hotkey"]; return ok })
			h.app.Post(MenuClick{ID: IDProblems})
			var shown chan string
			switch v := c.viewer.(type) {
			case *fakeViewer:
				shown = v.shown
			case *terminalViewer:
				shown = v.shown
			}
			if c.inWindow {
				recv(t, "the text window", shown)
			} else {
				n := recv(t, "the problems as a notification", h.notifier.got)
				if !strings.Contains(n.body, "no X display — set DISPLAY") {
					t.Errorf("notification %q lacks the problem", n.body)
				}
				select {
				case p := <-shown:
					t.Errorf("shown in a terminal viewer: %s", p)
				default:
				}
			}
			select {
			case p := <-op.opened:
				t.Errorf("fell back to an editor for %s", p)
			case <-time.After(100 * time.Millisecond):
			}
		})
	}
}
