package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if es[3].Decision != DecisionDenied || es[3].Executed {
		t.Errorf("the unasked call is audited as %s executed=%v, want denied and not run", es[3].Decision, es[3].Executed)
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
