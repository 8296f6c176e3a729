package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/control"
)

// TestApproveAndDenyCommands drives hark approve and hark deny against a
// control socket whose "app" answers as the core does: the reason of
// hark deny is its words joined, --delete reaches the app, a refusal is
// exit 1 with the app's words, and with no app it says Hark is not
// running.
func TestApproveAndDenyCommands(t *testing.T) {
	paths := sendEnv(t)
	if r := runCLI("approve"); r.code != exitError || !strings.Contains(r.stderr, "Hark is not running") {
		t.Fatalf("no app: %+v", r)
	}
	if r := runCLI("approve", "now"); r.code != exitUsage || !strings.Contains(r.stderr, "hark deny REASON") {
		t.Fatalf("approve with an argument: %+v", r)
	}
	srv, err := control.Listen(paths.Runtime)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	got := make(chan app.AnswerRequest, 4)
	go func() {
		done <- srv.Serve(ctx, func(e app.Event) bool {
			r := e.(app.AnswerRequest)
			got <- r
			switch {
			case r.Approve && !r.Delete:
				r.Reply <- app.SendReply{Error: "did not approve “mkdir x”: Claude Desktop asked for it"}
			case r.Approve:
				r.Reply <- app.SendReply{OK: true, Answer: "Deleting for good: “rm -r x”"}
			default:
				r.Reply <- app.SendReply{OK: true, Answer: "Denied “rm -r x”"}
			}
			return true
		})
	}()
	defer func() { cancel(); <-done }()

	r := runCLI("approve")
	if r.code != exitError || r.stderr != "hark approve: did not approve “mkdir x”: Claude Desktop asked for it\n" {
		t.Errorf("refused approve: %+v", r)
	}
	<-got
	r = runCLI("approve", "--delete")
	if r.code != exitOK || r.stdout != "Deleting for good: “rm -r x”\n" {
		t.Errorf("approve --delete: %+v", r)
	}
	if a := <-got; !a.Delete {
		t.Errorf("--delete did not reach the app: %+v", a)
	}
	r = runCLI("deny", "keep", "the", "builds")
	if r.code != exitOK || r.stdout != "Denied “rm -r x”\n" {
		t.Errorf("deny: %+v", r)
	}
	if a := <-got; a.Approve || a.Reason != "keep the builds" {
		t.Errorf("deny reached the app as %+v", a)
	}
}
