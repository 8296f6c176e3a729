package desktop

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/e2e/harness"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

func pending(id, cmd string) app.Pending {
	return app.Pending{ID: id, Command: cmd, Purpose: "executing", WorkingDirectory: "/tmp",
		Tier: shell.Confirm, Reasons: []shell.Reason{{Command: cmd, Why: "rm: deletes files"}}}
}

func connect(t *testing.T, addr string) *DBus {
	t.Helper()
	icon, err := CachedIcon(t.TempDir()) // not the user's own cache
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDBus(DBusOptions{Address: addr, Icon: icon})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func latest(t *testing.T, f *harness.Notifications, n int) harness.Notification {
	t.Helper()
	var all []harness.Notification
	harness.Eventually(t, 5*time.Second, "notification posted", func() error {
		all = f.All()
		if len(all) < n {
			return harness.Errorf("%d notifications, want %d", len(all), n)
		}
		return nil
	})
	return all[n-1]
}

func TestDBusApproval(t *testing.T) {
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "actions", "body", "body-markup")
	d := connect(t, addr)
	if !d.Actions() || d.Status() != "" {
		t.Fatalf("Actions() = %v, Status() = %q with an actions-capable server", d.Actions(), d.Status())
	}
	answers := make(chan app.Decision, 4)
	answer := func(dec app.Decision) { answers <- dec }

	t.Run("approve button answers once, for our id only", func(t *testing.T) {
		if err := d.Ask(pending("p1", "rm -rf build && echo <done>"), answer); err != nil {
			t.Fatal(err)
		}
		n := latest(t, fake, 1)
		// The safe choice first and marked, as on every surface.
		if want := []string{"hark-deny", "Deny (safe choice)", "hark-approve", "Approve"}; strings.Join(n.Actions, "|") != strings.Join(want, "|") {
			t.Fatalf("actions = %q, want %q", n.Actions, want)
		}
		if !strings.Contains(n.Body, "rm -rf build &amp;&amp; echo &lt;done&gt;") || !strings.Contains(n.Body, "rm: deletes files") {
			t.Errorf("body = %q, want the escaped command and its reason", n.Body)
		}
		if n.Timeout != 0 {
			t.Errorf("expire timeout = %d, want 0 (stays until answered)", n.Timeout)
		}
		fake.Invoke(n.ID+1000, "hark-approve") // another program's notification
		fake.Invoke(n.ID, "default")           // a click on the body decides nothing
		fake.Invoke(n.ID, n.ActionKey("Approve"))
		fake.Invoke(n.ID, n.ActionKey("Deny (safe choice)")) // too late: already answered
		select {
		case dec := <-answers:
			if dec != (app.Decision{PendingID: "p1", Approved: true, By: app.ByNotification}) {
				t.Errorf("decision = %+v", dec)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer after Approve")
		}
		select {
		case dec := <-answers:
			t.Errorf("second answer %+v; want exactly one", dec)
		case <-time.After(200 * time.Millisecond):
		}
		harness.Eventually(t, 5*time.Second, "answered notification closed", func() error {
			if !fake.All()[0].Closed {
				return harness.Errorf("still open")
			}
			return nil
		})
	})

	t.Run("deny button", func(t *testing.T) {
		d.Ask(pending("p2", "touch /tmp/x"), answer)
		n := latest(t, fake, 2)
		fake.Invoke(n.ID, n.ActionKey("Deny (safe choice)"))
		select {
		case dec := <-answers:
			if dec.Approved || dec.PendingID != "p2" || dec.By != app.ByNotification {
				t.Errorf("decision = %+v, want p2 denied by notification", dec)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer after Deny")
		}
	})

	t.Run("withdraw closes it and later clicks are ignored", func(t *testing.T) {
		d.Ask(pending("p3", "rm x"), answer)
		n := latest(t, fake, 3)
		if err := d.Withdraw("p3"); err != nil {
			t.Fatal(err)
		}
		if !fake.All()[2].Closed {
			t.Error("notification not closed by Withdraw")
		}
		fake.Invoke(n.ID, n.ActionKey("Approve"))
		select {
		case dec := <-answers:
			t.Errorf("answer %+v after Withdraw", dec)
		case <-time.After(200 * time.Millisecond):
		}
		if err := d.Withdraw("p3"); err != nil {
			t.Errorf("second Withdraw: %v, want nil", err)
		}
	})

	t.Run("dismissed without a choice answers nothing and comes back once", func(t *testing.T) {
		d.Ask(pending("p4", "rm y"), answer)
		n := latest(t, fake, 4)
		fake.Dismiss(n.ID)
		// A stray click must not lose the buttons: the same approval is
		// shown again, with its buttons, and still answers.
		again := latest(t, fake, 5)
		if again.ID == n.ID || again.Summary != n.Summary || again.Body != n.Body || !again.HasAction("hark-approve") {
			t.Fatalf("after dismissal got %+v, want the same approval again", again)
		}
		fake.Dismiss(again.ID) // a second dismissal sticks
		select {
		case dec := <-answers:
			t.Errorf("answer %+v after dismissal", dec)
		case <-time.After(200 * time.Millisecond):
		}
		if all := fake.All(); len(all) != 5 {
			t.Errorf("%d notifications after the second dismissal, want 5:\n%s", len(all), fake)
		}
	})

	t.Run("always allow is never a button", func(t *testing.T) {
		rule := &rules.Rule{Kind: rules.Allow, Program: "touch", Folder: "~/proj",
			Examples: rules.Examples{Match: []string{"touch a"}, NoMatch: []string{"touch ../a"}}}
		p := pending("p5", "touch a")
		p.Proposal = rule
		if err := d.Ask(p, answer); err != nil {
			t.Fatal(err)
		}
		n := latest(t, fake, 6)
		// One click would save the rule unseen: the menu has it, behind
		// what the rule matches.
		if n.HasAction("hark-always") || len(n.Actions) != 4 || !strings.Contains(n.Body, "Always allow… is in the Hark menu") {
			t.Fatalf("actions %v, body %q", n.Actions, n.Body)
		}
		// A forged invocation of the old key answers nothing and leaves
		// the others working.
		fake.Invoke(n.ID, "hark-always")
		fake.Invoke(n.ID, n.ActionKey("Approve"))
		select {
		case dec := <-answers:
			if !dec.Approved || dec.Rule != nil || dec.PendingID != "p5" {
				t.Errorf("decision = %+v, want p5 approved once, no rule", dec)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer after Approve")
		}
		d.Ask(pending("p6", "rm z"), answer)
		n = latest(t, fake, 7)
		fake.Invoke(n.ID, n.ActionKey("Deny (safe choice)"))
		select {
		case dec := <-answers:
			if dec.Approved || dec.PendingID != "p6" {
				t.Errorf("decision = %+v, want p6 denied", dec)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer after Deny")
		}
	})

	t.Run("info notification", func(t *testing.T) {
		if err := d.Notify("Hark", "3 files"); err != nil {
			t.Fatal(err)
		}
		n := latest(t, fake, 8)
		if n.Summary != "Hark" || n.Body != "3 files" || len(n.Actions) != 0 || n.AppName != "Hark" {
			t.Errorf("info notification = %+v", n)
		}
		// The app's icon, by file and launcher.
		if !strings.HasSuffix(n.AppIcon, "/hark.png") || n.Hints["desktop-entry"].Value() != "hark" {
			t.Errorf("icon %q, desktop-entry %v", n.AppIcon, n.Hints["desktop-entry"])
		}
	})
}

func TestDBusWithoutActions(t *testing.T) {
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "body")
	d := connect(t, addr)
	if d.Actions() {
		t.Fatal("Actions() = true for a server without the actions capability")
	}
	if !strings.Contains(d.Status(), "approve commands from the tray menu") {
		t.Errorf("Status() = %q, want advice to use the menu", d.Status())
	}
	if err := d.Ask(pending("p1", "rm -rf build"), func(app.Decision) { t.Error("answered without buttons") }); err != nil {
		t.Fatal(err)
	}
	n := latest(t, fake, 1)
	if len(n.Actions) != 0 || !strings.Contains(n.Body, "Hark menu") || !strings.Contains(n.Body, "rm -rf build") {
		t.Errorf("notification = %+v, want a plain one pointing to the menu", n)
	}
}

func TestDBusWithoutServer(t *testing.T) {
	addr := harness.SessionBus(t)
	d := connect(t, addr)
	if d.Actions() {
		t.Fatal("Actions() = true with no server")
	}
	if s := d.Status(); !strings.Contains(s, "no notification server") {
		t.Errorf("Status() = %q", s)
	}
	if err := d.Notify("a", "b"); err == nil {
		t.Error("Notify succeeded with no server")
	}
}

func TestDBusWithoutBus(t *testing.T) {
	t.Parallel()
	_, err := NewDBus(DBusOptions{Address: "unix:path=/nonexistent/hark-test-bus"})
	if err == nil || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
		t.Fatalf("error = %v, want one naming DBUS_SESSION_BUS_ADDRESS", err)
	}
}

// TestApprovalBodyKeepsHeadAndTail: a long command's notification shows
// its start and its end, so what hides at the end is seen.
func TestApprovalBodyKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	cmd := "echo " + strings.Repeat("a", 2000) + " ; rm -rf ~"
	body := approvalBody(app.Pending{Command: cmd})
	// Broken into short rows (a server cuts a long line), the head is
	// still the exact start of the command.
	if !strings.HasPrefix(strings.ReplaceAll(body, "\n", ""), cmd[:2*lineWidth]) || !strings.Contains(body, "; rm -rf ~") || !strings.Contains(body, "more characters") {
		t.Errorf("body lacks the head, the tail or the count:\n%s", body)
	}
	if len(body) > 600 {
		t.Errorf("body is %d bytes; a notification cuts it anyway", len(body))
	}
	if short := approvalBody(app.Pending{Command: "ls -la"}); !strings.HasPrefix(short, "ls -la") {
		t.Errorf("short command altered: %q", short)
	}
}

// An approval with a deadline says in the notification when it becomes a
// denial; one without says nothing of it.
func TestApprovalBodySaysTheDeadline(t *testing.T) {
	t.Parallel()
	p := app.Pending{Command: "rm -r /tmp/x", Deadline: time.Now().Add(2*time.Minute + 2*time.Second)}
	if body := approvalBody(p); !strings.Contains(body, "Auto-deny at ") || !strings.Contains(body, "(in 2 min)") {
		t.Errorf("body lacks the deadline:\n%s", body)
	}
	if got := roundMinutes(59*time.Second + 900*time.Millisecond); got != "1 min" {
		t.Errorf("59.9 s reads %q, want 1 min", got)
	}
	p.Deadline = time.Time{}
	if body := approvalBody(p); strings.Contains(body, "Auto-deny") {
		t.Errorf("body without a deadline mentions one:\n%s", body)
	}
}

// TestDBusMoveToTrash: a plain deletion's approval leads with Move to
// Trash, keeps Delete last (the button a server with little room drops),
// and the Trash button answers Trash, not an approval.
func TestDBusMoveToTrash(t *testing.T) {
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "actions", "body")
	d := connect(t, addr)
	answers := make(chan app.Decision, 2)
	p := pending("t1", "rm ~/Downloads/old.zip")
	p.TrashOffered = true
	if err := d.Ask(p, func(dec app.Decision) { answers <- dec }); err != nil {
		t.Fatal(err)
	}
	n := latest(t, fake, 1)
	want := []string{"hark-trash", "Move to Trash (safe choice)", "hark-deny", "Deny", "hark-approve", "Delete"}
	if strings.Join(n.Actions, "|") != strings.Join(want, "|") {
		t.Fatalf("actions = %q, want %q", n.Actions, want)
	}
	fake.Invoke(n.ID, n.ActionKey("Move to Trash (safe choice)"))
	select {
	case dec := <-answers:
		if dec != (app.Decision{PendingID: "t1", Trash: true, By: app.ByNotification}) {
			t.Errorf("decision = %+v, want Move to Trash by notification", dec)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after Move to Trash")
	}

	d.Ask(pending("t2", "touch x"), func(dec app.Decision) { answers <- dec })
	if n := latest(t, fake, 2); n.HasAction("hark-trash") {
		t.Fatalf("Move to Trash offered for a command that is not a plain deletion: %q", n.Actions)
	}
}

// TestDBusSayAgain: a spoken request's approval carries Say it again after
// the answers, and the button answers Again (no approval, no denial); an
// approval that does not offer it ignores the key, as it ignores any key
// it never showed.
func TestDBusSayAgain(t *testing.T) {
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "actions", "body")
	d := connect(t, addr)
	answers := make(chan app.Decision, 4)
	answer := func(dec app.Decision) { answers <- dec }

	p := pending("s1", "rm -r ~/bills")
	p.TrashOffered, p.Heard, p.SayAgain = true, "delete the old [bills?]", true
	if err := d.Ask(p, answer); err != nil {
		t.Fatal(err)
	}
	n := latest(t, fake, 1)
	want := []string{"hark-trash", "Move to Trash (safe choice)", "hark-deny", "Deny", "hark-approve", "Delete", "hark-say-again", "Say it again"}
	if strings.Join(n.Actions, "|") != strings.Join(want, "|") {
		t.Fatalf("actions = %q, want %q", n.Actions, want)
	}
	fake.Invoke(n.ID, n.ActionKey("Say it again"))
	fake.Invoke(n.ID, n.ActionKey("Delete")) // too late: already answered
	select {
	case dec := <-answers:
		if dec != (app.Decision{PendingID: "s1", Again: true, By: app.ByNotification}) {
			t.Errorf("decision = %+v, want Say it again by notification", dec)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after Say it again")
	}
	harness.Eventually(t, 5*time.Second, "answered notification closed", func() error {
		if !fake.All()[0].Closed {
			return harness.Errorf("still open")
		}
		return nil
	})

	typed := pending("s2", "touch x")
	typed.Heard = "make a file" // heard, but not offered: the core decides
	d.Ask(typed, answer)
	n = latest(t, fake, 2)
	if n.HasAction("hark-say-again") {
		t.Fatalf("Say it again shown where the Pending does not offer it: %q", n.Actions)
	}
	fake.Invoke(n.ID, "hark-say-again") // a key this notification never had
	fake.Invoke(n.ID, n.ActionKey("Deny (safe choice)"))
	select {
	case dec := <-answers:
		if dec != (app.Decision{PendingID: "s2", By: app.ByNotification}) {
			t.Errorf("decision = %+v, want the deny, not Say it again", dec)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after Deny")
	}
}

// TestNotificationsCarryHarksIcon: app_icon is an absolute path to a PNG
// that exists (a theme name showed "image missing" wherever Hark was not
// installed), and the image-path hint names the same file.
func TestNotificationsCarryHarksIcon(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "actions", "body")
	d, err := NewDBus(DBusOptions{Address: addr}) // the default icon
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Notify("Hark", "Done."); err != nil {
		t.Fatal(err)
	}
	if err := d.Ask(pending("p1", "rm -r old_builds"), func(app.Decision) {}); err != nil {
		t.Fatal(err)
	}
	latest(t, fake, 2)
	for _, n := range fake.All() {
		if !filepath.IsAbs(n.AppIcon) {
			t.Fatalf("%q: app_icon = %q, want an absolute path", n.Summary, n.AppIcon)
		}
		data, err := os.ReadFile(n.AppIcon)
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("%q: app_icon %s is not a PNG (%v)", n.Summary, n.AppIcon, err)
		}
		if v, ok := n.Hints["image-path"]; !ok || v.Value() != "file://"+n.AppIcon {
			t.Errorf("%q: image-path hint = %v, want file://%s", n.Summary, v, n.AppIcon)
		}
	}
	// A second start reuses the cached file.
	p1, err1 := CachedIcon("")
	p2, err2 := CachedIcon("")
	if err1 != nil || err2 != nil || p1 != p2 {
		t.Errorf("CachedIcon twice = %q %v, %q %v", p1, err1, p2, err2)
	}
}

// Any program on the session bus can emit ActionInvoked with the
// notification's id (ids are small and counted up); only the notification
// server's own answers an approval, so nobody else approves a command.
func TestDBusIgnoresOtherSenders(t *testing.T) {
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "actions", "body")
	d := connect(t, addr)
	answers := make(chan app.Decision, 4)
	if err := d.Ask(pending("p1", "rm -rf ~/project"), func(dec app.Decision) { answers <- dec }); err != nil {
		t.Fatal(err)
	}
	n := latest(t, fake, 1)
	spoofer, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer spoofer.Close()
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		var err error
		if member == "ActionInvoked" {
			err = spoofer.Emit(notifyPath, notifyIface+"."+member, n.ID, n.ActionKey("Approve"))
		} else {
			err = spoofer.Emit(notifyPath, notifyIface+"."+member, n.ID, uint32(closedByUser))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The bus handles one connection's messages in order: once this call
	// returns, the spoofed signals have been routed ahead of the server's.
	if err := spoofer.BusObject().Call("org.freedesktop.DBus.GetId", 0).Err; err != nil {
		t.Fatal(err)
	}
	if err := fake.Invoke(n.ID, n.ActionKey("Deny (safe choice)")); err != nil {
		t.Fatal(err)
	}
	select {
	case dec := <-answers:
		if dec.Approved || dec.PendingID != "p1" {
			t.Errorf("decision %+v: another program's ActionInvoked approved the command", dec)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after the server's Deny")
	}
	if got := len(fake.All()); got != 1 {
		t.Errorf("%d notifications: another program's NotificationClosed brought it back", got)
	}
}

// TestDBusUndoButton: a Trash result posted with NotifyKeyUndo carries
// an Undo button where the server shows buttons; a click runs undo once
// and closes it, CloseKey withdraws it, and a server without buttons gets
// the notification without one.
func TestDBusUndoButton(t *testing.T) {
	addr := harness.SessionBus(t)
	fake := harness.FakeNotifications(t, addr, "actions", "body")
	d := connect(t, addr)
	undone := make(chan struct{}, 4)
	if err := d.NotifyKeyUndo("trashed", "Moved to the Trash", "Moved old_builds to the Trash.", func() { undone <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	n := latest(t, fake, 1)
	if want := []string{"hark-undo", "Undo"}; strings.Join(n.Actions, "|") != strings.Join(want, "|") {
		t.Fatalf("actions = %q, want %q", n.Actions, want)
	}
	fake.Invoke(n.ID, "default")
	fake.Invoke(n.ID, n.ActionKey("Undo"))
	fake.Invoke(n.ID, n.ActionKey("Undo"))
	select {
	case <-undone:
	case <-time.After(5 * time.Second):
		t.Fatal("Undo did nothing")
	}
	select {
	case <-undone:
		t.Error("undo ran twice")
	case <-time.After(200 * time.Millisecond):
	}
	harness.Eventually(t, 5*time.Second, "clicked notification closed", func() error {
		if !fake.All()[0].Closed {
			return harness.Errorf("still open")
		}
		return nil
	})
	if err := d.NotifyKeyUndo("trashed", "Moved to the Trash", "again", func() { undone <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	latest(t, fake, 2)
	if err := d.CloseKey("trashed"); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 5*time.Second, "withdrawn", func() error {
		if !fake.All()[1].Closed {
			return harness.Errorf("still open")
		}
		return nil
	})

	addr2 := harness.SessionBus(t)
	plain := harness.FakeNotifications(t, addr2, "body")
	d2 := connect(t, addr2)
	if err := d2.NotifyKeyUndo("trashed", "Moved to the Trash", "Moved old_builds.", func() {}); err != nil {
		t.Fatal(err)
	}
	if n := latest(t, plain, 1); len(n.Actions) != 0 {
		t.Errorf("a server without buttons got actions %q", n.Actions)
	}
}
