package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/policy"
)

// TestHandleMeetsTheLoopsPath: a call from outside is classified, decided,
// confirmed and audited like a model's call, names its client in the
// approval and the audit log, and a Confirmer that could not ask leaves a
// result saying why instead of a denial.
func TestHandleMeetsTheLoopsPath(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
	ctx := context.Background()
	call := func(cr CallRequest, args string) (res string, ok bool) {
		t.Helper()
		cr.Arguments = json.RawMessage(args)
		if cr.Confirmer == nil {
			cr.Confirmer = h.confirmer
		}
		r, err := h.agent.Handle(ctx, cr)
		if err != nil {
			t.Fatalf("Handle(%s): %v", args, err)
		}
		return r.Error, r.Executed
	}
	if _, ran := call(CallRequest{Client: "Claude Desktop"}, `{"command":"ls -la"}`); !ran {
		t.Error("a safe command did not run")
	}
	if _, ran := call(CallRequest{Client: "Claude Desktop"}, `{"command":"rm old.txt","purpose":"executing"}`); !ran {
		t.Error("an approved command did not run")
	}
	if why, ran := call(CallRequest{Client: "Claude Desktop"}, `{"command":"sudo reboot"}`); ran || !strings.Contains(why, "Refused") {
		t.Errorf("a forbidden command: ran %v, error %q", ran, why)
	}
	notAsked := ConfirmerFunc(func(context.Context, Pending) (Decision, error) {
		return Decision{}, &NotAsked{Why: "not run: start Hark to approve commands from Cursor"}
	})
	if why, ran := call(CallRequest{Client: "Cursor", Confirmer: notAsked}, `{"command":"rm other.txt"}`); ran || !strings.Contains(why, "start Hark") {
		t.Errorf("with nobody to ask: ran %v, error %q", ran, why)
	}
	if got := h.exec.commands(); strings.Join(got, "|") != "ls -la|rm old.txt" {
		t.Errorf("ran %q, want the safe and the approved command only", got)
	}
	if asked := h.confirmer.asked; len(asked) != 1 || asked[0].Client != "Claude Desktop" {
		t.Errorf("approvals asked: %+v, want one naming Claude Desktop", asked)
	}
	es := h.auditEntries(t)
	if len(es) != 4 {
		t.Fatalf("audit entries: %d, want 4", len(es))
	}
	for i, want := range []string{"Claude Desktop", "Claude Desktop", "Claude Desktop", "Cursor"} {
		if es[i].Client != want {
			t.Errorf("audit entry %d names client %q, want %q", i, es[i].Client, want)
		}
	}
	if es[3].Decision != DecisionNotAsked || es[3].Executed {
		t.Errorf("the unasked call is audited as %s executed=%v, want not-asked and not run", es[3].Decision, es[3].Executed)
	}
}

// TestHandleRefusesBadArguments: each unusable argument is an
// ErrInvalidCall that says what to send, and nothing runs.
func TestHandleRefusesBadArguments(t *testing.T) {
	h := newHarness(t, nil, nil)
	file := filepath.Join(h.home, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ args, want string }{
		"missing command":  {`{}`, `missing argument "command"`},
		"number command":   {`{"command":42}`, `"command" must be a string`},
		"not an object":    {`[1,2]`, "one JSON object"},
		"relative folder":  {`{"command":"ls","workingDirectory":"src"}`, "absolute path"},
		"missing folder":   {`{"command":"ls","workingDirectory":"/no/such/folder"}`, "does not exist"},
		"file as folder":   {`{"command":"ls","workingDirectory":"` + file + `"}`, "is not a folder"},
		"huge argument":    {`{"command":"echo ` + strings.Repeat("x", maxArgumentBytes) + `"}`, "at most"},
		"non-string where": {`{"command":"ls","workingDirectory":true}`, "must be a string"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := h.agent.Handle(context.Background(), CallRequest{Arguments: json.RawMessage(tc.args), Confirmer: h.confirmer})
			if !errors.Is(err, ErrInvalidCall) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalidCall mentioning %q", err, tc.want)
			}
		})
	}
	if got := h.exec.commands(); len(got) != 0 {
		t.Errorf("ran %q on bad arguments", got)
	}
}

// TestLinkedFolderIsJudgedWhereItLeads: a workingDirectory that is a
// symlink to home (or /proc/self/cwd while the process sits in home) is
// judged as home, so `rm -rf *` there is refused as it is in ~, never put
// to the user as a deletion in some other folder; and the folder shown and
// used is the real one.
func TestLinkedFolderIsJudgedWhereItLeads(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Classifier = policy.New(policy.Options{}) })
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}, {Approved: true, By: ByMenu}}
	link := filepath.Join(t.TempDir(), "looks-harmless")
	if err := os.Symlink(h.home, link); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"a symlink to home": link, "home itself": h.home}
	if _, err := os.Stat("/proc/self/cwd"); err == nil {
		t.Chdir(h.home)
		dirs["/proc/self/cwd in home"] = "/proc/self/cwd"
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": "rm -rf *", "workingDirectory": dir})
			res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Confirmer: h.confirmer, Client: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Executed || res.Tier != shell.Forbidden {
				t.Errorf("rm -rf * in %s: tier %s, executed %v; want forbidden and not run", dir, res.Tier, res.Executed)
			}
		})
	}
	if len(h.confirmer.asked) != 0 || len(h.exec.commands()) != 0 {
		t.Errorf("asked %d, ran %q: a deletion of home was put to the user", len(h.confirmer.asked), h.exec.commands())
	}
	// A harmless command through the link runs in, and shows, the real folder.
	args, _ := json.Marshal(map[string]string{"command": "touch new.txt", "workingDirectory": link})
	res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Confirmer: h.confirmer, Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(h.home)
	if len(h.confirmer.asked) != 1 || h.confirmer.asked[0].WorkingDirectory != h.home && h.confirmer.asked[0].WorkingDirectory != real {
		t.Errorf("approval shows folder %q, want home %q", h.confirmer.asked[0].WorkingDirectory, h.home)
	}
	if res.WorkingDirectory != h.home && res.WorkingDirectory != real {
		t.Errorf("ran in %q, want home %q", res.WorkingDirectory, h.home)
	}
}

// A workingDirectory inside a private folder is refused however it is
// spelled: directly, below it, through a symlink, or in other letter case
// (macOS file systems ignore case by default, so ~/.SSH there is ~/.ssh).
func TestPrivateFolderRefusedHoweverSpelled(t *testing.T) {
	h := newHarness(t, nil, nil)
	ssh := filepath.Join(h.home, ".ssh")
	for _, d := range []string{filepath.Join(ssh, "keys"), filepath.Join(h.home, ".SSH"), filepath.Join(h.home, "src")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "innocent")
	if err := os.Symlink(ssh, link); err != nil {
		t.Fatal(err)
	}
	call := func(dir string) error {
		args, _ := json.Marshal(map[string]string{"command": "ls", "workingDirectory": dir})
		_, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Confirmer: h.confirmer, PrivateDirs: []string{ssh}})
		return err
	}
	for _, dir := range []string{ssh, filepath.Join(ssh, "keys"), "~/.ssh", link, filepath.Join(h.home, ".SSH")} {
		if err := call(dir); !errors.Is(err, ErrInvalidCall) || !strings.Contains(err.Error(), "credentials") {
			t.Errorf("workingDirectory %s: %v, want refused as private", dir, err)
		}
	}
	if err := call(filepath.Join(h.home, "src")); err != nil {
		t.Errorf("a folder beside the private one: %v", err)
	}
	if got := h.exec.commands(); len(got) != 1 {
		t.Errorf("ran %q, want only the call in ~/src", got)
	}
}

// One client's session: a call nobody could be asked about (Hark was not
// running) is no denial, so it is asked once Hark runs; and after the
// user denies maxDenials commands in a row, the session's further
// approvals are refused without asking, as a spoken request stops, so a
// client cannot wear the user down with one rewording after another.
// Read-only commands still run.
func TestSessionDenialsAcrossCalls(t *testing.T) {
	h := newHarness(t, nil, nil)
	var s Session
	call := func(c Confirmer, cmd string) (string, bool) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"command": cmd})
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Confirmer: c, Session: &s, Client: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Error, res.Executed
	}
	notRunning := ConfirmerFunc(func(context.Context, Pending) (Decision, error) {
		return Decision{}, &NotAsked{Why: "not run: start Hark"}
	})
	if why, _ := call(notRunning, "rm a.txt"); !strings.Contains(why, "start Hark") {
		t.Fatalf("with Hark not running: %q", why)
	}
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
	if why, ran := call(h.confirmer, "rm a.txt"); !ran {
		t.Errorf("once Hark runs, the command is refused as denied: %q", why)
	}
	// Denials in a row (the scripted confirmer denies past its script).
	for _, cmd := range []string{"rm b.txt", "rm ./b.txt", "rm -- b.txt"} {
		if _, ran := call(h.confirmer, cmd); ran {
			t.Fatalf("%s ran, want denied", cmd)
		}
	}
	asked := len(h.confirmer.asked)
	why, ran := call(h.confirmer, "rm -f b.txt")
	if ran || len(h.confirmer.asked) != asked || !strings.Contains(why, "in a row") {
		t.Errorf("after %d denials in a row: ran %v, asked again %v, error %q", maxDenials, ran, len(h.confirmer.asked) != asked, why)
	}
	if _, ran := call(h.confirmer, "ls -la"); !ran {
		t.Error("a read-only command no longer runs")
	}
	// A read-only command that ran by itself is no yes from the user.
	if why, _ := call(h.confirmer, "rm -rf b.txt"); !strings.Contains(why, "in a row") || len(h.confirmer.asked) != asked {
		t.Errorf("after a read-only command the user is asked again: %q", why)
	}
}
