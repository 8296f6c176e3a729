//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/e2e/harness"
	"github.com/hark-sh/hark/app/hotkey"
)

var harkBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hark-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	harkBin = filepath.Join(dir, "hark")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	build := exec.CommandContext(ctx, "go", "build", "-tags", "e2e", "-o", harkBin, "github.com/hark-sh/hark/cmd/hark")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	err = build.Run()
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building hark:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// model is the default model, served like the real one: on Ollama's
// built-in qwen3 parser, through agent/ollamatest.
const model = agent.DefaultModel

// desktop is the environment one hark process runs in.
type desktop struct {
	display string // "" for no X server
	bus     string
	pulse   *harness.Pulse
	notes   *harness.Notifications // nil: no notification server
	watcher *harness.Watcher
	ollama  *ollamatest.Server
	work    string   // where the commands leave their marker files
	env     []string // more environment for hark, e.g. TERMINAL
	// helpers are the desktop programs (harness.DesktopHelpers) this
	// desktop has: Hark finds no other, whatever the machine has.
	helpers []string
	fakes   string // a folder of stand-in programs, first in PATH (fakeTools)
}

// rule scripts the model: when the newest user request contains when, it
// calls the terminal tool with command (if any), then answers with answer
// followed by what the tool reported.
type rule struct {
	when, command, purpose, answer string
	dir                            string // the workingDirectory argument; "": none (home)
	// retry is proposed once after command is denied or times out, as a small model
	// tries another way after a no.
	retry string
}

func rules(work string) []rule {
	return []rule{
		{when: "deny marker", command: "touch " + filepath.Join(work, "denied-marker"), answer: "tried the deny marker"},
		{when: "approve marker", command: "touch " + filepath.Join(work, "approved-marker"), answer: "made the approve marker"},
		{when: "unasked marker", command: "touch " + filepath.Join(work, "unasked-marker"), answer: "made the unasked marker"},
		{when: "cancel marker", command: "touch " + filepath.Join(work, "cancel-marker"), answer: "tried the cancel marker"},
		{when: "list the work folder", command: "ls " + work, purpose: "checking", answer: "listed it"},
		{when: "say hello", answer: "hello from the fake model"},
		{when: "always marker", command: "touch always-marker", dir: work, answer: "made the always marker"},
		{when: "other folder marker", command: "mkdir other-folder-marker", dir: work, answer: "tried the other marker"},
		{when: "underscore files", command: underscoreCommand(work), answer: "**Deleted it.** Removed `old_builds`."},
		{when: "long command", command: longCommand(work), answer: "ran the long one"},
		{when: "trash the old report", command: "rm ~/old_report.txt", answer: "handled the old report"},
		{when: "archive the logs", command: archiveCommand(work), answer: "archived the logs"},
		{when: "long family tail delete", command: "echo " + countedWords(300) + " && rm " + filepath.Join(work, "family-rm-target"), answer: "done"},
		{when: "long family heredoc", command: "cat > " + filepath.Join(work, "family-plan.md") + " <<'EOF'\n" + countedLines(40) + "EOF", answer: "done"},
		{when: "long family many reasons", command: manyReasons(work), answer: "done"},
		{when: "remove the build folder", command: "rm -r " + filepath.Join(work, "old_builds"), retry: "rm -r " + filepath.Join(work, "old_builds") + "/*", answer: "left the builds"},
	}
}

// archiveCommand is a long command with its deletion in the middle, where
// a long command is elided.
func archiveCommand(work string) string {
	var logs []string
	for i := 1; i <= 4; i++ {
		logs = append(logs, filepath.Join(work, fmt.Sprintf("server-2024-11-0%d_access_webapp.log", i)))
	}
	archive := filepath.Join(work, "archive", "2024-11")
	return "mkdir -p " + archive + " && tar -czf " + filepath.Join(archive, "server-logs.tar.gz") + " " + strings.Join(logs, " ") +
		" && rm " + strings.Join(logs, " ") + " && echo archived the November logs into " + archive
}

// fakeModel serves rules as raw model text through Ollama's own parsers.
func fakeModel(t *testing.T, rs []rule) *ollamatest.Server {
	srv := ollamatest.New(t, ollamatest.Qwen3(model))
	srv.Next = func(_ int, req api.ChatRequest) ollamatest.Reply {
		var request string
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				request = strings.ToLower(req.Messages[i].Content)
				break
			}
		}
		var r *rule
		for i := range rs {
			if strings.Contains(request, rs[i].when) {
				r = &rs[i]
				break
			}
		}
		if r == nil {
			return ollamatest.Reply{Text: "I do not know how to do that."}
		}
		last := req.Messages[len(req.Messages)-1]
		tools := 0
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
			if req.Messages[i].Role == "tool" {
				tools++
			}
		}
		if last.Role == "tool" && r.retry != "" && tools == 1 && (strings.Contains(last.Content, "denied") || strings.Contains(last.Content, "did not answer")) {
			return ollamatest.Reply{Text: "Let me try another way. ", Calls: []api.ToolCall{ollamatest.Call("command", r.retry, "purpose", "executing")}}
		}
		if last.Role == "user" && r.command != "" {
			purpose := r.purpose
			if purpose == "" {
				purpose = "executing"
			}
			kv := []any{"command", r.command, "purpose", purpose}
			if r.dir != "" {
				kv = append(kv, "workingDirectory", r.dir)
			}
			return ollamatest.Reply{Text: "Let me do that. ", Calls: []api.ToolCall{ollamatest.Call(kv...)}}
		}
		var res struct {
			Executed bool   `json:"executed"`
			ExitCode int    `json:"exitCode"`
			Output   string `json:"output"`
			Error    string `json:"error"`
		}
		if last.Role == "tool" {
			_ = json.Unmarshal([]byte(last.Content), &res)
		}
		return ollamatest.Reply{Text: fmt.Sprintf("%s [executed=%v exit=%d output=%q error=%q]", r.answer, res.Executed, res.ExitCode, strings.TrimSpace(res.Output), res.Error)}
	}
	return srv
}

// underscoreCommand names files whose underscores a dbusmenu host would
// swallow if the labels were not escaped.
func underscoreCommand(work string) string {
	return "rm -r " + filepath.Join(work, "old_builds") + " " + filepath.Join(work, "my__notes_2024.txt")
}

// longCommand is 2,000-odd characters with its sting in the tail.
// countedWords and countedLines are long text that never repeats, which
// the stand-in server (as Ollama's runner) would cut as a repeating model.
func countedWords(n int) string {
	var w []string
	for i := range n {
		w = append(w, fmt.Sprintf("w%d", i))
	}
	return strings.Join(w, " ")
}

func countedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d of the plan\n", i)
	}
	return b.String()
}

// manyReasons is a long command with many parts that change files.
func manyReasons(work string) string {
	var parts []string
	for i := range 8 {
		d := filepath.Join(work, fmt.Sprintf("fam%d", i))
		parts = append(parts, fmt.Sprintf("mkdir -p %s && touch %s/f && chmod 600 %s/f && rm %s/old > %s/out.txt", d, d, d, d, d))
	}
	return strings.Join(parts, " ; ")
}

func longCommand(work string) string {
	return "echo " + strings.Repeat("padding_", 250) + " ; touch " + filepath.Join(work, "long-tail-marker")
}

func newDesktop(t *testing.T, withX, withNotifications bool) *desktop {
	d := &desktop{work: t.TempDir()}
	d.bus = harness.SessionBus(t)
	if withX {
		d.display = harness.Xvfb(t)
		harness.FocusedWindow(t, d.display)
	}
	if withNotifications {
		d.notes = harness.FakeNotifications(t, d.bus, "actions", "body")
	}
	d.watcher = harness.FakeWatcher(t, d.bus)
	d.pulse = harness.StartPulse(t)
	d.ollama = fakeModel(t, rules(d.work))
	if err := os.WriteFile(filepath.Join(d.work, "existing-file"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

// hark is one running app.
type hark struct {
	t          *testing.T
	d          *desktop
	cmd        *exec.Cmd
	home       string
	transcript string
	env        []string
	stderr     *syncBuffer
	exited     chan struct{}
	menu       *harness.Menu
}

func startHark(t *testing.T, d *desktop) *hark {
	t.Helper()
	h := launchHark(t, d)
	h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
	h.menu.WaitFor(t, 30*time.Second, "Quit")
	return h
}

// launchHark starts hark in its own HARK_HOME on desktop d, with settings
// short enough for tests (and a preview bound a loaded machine meets), and
// stops it (showing its output on failure) when
// the test ends.
func launchHark(t *testing.T, d *desktop) *hark {
	return launchHarkWith(t, d, `{"confirmTimeout": "60s", "recordTail": "200ms", "previewTimeout": "10s", "ollamaModel": "`+model+`"}`)
}

// launchHarkWith is launchHark with the given settings file.
func launchHarkWith(t *testing.T, d *desktop, settingsJSON string) *hark {
	t.Helper()
	home := t.TempDir()
	h := &hark{t: t, d: d, home: home, transcript: filepath.Join(home, "transcript.txt"), stderr: &syncBuffer{}, exited: make(chan struct{})}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.transcript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(home, "xdg-run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	path := harness.HelperPath(t, d.helpers...)
	if d.fakes != "" {
		path = d.fakes + string(os.PathListSeparator) + path
	}
	h.env = []string{
		"PATH=" + path,
		"HOME=" + home,
		"HARK_HOME=" + home,
		"XDG_RUNTIME_DIR=" + run,
		"OLLAMA_HOST=" + d.ollama.URL,
		"DBUS_SESSION_BUS_ADDRESS=" + d.bus,
		"HARK_E2E_TRANSCRIPT=" + h.transcript,
		"LANG=C.UTF-8",
	}
	if d.display != "" {
		h.env = append(h.env, "DISPLAY="+d.display)
	}
	h.env = append(h.env, d.pulse.Env...)
	h.env = append(h.env, d.env...)
	h.cmd = exec.Command(harkBin)
	h.cmd.Env = h.env
	h.cmd.Stdout, h.cmd.Stderr = h.stderr, h.stderr
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { h.cmd.Wait(); close(h.exited) }()
	t.Cleanup(func() {
		harness.Kill(h.cmd.Process.Pid, h.exited)
		if t.Failed() {
			t.Logf("--- hark stderr ---\n%s", h.stderr.String())
			if b, err := os.ReadFile(filepath.Join(home, "logs", "hark.log")); err == nil {
				t.Logf("--- hark.log ---\n%s", tail(string(b), 6000))
			}
		}
	})
	return h
}

// syncBuffer collects a child's output while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// send runs `hark send` against the running app.
func (h *hark) send(wait bool, text string) (string, int) {
	args := []string{"send"}
	if wait {
		args = append(args, "--wait")
	}
	args = append(args, text)
	return h.run(args...)
}

func (h *hark) run(args ...string) (string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, harkBin, args...)
	cmd.Env = h.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		h.t.Fatalf("hark %v: %v", args, err)
	}
	return string(out), 0
}

// quit chooses Quit Hark and waits for the process to end. Shutting down
// can take a few seconds on a loaded machine, and once the process is gone
// its menu is too, so each click gets up to ten seconds to take effect
// before the next.
func (h *hark) quit() {
	h.t.Helper()
	start := time.Now()
	deadline := start.Add(40 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-h.exited:
			h.t.Logf("hark exited %v after Quit was first chosen", time.Since(start).Round(time.Millisecond))
			return
		default:
		}
		if root, err := h.menu.Layout(); err == nil {
			if it, ok := root.Find("Quit"); ok {
				h.menu.Click(it.ID)
			}
		}
		select {
		case <-h.exited:
			h.t.Logf("hark exited %v after Quit was first chosen", time.Since(start).Round(time.Millisecond))
			return
		case <-time.After(10 * time.Second):
		}
	}
	h.t.Fatalf("hark still running %v after choosing Quit", time.Since(start).Round(time.Second))
}

// waitIdle waits until the status line says Hark is ready again.
func (h *hark) waitIdle() {
	h.t.Helper()
	h.menu.WaitFor(h.t, 30*time.Second, "Ready")
}

type auditEntry struct {
	Command   string   `json:"command"`
	Decision  string   `json:"decision"`
	DecidedBy string   `json:"decidedBy"`
	Executed  bool     `json:"executed"`
	Trashed   []string `json:"trashed"`
	// A spoken answer's words, and a denial's reason.
	HeardAnswer string `json:"heardAnswer"`
	DenyReason  string `json:"denyReason"`
}

func (h *hark) audit(command string) []auditEntry {
	b, _ := os.ReadFile(filepath.Join(h.home, "audit.jsonl"))
	var out []auditEntry
	for _, line := range strings.Split(string(b), "\n") {
		var e auditEntry
		if json.Unmarshal([]byte(line), &e) == nil && strings.Contains(e.Command, command) {
			out = append(out, e)
		}
	}
	return out
}

func (h *hark) waitAudit(command, decision string) auditEntry {
	h.t.Helper()
	var found auditEntry
	harness.Eventually(h.t, 30*time.Second, "audit entry "+decision+" for "+command, func() error {
		for _, e := range h.audit(command) {
			if e.Decision == decision {
				found = e
				return nil
			}
		}
		return fmt.Errorf("audit for %q: %+v", command, h.audit(command))
	})
	return found
}

// approvalFor waits for the approval notification naming the command.
func approvalFor(t *testing.T, notes *harness.Notifications, command string) harness.Notification {
	t.Helper()
	return approvalWith(t, notes, command, "Approve")
}

// approvalWith waits for the notification naming the command with a button
// labelled button.
func approvalWith(t *testing.T, notes *harness.Notifications, command, button string) harness.Notification {
	t.Helper()
	var n harness.Notification
	harness.Eventually(t, 30*time.Second, "approval notification for "+command, func() error {
		for _, x := range notes.All() {
			if strings.Contains(x.Body, command) && x.ActionKey(button) != "" {
				n = x
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", notes)
	})
	return n
}

func closed(t *testing.T, notes *harness.Notifications, id uint32) {
	t.Helper()
	harness.Eventually(t, 20*time.Second, fmt.Sprintf("notification %d withdrawn", id), func() error {
		for _, x := range notes.All() {
			if x.ID == id && x.Closed {
				return nil
			}
		}
		return fmt.Errorf("still open:\n%s", notes)
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestDesktop walks through the app's main paths on one running hark.
func TestDesktop(t *testing.T) {
	d := newDesktop(t, true, true)
	h := startHark(t, d)
	if got := d.watcher.Registered(t, 20*time.Second); !strings.HasSuffix(got, "/StatusNotifierItem") {
		t.Errorf("registered %q with the tray host, want our item", got)
	}
	h.waitIdle()

	t.Run("1 hotkey and speech, deny from the notification", func(t *testing.T) {
		h.t = t
		speech := harness.Speech(t, "please make the deny marker now")
		if err := os.WriteFile(h.transcript, []byte("make the deny marker"), 0o600); err != nil {
			t.Fatal(err)
		}
		harness.Xdotool(t, d.display, "keydown", "ctrl+alt+space")
		h.menu.WaitFor(t, 20*time.Second, "Listening")
		d.pulse.Play(t, speech)
		harness.Xdotool(t, d.display, "keyup", "ctrl+alt+space")

		marker := filepath.Join(d.work, "denied-marker")
		n := approvalFor(t, d.notes, "touch "+marker)
		h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")
		h.menu.WaitFor(t, 5*time.Second, "$ touch "+marker)
		// Spoken: the approval shows what Hark heard, in both places.
		h.menu.WaitFor(t, 5*time.Second, "You said: “make the deny marker”")
		if !strings.Contains(n.Body, "Heard: “make the deny marker”") {
			t.Errorf("the approval notification does not say what Hark heard:\n%s", n.Body)
		}
		h.menu.WaitFor(t, 5*time.Second, "Approve")
		h.menu.WaitFor(t, 5*time.Second, "Deny (safe choice)")
		if want := []string{"hark-deny", "Deny (safe choice)", "hark-approve", "Approve", "hark-say-again", "Say it again"}; strings.Join(n.Actions, "|") != strings.Join(want, "|") {
			t.Errorf("notification actions %q, want %q: the safe choice first, Say it again last", n.Actions, want)
		}

		if err := d.notes.Invoke(n.ID, n.ActionKey("Deny (safe choice)")); err != nil {
			t.Fatal(err)
		}
		e := h.waitAudit(marker, "denied")
		if e.Executed || e.DecidedBy != "notification" {
			t.Errorf("audit = %+v, want denied by notification, not executed", e)
		}
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
		h.menu.WaitGone(t, 5*time.Second, "Approve")
		closed(t, d.notes, n.ID)
		h.waitIdle()
		if exists(marker) {
			t.Fatal("the denied command ran: its marker file exists")
		}
		// Reported, not asserted: key-up to the start of transcription
		// (the recording tail, 200 ms here, is part of it).
		if b, err := os.ReadFile(filepath.Join(h.home, "logs", "hark.log")); err == nil {
			if m := regexp.MustCompile(`sinceKeyUpMs=([0-9.]+)`).FindSubmatch(b); m != nil {
				t.Logf("key-up to transcription start: %s ms (tail 200 ms)", m[1])
			}
		}
	})

	t.Run("2 approve from the menu", func(t *testing.T) {
		h.t = t
		marker := filepath.Join(d.work, "approved-marker")
		if out, code := h.send(false, "make the approve marker"); code != 0 {
			t.Fatalf("hark send: exit %d: %s", code, out)
		}
		n := approvalFor(t, d.notes, "touch "+marker)
		h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")
		h.menu.ClickUntil(t, 30*time.Second, "Approve", func() error {
			if len(h.audit(marker)) == 0 {
				return errors.New("not decided yet")
			}
			return nil
		})
		harness.Eventually(t, 30*time.Second, "approved command ran", func() error {
			if !exists(marker) {
				return errors.New("no marker yet")
			}
			return nil
		})
		if e := h.waitAudit(marker, "approved"); e.DecidedBy != "menu" || !e.Executed {
			t.Errorf("audit = %+v, want approved from the menu and executed", e)
		}
		closed(t, d.notes, n.ID) // the notification is withdrawn
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
		h.waitIdle()
	})

	t.Run("2b always allow, then the same command runs unasked and another still asks", func(t *testing.T) {
		h.t = t
		marker := filepath.Join(d.work, "always-marker")
		if out, code := h.send(false, "make the always marker"); code != 0 {
			t.Fatalf("hark send: exit %d: %s", code, out)
		}
		n := approvalFor(t, d.notes, "touch always-marker")
		// No one-click rule: the notification points to the menu, whose
		// Always allow… shows what the rule matches before saving it.
		if n.HasAction("hark-always") || !strings.Contains(n.Body, "Always allow… is in the Hark menu") {
			t.Fatalf("the notification offers a one-click rule: actions %v, body %q", n.Actions, n.Body)
		}
		h.menu.WaitFor(t, 20*time.Second, "Always allow…")
		h.menu.WaitFor(t, 5*time.Second, "Saves the rule: always allow touch in ")
		h.menu.WaitFor(t, 5*time.Second, "still asks, e.g.:")
		h.menu.ClickUntil(t, 30*time.Second, "Save this rule and run", func() error {
			if len(h.audit("touch always-marker")) == 0 {
				return errors.New("not decided yet")
			}
			return nil
		})
		if e := h.waitAudit("touch always-marker", "approved"); e.DecidedBy != "menu" || !e.Executed {
			t.Errorf("audit = %+v, want approved from the menu and executed", e)
		}
		h.waitIdle()
		b, err := os.ReadFile(filepath.Join(h.home, "rules.json"))
		if err != nil || !strings.Contains(string(b), `"program": "touch"`) || !strings.Contains(string(b), d.work) {
			t.Fatalf("rules.json after Always allow: %v\n%s", err, b)
		}
		if err := os.Remove(marker); err != nil {
			t.Fatalf("the approved command did not run: %v", err)
		}

		before := len(d.notes.All())
		out, code := h.send(true, "make the always marker")
		if code != 0 || !exists(marker) || !strings.Contains(out, "executed=true") {
			t.Fatalf("hark send --wait: exit %d, %q; marker exists: %v", code, out, exists(marker))
		}
		for _, n := range d.notes.All()[before:] {
			if n.ActionKey("Approve") != "" {
				t.Errorf("the allowed command asked again: %+v", n)
			}
		}
		if e := h.waitAudit("touch always-marker", "allowed"); e.DecidedBy != "rule" || !e.Executed {
			t.Errorf("audit = %+v, want allowed by the rule and executed", e)
		}
		h.waitIdle()

		h.send(false, "make the other folder marker")
		n = approvalFor(t, d.notes, "mkdir other-folder-marker")
		if err := d.notes.Invoke(n.ID, n.ActionKey("Deny (safe choice)")); err != nil {
			t.Fatal(err)
		}
		h.waitAudit("mkdir other-folder-marker", "denied")
		h.waitIdle()
		if exists(filepath.Join(d.work, "other-folder-marker")) {
			t.Fatal("a command no rule allows ran after being denied")
		}
	})

	t.Run("4a read-only command runs with no prompt", func(t *testing.T) {
		h.t = t
		before := len(d.notes.All())
		out, code := h.send(true, "list the work folder")
		if code != 0 || !strings.Contains(out, "existing-file") || !strings.Contains(out, "executed=true") {
			t.Fatalf("hark send --wait: exit %d, output %q; want the listing", code, out)
		}
		for _, n := range d.notes.All()[before:] {
			if n.ActionKey("Approve") != "" {
				t.Errorf("a read-only command asked for approval: %+v", n)
			}
		}
		if e := h.waitAudit("ls "+d.work, "auto"); !e.Executed {
			t.Errorf("audit = %+v, want run automatically", e)
		}
		h.waitIdle()
	})

	t.Run("4b cancel while awaiting approval", func(t *testing.T) {
		h.t = t
		marker := filepath.Join(d.work, "cancel-marker")
		h.send(false, "make the cancel marker")
		n := approvalFor(t, d.notes, "touch "+marker)
		h.menu.WaitFor(t, 20*time.Second, "Pending approval (1)")
		h.menu.ClickUntil(t, 30*time.Second, "Cancel", func() error {
			if len(h.audit(marker)) == 0 {
				return errors.New("not decided yet")
			}
			return nil
		})
		closed(t, d.notes, n.ID)
		h.menu.WaitGone(t, 20*time.Second, "Pending approval")
		h.waitIdle()
		if exists(marker) {
			t.Fatal("the cancelled command ran")
		}
		for _, e := range h.audit(marker) {
			if e.Executed || e.Decision == "approved" {
				t.Errorf("audit after cancel = %+v", e)
			}
		}
	})

	t.Run("5a send --wait prints the answer", func(t *testing.T) {
		h.t = t
		out, code := h.send(true, "say hello")
		if code != 0 || !strings.Contains(out, "hello from the fake model") {
			t.Fatalf("hark send --wait: exit %d, output %q", code, out)
		}
		h.waitIdle()
	})

	t.Run("5b a second instance is refused", func(t *testing.T) {
		h.t = t
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		before := len(d.notes.All())
		cmd := exec.CommandContext(ctx, harkBin)
		cmd.Env = h.env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "already running") {
			t.Fatalf("second hark: %v, output %q; want exit 1 saying it is already running", err, out)
		}
		// Started from a launcher nobody sees stderr: the running app says
		// it, and the refusal is in the log.
		harness.Eventually(t, 20*time.Second, "the already-running notification", func() error {
			for _, n := range d.notes.All()[before:] {
				if n.Summary == "Already running" {
					return nil
				}
			}
			return fmt.Errorf("notifications:\n%s", d.notes)
		})
		b, err := os.ReadFile(filepath.Join(h.home, "logs", "hark.log"))
		if err != nil || !strings.Contains(string(b), "another launch refused") {
			t.Errorf("the log does not record the refused launch (%v)", err)
		}
	})

	t.Run("6 move to trash from the notification, then undo from the menu", func(t *testing.T) {
		h.t = t
		report := filepath.Join(h.home, "old_report.txt") // HOME is h.home
		if err := os.WriteFile(report, []byte("q3 figures"), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, code := h.send(false, "trash the old report"); code != 0 {
			t.Fatalf("hark send: exit %d: %s", code, out)
		}
		n := approvalWith(t, d.notes, "rm ~/old_report.txt", "Move to Trash (safe choice)")
		// The safe choice first and marked, Delete never next to it.
		if want := []string{"hark-trash", "Move to Trash (safe choice)", "hark-deny", "Deny", "hark-approve", "Delete"}; strings.Join(n.Actions, "|") != strings.Join(want, "|") {
			t.Errorf("notification actions %q, want %q", n.Actions, want)
		}
		h.menu.WaitFor(t, 20*time.Second, "Move to Trash (safe choice)")
		h.menu.WaitFor(t, 5*time.Second, "Delete")
		root, err := h.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		var answers []string
		for _, r := range root.Rows() {
			switch l := strings.TrimSpace(r); l {
			case "Move to Trash (safe choice)", "Deny", "Deny and say why…", "Delete":
				answers = append(answers, l)
			}
		}
		if got := strings.Join(answers, " · "); got != "Move to Trash (safe choice) · Deny · Deny and say why… · Delete" && got != "Move to Trash (safe choice) · Deny · Delete" {
			t.Errorf("menu answers %q: not the notification's order\n%s", got, root.Labels())
		}
		if err := d.notes.Invoke(n.ID, n.ActionKey("Move to Trash (safe choice)")); err != nil {
			t.Fatal(err)
		}
		if e := h.waitAudit("rm ~/old_report.txt", "trashed"); e.Executed || e.DecidedBy != "notification" {
			t.Errorf("audit = %+v, want trashed by notification, the command not executed", e)
		}
		trashed := filepath.Join(h.home, ".local", "share", "Trash", "files", "old_report.txt")
		if exists(report) || !exists(trashed) {
			t.Fatalf("after Move to Trash: report exists %v, in the Trash %v", exists(report), exists(trashed))
		}
		h.waitIdle()
		h.menu.ClickUntil(t, 30*time.Second, "Undo last trash (old_report.txt)", func() error {
			if !exists(report) {
				return errors.New("not put back yet")
			}
			return nil
		})
		if b, err := os.ReadFile(report); err != nil || string(b) != "q3 figures" {
			t.Fatalf("after undo: %q, %v", b, err)
		}
		h.menu.WaitGone(t, 20*time.Second, "Undo last trash")
		if out, code := h.run("undo"); code != 0 || !strings.Contains(out, "nothing to undo") {
			t.Errorf("hark undo after the menu's undo: exit %d, %q", code, out)
		}
	})

	t.Run("3 confirm toggle persists and the next command runs unasked", func(t *testing.T) {
		h.t = t
		confirmOff := func() error {
			b, err := os.ReadFile(filepath.Join(h.home, "settings.json"))
			if err != nil {
				return err
			}
			var s map[string]any
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
			if s["confirmBeforeExecute"] != false {
				return fmt.Errorf("confirmBeforeExecute = %v", s["confirmBeforeExecute"])
			}
			return nil
		}
		h.menu.ClickUntil(t, 30*time.Second, "Confirm before executing", confirmOff)
		// Point 7: auto-run is loud — the status, a warning row and the
		// tooltip all say commands run unasked.
		h.menu.WaitFor(t, 20*time.Second, "Ready — commands run without asking")
		h.menu.WaitFor(t, 5*time.Second, "⚠ Confirmation is off: commands run without asking")
		harness.Eventually(t, 10*time.Second, "tooltip says commands run unasked", func() error {
			tip, err := h.menu.Tooltip()
			if err != nil {
				return err
			}
			if !strings.Contains(tip, "commands run without asking") {
				return fmt.Errorf("tooltip %q", tip)
			}
			return nil
		})
		harness.Eventually(t, 20*time.Second, "checkbox unchecked", func() error {
			root, err := h.menu.Layout()
			if err != nil {
				return err
			}
			it, ok := root.Find("Confirm before executing")
			if !ok || it.Checked || it.Toggle != "checkmark" {
				return fmt.Errorf("checkbox = %+v", it)
			}
			return nil
		})
		before := len(d.notes.All())
		marker := filepath.Join(d.work, "unasked-marker")
		out, code := h.send(true, "make the unasked marker")
		if code != 0 || !exists(marker) {
			t.Fatalf("hark send --wait: exit %d, %q; marker exists: %v", code, out, exists(marker))
		}
		for _, n := range d.notes.All()[before:] {
			if n.ActionKey("Approve") != "" {
				t.Errorf("asked for approval with confirmation off: %+v", n)
			}
		}
		h.waitAudit(marker, "unconfirmed-run")

		// A deletion with confirmation off still goes to the Trash, and
		// says so: in the tool result and in Hark's own summary.
		report := filepath.Join(h.home, "old_report.txt")
		if err := os.WriteFile(report, []byte("q4 figures"), 0o600); err != nil {
			t.Fatal(err)
		}
		before = len(d.notes.All())
		out, code = h.send(true, "trash the old report")
		trashed := filepath.Join(h.home, ".local", "share", "Trash", "files", "old_report.txt")
		if code != 0 || exists(report) || !exists(trashed) || !strings.Contains(out, "Moved 1 item to the Trash") {
			t.Fatalf("confirmation off, rm: exit %d, %q; report exists %v, in the Trash %v", code, out, exists(report), exists(trashed))
		}
		if e := h.waitAudit("rm ~/old_report.txt", "unconfirmed-run"); e.Executed || len(e.Trashed) != 1 {
			t.Errorf("audit = %+v, want unconfirmed-run, not executed, one item trashed", e)
		}
		harness.Eventually(t, 20*time.Second, "the summary says moved to the Trash", func() error {
			for _, n := range d.notes.All()[before:] {
				if strings.Contains(n.Body, "Moved old_report.txt to the Trash (Undo last trash in the menu puts it back).") {
					return nil
				}
			}
			return fmt.Errorf("notifications:\n%s", d.notes)
		})
		h.waitIdle()
	})

	t.Run("5c quit exits cleanly", func(t *testing.T) {
		h.t = t
		h.quit()
		if code := h.cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("exit code %d after Quit", code)
		}
		if out, code := h.send(false, "say hello"); code != 1 || !strings.Contains(out, "not running") {
			t.Errorf("hark send after quit: exit %d, %q; want 1 and \"not running\"", code, out)
		}
	})
}

// TestDegradedStartup starts hark with no X server and no notification
// server: it must come up, say what is missing, and still take requests.
func TestDegradedStartup(t *testing.T) {
	d := newDesktop(t, false, false)
	h := startHark(t, d)
	h.menu.WaitFor(t, 20*time.Second, "⚠ Hotkey unavailable")
	h.menu.WaitFor(t, 20*time.Second, "⚠ No notifications")
	h.menu.WaitFor(t, 20*time.Second, "Can't listen")
	// Point 2: problems are short rows; the detail is behind Problems….
	h.menu.WaitFor(t, 5*time.Second, "Problems…")
	root, err := h.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range root.Rows() {
		if len([]rune(row)) > 80 || strings.ContainsAny(row, "`") || strings.Contains(row, "pkg-config") {
			t.Errorf("developer text in the menu: %q\n%s", row, root.Labels())
		}
	}
	out, code := h.send(true, "say hello")
	if code != 0 || !strings.Contains(out, "hello from the fake model") {
		t.Fatalf("hark send --wait without a desktop: exit %d, %q", code, out)
	}
	h.quit()
	if code := h.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestNoSessionBus starts hark where there is no D-Bus at all (so no tray
// and no notifications) and no X server: it runs without a menu, says so,
// answers `hark send`, and stops cleanly on SIGTERM.
func TestNoSessionBus(t *testing.T) {
	d := &desktop{work: t.TempDir(), bus: "unix:path=" + filepath.Join(t.TempDir(), "no-bus")}
	d.pulse = harness.StartPulse(t)
	d.ollama = fakeModel(t, rules(d.work))
	h := launchHark(t, d)
	var out string
	var code int
	harness.Eventually(t, 30*time.Second, "hark answers hark send", func() error {
		out, code = h.send(true, "say hello")
		if code != 0 {
			return fmt.Errorf("exit %d: %s", code, out)
		}
		return nil
	})
	if !strings.Contains(out, "hello from the fake model") {
		t.Errorf("hark send --wait = %q", out)
	}
	if s := h.stderr.String(); !strings.Contains(s, "running without a menu") {
		t.Errorf("stderr does not say the menu is missing:\n%s", s)
	}
	h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("hark did not stop within 20s of SIGTERM")
	}
	if c := h.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("exit code %d after SIGTERM", c)
	}
}

// TestHotkeyTaken starts hark while another X client holds its combination:
// hark keeps running, shows the problem in the menu and posts a
// notification about it.
func TestHotkeyTaken(t *testing.T) {
	d := newDesktop(t, true, true)
	combo, err := hotkey.Parse("ctrl+alt+space")
	if err != nil {
		t.Fatal(err)
	}
	other, err := hotkey.RegisterDisplay(d.display, combo, hotkey.Options{})
	if err != nil {
		t.Fatalf("grabbing the combination first: %v", err)
	}
	defer other.Close()
	h := startHark(t, d)
	h.menu.WaitFor(t, 20*time.Second, "⚠ Hotkey ctrl+alt+space is taken by another app")
	harness.Eventually(t, 20*time.Second, "notification about the hotkey", func() error {
		for _, n := range d.notes.All() {
			if n.Summary == "Hotkey unavailable" && strings.Contains(n.Body, "ctrl+alt+space") {
				return nil
			}
		}
		return fmt.Errorf("notifications:\n%s", d.notes)
	})
	if out, code := h.send(true, "say hello"); code != 0 || !strings.Contains(out, "hello from the fake model") {
		t.Fatalf("hark send --wait with the hotkey taken: exit %d, %q", code, out)
	}
	h.quit()
}
