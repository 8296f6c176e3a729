package app

import (
	"strings"
	"testing"
)

// TestTildeOnlyForHomeItself: ~ stands only for the home folder, by whole
// path components, and never for a path that only looks like it or walks
// out of it.
func TestTildeOnlyForHomeItself(t *testing.T) {
	t.Parallel()
	const home = "/tmp/ux4/user"
	for in, want := range map[string]string{
		"/tmp/ux4/user":                "~",
		"/tmp/ux4/user/":               "~/",
		"/tmp/ux4/user/Videos/a_b.mp4": "~/Videos/a_b.mp4",
		"/tmp/ux4/user-evil/Videos":    "/tmp/ux4/user-evil/Videos",
		"/tmp/ux4/user2":               "/tmp/ux4/user2",
		"/tmp/ux4/userx/y":             "/tmp/ux4/userx/y",
		"/tmp/ux4/user/../user2/x":     "/tmp/ux4/user/../user2/x",
		"/tmp/ux4/user/./x":            "/tmp/ux4/user/./x",
		"/tmp/ux4/user//x":             "/tmp/ux4/user//x",
		"/tmp/ux4/user/x/..":           "/tmp/ux4/user/x/..",
		"/x/tmp/ux4/user/y":            "/x/tmp/ux4/user/y",
		"tmp/ux4/user/y":               "tmp/ux4/user/y",
	} {
		if got := Tilde(in, home); got != want {
			t.Errorf("Tilde(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAnotherProgramsApprovalKeepsItsCommand: an MCP client names home
// absolutely while the folder and the preview use ~. The command is
// shown exactly as it runs, and a line says what ~ stands for, only when
// the command names home itself.
func TestAnotherProgramsApprovalKeepsItsCommand(t *testing.T) {
	t.Parallel()
	const home = "/tmp/ux4/user"
	const legend = "~ is your home folder, /tmp/ux4/user"
	for cmd, shows := range map[string]bool{
		"rm /tmp/ux4/user/Videos/big_video_backup.mp4": true,
		"rm '/tmp/ux4/user/My Files/x'":                true,
		`rm "/tmp/ux4/user"/x`:                         true,
		"cd /tmp/ux4/user && ls":                       true,
		"rm -r /tmp/ux4/user":                          true,
		"echo hi >/tmp/ux4/user/notes.txt":             true,
		"tar -C=/tmp/ux4/user -x":                      true,
		"rm /tmp/ux4/user-evil/Videos/x.mp4":           false,
		"rm /tmp/ux4/user2/x":                          false,
		"rm /tmp/ux4/userx":                            false,
		"rm /x/tmp/ux4/user/y":                         false,
		"rm ./tmp/ux4/user/y":                          false,
		"rm ~/Videos/x.mp4":                            false,
	} {
		p := Pending{ID: "p1", Command: cmd, WorkingDirectory: home, Client: "Claude Desktop"}
		if got := HomeLegend(p, home); (got == legend) != shows || (got != "" && got != legend) {
			t.Errorf("%q: legend %q, want shown %v", cmd, got, shows)
		}
		var labels []string
		for _, it := range BuildMenu(View{State: Idle, Confirm: true, Home: home, Pending: []Pending{p}}).Items {
			if strings.HasPrefix(it.ID, PrefixPending+"p1:") {
				labels = append(labels, strings.TrimSpace(it.Label))
			}
		}
		rows := strings.Join(labels, "\n")
		if !strings.Contains(rows, "$ "+cmd) {
			t.Errorf("%q: the menu does not show the command as it runs:\n%s", cmd, rows)
		}
		if strings.Contains(rows, legend) != shows {
			t.Errorf("%q: menu legend shown %v, want %v:\n%s", cmd, !shows, shows, rows)
		}
		full := FullCommandText(p, home)
		if !strings.HasSuffix(full, "\n"+cmd+"\n") || strings.Contains(full, legend) != shows {
			t.Errorf("%q: Show full command…:\n%s", cmd, full)
		}
	}
}
