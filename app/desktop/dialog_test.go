package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell/exectest"
)

// fakeOsascript writes a script standing in for osascript: it saves its
// arguments NUL-separated, then behaves as told (print a button name, fail
// like a cancelled dialog, or wait to be killed).
func fakeOsascript(t *testing.T, behaviour string) (path, argsFile string) {
	dir := t.TempDir()
	argsFile = filepath.Join(dir, "args")
	path = filepath.Join(dir, "osascript")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > " + argsFile + "\n" + behaviour + "\n"
	exectest.WriteScript(t, path, script)
	return path, argsFile
}

func TestDialog(t *testing.T) {
	t.Parallel()
	hostile := `rm -rf "$HOME" ; " & (do shell script "touch /tmp/pwned") & "`
	cases := []struct {
		name      string
		behaviour string
		want      *app.Decision
	}{
		{"approve", `echo Approve`, &app.Decision{PendingID: "p1", Approved: true, By: app.ByNotification}},
		{"deny button", `echo 'Deny (safe choice)'`, &app.Decision{PendingID: "p1", Approved: false, By: app.ByNotification}},
		{"cancelled dialog is a denial", `echo "execution error: User canceled. (-128)" >&2; exit 1`, &app.Decision{PendingID: "p1", Approved: false, By: app.ByNotification}},
		{"gave up answers nothing", `echo gave-up`, nil},
		{"osascript failure answers nothing", `echo "some other error" >&2; exit 1`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bin, argsFile := fakeOsascript(t, tc.behaviour)
			d := &Dialog{Osascript: bin, GiveUp: 90 * time.Second}
			got := make(chan app.Decision, 2)
			if err := d.Ask(pending("p1", hostile), func(dec app.Decision) { got <- dec }); err != nil {
				t.Fatal(err)
			}
			select {
			case dec := <-got:
				if tc.want == nil {
					t.Fatalf("answered %+v, want no answer", dec)
				}
				if dec != *tc.want {
					t.Fatalf("decision = %+v, want %+v", dec, *tc.want)
				}
			case <-time.After(3 * time.Second):
				if tc.want != nil {
					t.Fatal("no answer")
				}
			}
			raw, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
			sep := -1
			for i, a := range args {
				if a == "--" {
					sep = i
					break
				}
				if strings.Contains(a, hostile) || strings.Contains(a, "pwned") {
					t.Errorf("command text spliced into script argument %d: %q", i, a)
				}
			}
			if sep < 0 || len(args) != sep+4 {
				t.Fatalf("args = %q, want the script, then -- and three values", args)
			}
			if !strings.HasPrefix(args[sep+2], hostile) || args[sep+3] != "90" {
				t.Errorf("argv after -- = %q, want the body starting with the command and 90", args[sep+1:])
			}
		})
	}
}

// TestDialogTrash: a plain deletion's dialog leads with Move to Trash as
// the default button, and only its own button names answer.
func TestDialogTrash(t *testing.T) {
	t.Parallel()
	cases := []struct {
		reply string
		want  *app.Decision
	}{
		{"Move to Trash (safe choice)", &app.Decision{PendingID: "t1", Trash: true, By: app.ByNotification}},
		{"Delete", &app.Decision{PendingID: "t1", Approved: true, By: app.ByNotification}},
		{"Deny", &app.Decision{PendingID: "t1", By: app.ByNotification}},
		{"Approve", nil}, // not a button of this dialog
	}
	for _, tc := range cases {
		// The first word names the case: a temp folder named with
		// parentheses would break the fake's shell script.
		t.Run(strings.Fields(tc.reply)[0], func(t *testing.T) {
			t.Parallel()
			bin, argsFile := fakeOsascript(t, "echo '"+tc.reply+"'")
			d := &Dialog{Osascript: bin}
			p := pending("t1", "rm ~/old.zip")
			p.TrashOffered = true
			got := make(chan app.Decision, 1)
			if err := d.Ask(p, func(dec app.Decision) { got <- dec }); err != nil {
				t.Fatal(err)
			}
			select {
			case dec := <-got:
				if tc.want == nil || dec != *tc.want {
					t.Fatalf("decision = %+v, want %v", dec, tc.want)
				}
			case <-time.After(3 * time.Second):
				if tc.want != nil {
					t.Fatal("no answer")
				}
			}
			raw, _ := os.ReadFile(argsFile)
			// Delete at the far end from the default, never beside it.
			if !strings.Contains(string(raw), `buttons {"Delete", "Deny", "Move to Trash (safe choice)"} default button "Move to Trash (safe choice)" cancel button "Deny"`) {
				t.Errorf("script args %q lack the Trash buttons", raw)
			}
		})
	}
}

// TestDialogSayAgain: a spoken request's dialog offers Say it again, as
// the menu and the notification do, between Approve and the default Deny;
// the button answers only where it was shown, and the trash dialog, which
// has no room for a fourth button, never takes it.
func TestDialogSayAgain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		again, trash bool
		reply        string
		want         *app.Decision
		buttons      string
	}{
		{"spoken", true, false, app.SayAgainLabel, &app.Decision{PendingID: "s1", Again: true, By: app.ByNotification},
			`buttons {"Approve", "Say it again", "Deny (safe choice)"} default button "Deny (safe choice)" cancel button "Deny (safe choice)"`},
		{"spoken approve", true, false, "Approve", &app.Decision{PendingID: "s1", Approved: true, By: app.ByNotification},
			`buttons {"Approve", "Say it again", "Deny (safe choice)"}`},
		{"typed", false, false, app.SayAgainLabel, nil, `buttons {"Approve", "Deny (safe choice)"}`},
		{"spoken trash", true, true, app.SayAgainLabel, nil, `buttons {"Delete", "Deny", "Move to Trash (safe choice)"}`},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "-"), func(t *testing.T) {
			t.Parallel()
			bin, argsFile := fakeOsascript(t, "echo '"+tc.reply+"'")
			d := &Dialog{Osascript: bin}
			p := pending("s1", "rm ~/old.zip")
			p.SayAgain, p.TrashOffered = tc.again, tc.trash
			got := make(chan app.Decision, 1)
			if err := d.Ask(p, func(dec app.Decision) { got <- dec }); err != nil {
				t.Fatal(err)
			}
			select {
			case dec := <-got:
				if tc.want == nil || dec != *tc.want {
					t.Fatalf("decision = %+v, want %v", dec, tc.want)
				}
			case <-time.After(3 * time.Second):
				if tc.want != nil {
					t.Fatal("no answer")
				}
			}
			raw, _ := os.ReadFile(argsFile)
			if !strings.Contains(string(raw), tc.buttons) {
				t.Errorf("script args %q lack %s", raw, tc.buttons)
			}
		})
	}
}

func TestDialogWithdraw(t *testing.T) {
	t.Parallel()
	bin, _ := fakeOsascript(t, `sleep 30; echo Approve`)
	d := &Dialog{Osascript: bin}
	got := make(chan app.Decision, 1)
	if err := d.Ask(pending("p9", "rm x"), func(dec app.Decision) { got <- dec }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the fake start its sleep
	if err := d.Withdraw("p9"); err != nil {
		t.Fatal(err)
	}
	select {
	case dec := <-got:
		t.Fatalf("withdrawn dialog answered %+v", dec)
	case <-time.After(500 * time.Millisecond):
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.open) != 0 {
		t.Errorf("%d dialogs still tracked after Withdraw", len(d.open))
	}
}
