package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/scope"
)

const testNoSandbox = "the sandbox is off in settings"

// TestNoSandboxCardSaysRunsWithoutLimits: with no sandbox no scope holds,
// so every surface says first that the command runs without limits, and
// none says what it "may change".
func TestNoSandboxCardSaysRunsWithoutLimits(t *testing.T) {
	t.Parallel()
	home := "/home/u"
	p := Pending{ID: "p1", Command: "npm install", WorkingDirectory: home + "/proj", NoSandbox: true,
		Scope: &scope.Scope{Write: []string{home + "/proj"}, Network: true}}
	if l := ScopeLines(p, home); len(l) != 1 || l[0] != NoSandboxLine {
		t.Errorf("scope lines %q, want only %q", l, NoSandboxLine)
	}
	rows := strings.Join(outline(BuildMenu(View{State: AwaitingApproval, Confirm: true, Home: home, Pending: []Pending{p}}).Items, ""), "\n")
	warn, cmd := strings.Index(rows, "Runs without limits: this machine has no sandbox"), strings.Index(rows, "$ npm install")
	if warn < 0 || cmd < 0 || warn > cmd || strings.Contains(rows, "May change") {
		t.Errorf("the menu must say first that it runs without limits, and nothing it may change:\n%s", rows)
	}
	if full := FullCommandText(p, home); !strings.Contains(full, "Runs without limits: this machine has no sandbox") || strings.Contains(full, "May change") {
		t.Errorf("Show full command…:\n%s", full)
	}
	if said := SpokenApproval(p, home); !strings.Contains(said, "Runs without limits: this machine has no sandbox") || strings.Contains(said, "May change") {
		t.Errorf("spoken: %s", said)
	}
}

// TestNoSandboxConfirmationCannotBeSwitchedOff: the checkbox is ticked,
// disabled and says why; a click changes nothing; a settings file with
// confirmation off is not applied, at start or when edited, and a problem
// row and a notification say so.
func TestNoSandboxConfirmationCannotBeSwitchedOff(t *testing.T) {
	t.Parallel()
	item := findItem(BuildMenu(View{State: Idle, Confirm: true, NoSandbox: testNoSandbox}).Items, IDConfirm)
	if item == nil || !item.Checked || !item.Disabled || !strings.Contains(item.Tooltip, "no sandbox ("+testNoSandbox+")") {
		t.Fatalf("the checkbox without a sandbox: %+v", item)
	}

	h := start(t, answerAgent("ok"), func(o *Options) {
		o.NoSandbox = testNoSandbox
		o.Settings.ConfirmBeforeExecute = false
		watchFast(o)
	})
	v := h.views.waitFrom(t, 0, "idle", func(v View) bool { return v.State == Idle })
	if !v.Confirm || !strings.Contains(v.Problems["confirm"].Detail, "confirmBeforeExecute to false, and that is not applied") {
		t.Errorf("at start: confirm %v, problems %+v", v.Confirm, v.Problems)
	}
	m := h.views.mark()
	h.app.Post(MenuClick{ID: IDConfirm})
	v = h.views.waitFrom(t, m, "the click answered", func(v View) bool { return strings.Contains(v.Note, "Always on") })
	if !v.Confirm {
		t.Error("a click switched confirmation off")
	}
	reply := make(chan SendReply, 1)
	h.app.Post(SendRequest{Text: "hi", Wait: true, Reply: reply})
	recv(t, "reply", reply)
	if r := recv(t, "request", h.agent.calls); !r.ConfirmBeforeExecute {
		t.Error("a request went to the agent with confirmation off")
	}

	// Fixed in the file, the problem goes; set off again, it comes back.
	write := func(body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(h.paths.Settings), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(h.paths.Settings, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m = h.views.mark()
	write(`{"confirmBeforeExecute": true}`)
	h.views.waitFrom(t, m, "the problem cleared", func(v View) bool { _, ok := v.Problems["confirm"]; return !ok })
	m = h.views.mark()
	write(`{"confirmBeforeExecute": false}`)
	v = h.views.waitFrom(t, m, "the problem back", func(v View) bool { _, ok := v.Problems["confirm"]; return ok })
	if !v.Confirm || strings.Contains(v.Settings, "confirmBeforeExecute") {
		t.Errorf("the edit applied: confirm %v, note %q", v.Confirm, v.Settings)
	}
	for n := recv(t, "notification", h.notifier.got); ; n = recv(t, "notification", h.notifier.got) {
		if n.title == "Confirm stays on" {
			break
		}
	}
}
