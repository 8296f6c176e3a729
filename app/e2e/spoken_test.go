//go:build e2e

package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
)

// TestSpokenDenialWithReason: a spoken request proposes a command; while
// its approval waits, "no, because it is the wrong folder", played into
// the null sink and transcribed by the stand-in, denies it, the model is
// told the reason, and the audit log records the spoken answer's words.
func TestSpokenDenialWithReason(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()

	holdAndSay(t, d, h, "make the deny marker", "please make the deny marker now", "Listening")
	marker := filepath.Join(d.work, "denied-marker")
	h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")

	const said = "No, because it is the wrong folder."
	holdAndSay(t, d, h, said, "no, because it is the wrong folder", "Listening for your answer… release ctrl+alt+space")

	e := h.waitAudit("denied-marker", "denied")
	if e.DecidedBy != "voice" || e.HeardAnswer != said || e.DenyReason != "it is the wrong folder" {
		t.Errorf("audit entry %+v, want decidedBy voice with the words heard and the reason", e)
	}
	harness.Eventually(t, 30*time.Second, "the model told why", func() error {
		for _, n := range d.notes.All() {
			if strings.Contains(n.Body, "tried the deny marker") && strings.Contains(n.Body, "it is the wrong folder") {
				return nil
			}
		}
		return errors.New("not yet:\n" + d.notes.String())
	})
	if _, err := os.Stat(marker); err == nil {
		t.Error("the denied command ran")
	}
	h.waitIdle()

	// A near miss leaves the approval waiting and says the words that work.
	holdAndSay(t, d, h, "make the deny marker", "please make the deny marker now", "Listening")
	h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")
	holdAndSay(t, d, h, "yes, but not that one", "yes, but not that one", "Listening for your answer… release ctrl+alt+space")
	h.menu.WaitFor(t, 20*time.Second, "heard “yes, but not that one” — say yes, no, or no because…")
	h.menu.WaitFor(t, 5*time.Second, "Pending approval (1)")
	if _, err := os.Stat(marker); err == nil {
		t.Error("a yes inside a longer sentence ran the command")
	}
	h.quit()
}

// TestSayItAgainFromNotification: a spoken request's approval notification
// carries Say it again; the button drops the command (audited as
// cancelled, never run), the notification goes, Hark listens again at
// once, and the request said again is asked about anew.
func TestSayItAgainFromNotification(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	h.waitIdle()

	holdAndSay(t, d, h, "make the deny marker", "please make the deny marker now", "Listening")
	marker := filepath.Join(d.work, "denied-marker")
	n := approvalWith(t, d.notes, "touch "+marker, "Say it again")
	if last := n.Actions[len(n.Actions)-2:]; last[0] != "hark-say-again" {
		t.Errorf("Say it again is not the last button: %q", n.Actions)
	}
	h.menu.WaitFor(t, 5*time.Second, "Say it again")

	if err := d.notes.Invoke(n.ID, n.ActionKey("Say it again")); err != nil {
		t.Fatal(err)
	}
	if e := h.waitAudit(marker, "cancelled"); e.Executed {
		t.Errorf("the dropped command ran: %+v", e)
	}
	closed(t, d.notes, n.ID)
	h.menu.WaitFor(t, 20*time.Second, "Listening… press ctrl+alt+space again when done")
	d.pulse.Play(t, harness.Speech(t, "please make the deny marker now"))
	harness.Xdotool(t, d.display, "keydown", "ctrl+alt+space") // ends the latched recording
	harness.Xdotool(t, d.display, "keyup", "ctrl+alt+space")

	var again harness.Notification
	harness.Eventually(t, 30*time.Second, "the approval of the request said again", func() error {
		for _, x := range d.notes.All() {
			if x.ID != n.ID && !x.Closed && strings.Contains(x.Body, "touch "+marker) && x.ActionKey("Say it again") != "" {
				again = x
				return nil
			}
		}
		return errors.New("notifications:\n" + d.notes.String())
	})
	if err := d.notes.Invoke(again.ID, again.ActionKey("Deny (safe choice)")); err != nil {
		t.Fatal(err)
	}
	h.waitAudit(marker, "denied")
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command of the dropped or the denied request ran")
	}
	h.quit()
}

// holdAndSay holds the hotkey until the menu shows listening, plays spoken
// into the null sink and lets go; the stand-in transcriber hears
// transcript.
func holdAndSay(t *testing.T, d *desktop, h *hark, transcript, spoken, listening string) {
	t.Helper()
	if err := os.WriteFile(h.transcript, []byte(transcript), 0o600); err != nil {
		t.Fatal(err)
	}
	harness.Xdotool(t, d.display, "keydown", "ctrl+alt+space")
	h.menu.WaitFor(t, 20*time.Second, listening)
	d.pulse.Play(t, harness.Speech(t, spoken))
	harness.Xdotool(t, d.display, "keyup", "ctrl+alt+space")
}
