package desktop

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell/scope"
)

// Without a sandbox the notification says first that the command runs
// without limits, and nothing it "may change".
func TestApprovalBodyWithoutSandbox(t *testing.T) {
	t.Parallel()
	p := app.Pending{ID: "p", Command: "make", WorkingDirectory: "/home/u/proj", NoSandbox: true,
		Scope: &scope.Scope{Write: []string{"/home/u/proj"}}}
	body := approvalBodyIn(p, "/home/u")
	if !strings.HasPrefix(body, "⚠ Runs without limits: this machine has no sandbox") || strings.Contains(body, "May change") {
		t.Errorf("body:\n%s", body)
	}
}
