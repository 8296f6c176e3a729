package desktop

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hark-sh/hark/app"
)

// dialogScript shows the approval dialog. The text to show comes in as
// argv, so nothing a command contains can change the script. Deny, the
// safe choice, is both the default and the cancel button: Return or
// Escape never approve. The labels are app.Answers'. The give-up time
// (text in argv) is made a number in its own statement, so the coercion
// cannot bind to the dialog's result instead.
var dialogScript = []string{
	"on run argv",
	"set t to (item 3 of argv) as integer",
	`set r to display dialog (item 2 of argv) with title (item 1 of argv) buttons {"Approve", "Deny (safe choice)"} default button "Deny (safe choice)" cancel button "Deny (safe choice)" with icon caution giving up after t`,
	"if gave up of r then return \"gave-up\"",
	"return button returned of r",
	"end run",
}

// trashDialogScript is dialogScript for a plain deletion under home: Move
// to Trash is the default (it can be undone), Deny still the cancel
// button beside it, and Delete, at the far end from the default, takes a
// deliberate click.
var trashDialogScript = []string{
	"on run argv",
	"set t to (item 3 of argv) as integer",
	`set r to display dialog (item 2 of argv) with title (item 1 of argv) buttons {"Delete", "Deny", "Move to Trash (safe choice)"} default button "Move to Trash (safe choice)" cancel button "Deny" with icon caution giving up after t`,
	"if gave up of r then return \"gave-up\"",
	"return button returned of r",
	"end run",
}

// sayAgainDialogScript is dialogScript for a spoken request
// (app.Pending.SayAgain): Say it again sits between Approve and Deny, so
// the button beside the default is one that runs nothing. The trash
// dialog has no room for it (display dialog takes three buttons at most);
// the menu still offers it there.
var sayAgainDialogScript = []string{
	"on run argv",
	"set t to (item 3 of argv) as integer",
	`set r to display dialog (item 2 of argv) with title (item 1 of argv) buttons {"Approve", "` + app.SayAgainLabel + `", "Deny (safe choice)"} default button "Deny (safe choice)" cancel button "Deny (safe choice)" with icon caution giving up after t`,
	"if gave up of r then return \"gave-up\"",
	"return button returned of r",
	"end run",
}

// Dialog asks for approval with a modal osascript dialog, one per pending
// command. It is the macOS fallback for when Hark runs outside its app
// bundle or notifications are not authorised.
type Dialog struct {
	// Osascript is the program to run; tests point it at a fake.
	Osascript string
	// GiveUp closes an unanswered dialog after this long (the core's own
	// timeout decides; this only stops dialogs piling up). Zero: 10 minutes.
	GiveUp time.Duration

	mu   sync.Mutex
	open map[string]*exec.Cmd
}

// NewDialog returns a Dialog that runs /usr/bin/osascript.
func NewDialog() *Dialog { return &Dialog{Osascript: "/usr/bin/osascript"} }

// Actions is true: the dialog always has Approve and Deny, and Say it
// again for a spoken request unless it offers the Trash.
func (d *Dialog) Actions() bool { return true }

// Ask opens the dialog and returns; answer is called when the user clicks a
// button. Closing it by giving up, or a withdrawn dialog, answers nothing.
func (d *Dialog) Ask(p app.Pending, answer func(app.Decision)) error {
	give := d.GiveUp
	if give <= 0 {
		give = 10 * time.Minute
	}
	args := []string{}
	script := dialogScript
	again := p.SayAgain && !p.TrashOffered
	switch {
	case p.TrashOffered:
		script = trashDialogScript
	case again:
		script = sayAgainDialogScript
	}
	for _, line := range script {
		args = append(args, "-e", line)
	}
	args = append(args, "--", approvalTitle(p), approvalBody(p), fmt.Sprint(int(give.Seconds())))
	cmd := exec.Command(d.Osascript, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening the approval dialog with %s: %v", d.Osascript, err)
	}
	d.mu.Lock()
	if d.open == nil {
		d.open = map[string]*exec.Cmd{}
	}
	d.open[p.ID] = cmd
	d.mu.Unlock()
	go func() {
		err := cmd.Wait()
		d.mu.Lock()
		current := d.open[p.ID] == cmd
		if current {
			delete(d.open, p.ID)
		}
		d.mu.Unlock()
		if !current {
			return // withdrawn: the answer came from elsewhere
		}
		switch reply := strings.TrimSpace(out.String()); {
		case err == nil && (reply == "Approve" && !p.TrashOffered || reply == "Delete" && p.TrashOffered):
			answer(app.Decision{PendingID: p.ID, Approved: true, By: app.ByNotification})
		case err == nil && reply == "Move to Trash (safe choice)" && p.TrashOffered:
			answer(app.Decision{PendingID: p.ID, Trash: true, By: app.ByNotification})
		case err == nil && reply == app.SayAgainLabel && again:
			answer(app.Decision{PendingID: p.ID, Again: true, By: app.ByNotification})
		case err == nil && reply == "gave-up":
			// Nobody answered; the core's timeout decides.
		case err == nil && (reply == "Deny" || reply == "Deny (safe choice)"), strings.Contains(errb.String(), "-128"):
			// Deny is the cancel button: osascript reports "User canceled (-128)".
			answer(app.Decision{PendingID: p.ID, Approved: false, By: app.ByNotification})
		}
	}()
	return nil
}

// Withdraw closes the dialog of pending id, if it is still open.
func (d *Dialog) Withdraw(id string) error {
	d.mu.Lock()
	cmd := d.open[id]
	delete(d.open, id)
	d.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	return nil
}
