package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
)

func TestProtectedFolders(t *testing.T) {
	t.Parallel()
	const home = "/Users/jane"
	cases := []struct {
		name, command, dir string
		want               string
	}{
		{"tilde path", "ls ~/Downloads", "", "Downloads"},
		{"quoted tilde path", `du -sh "~/Documents/old builds"`, "", "Documents"},
		{"$HOME", "find $HOME/Desktop -name '*.png'", "", "Desktop"},
		{"${HOME}", "ls ${HOME}/Documents", "", "Documents"},
		{"absolute, other case", "ls /users/jane/downloads/x", "", "Downloads"},
		{"the home itself walks into all of them", "du -sh ~", "", "Desktop Documents Downloads Library/Containers Library/Group Containers"},
		{"$HOME alone", "find $HOME -name x", "", "Desktop Documents Downloads Library/Containers Library/Group Containers"},
		{"a walk of ~/Library reaches the containers", "du -sh ~/Library", "", "Library/Containers Library/Group Containers"},
		{"another app's container", "ls ~/Library/Containers/com.apple.mail/Data", "", "Library/Containers"},
		{"a removable volume", "ls /Volumes/USB/photos", "", "/Volumes"},
		{"run on a volume", "du -sh .", "/Volumes/Backup", "/Volumes"},
		{"run inside one", "ls -la", "/Users/jane/Documents/taxes", "Documents"},
		{"relative from home", "ls Downloads | wc -l", "", "Downloads"},
		{"relative with ./", "cat ./Desktop/notes.txt", home, "Desktop"},
		{"dot in home", "du -sh .", home, "Desktop Documents Downloads Library/Containers Library/Group Containers"},
		{"two named", "cp ~/Downloads/a.pdf ~/Documents/", "", "Documents Downloads"},
		{"redirect target", "sort >~/Desktop/x.txt", "", "Desktop"},
		{"plain ls in home touches none", "ls -la", home, ""},
		{"other folders", "ls ~/Library/Caches /tmp /VolumesX", "", ""},
		{"a longer word is not the folder", "grep -r DesktopEntry /usr/share/applications", "", ""},
		{"$HOMEBREW is not $HOME", "ls $HOMEBREW_PREFIX/bin", "", ""},
		{"elsewhere, a relative Desktop", "ls Desktop", "/tmp/project", ""},
		{"another user's Desktop", "ls /Users/bob/Desktop", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := strings.Join(ProtectedFolders(c.command, c.dir, home), " "); got != c.want {
				t.Errorf("ProtectedFolders(%q, %q) = %q, want %q", c.command, c.dir, got, c.want)
			}
		})
	}
}

// fakeClock hands out timers the test fires by hand.
type fakeClock struct{ timers chan chan time.Time }

func (c *fakeClock) after(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.timers <- ch
	return ch
}

// scriptedRunner is a command the test drives: it writes when told, and
// finishes when told.
type scriptedRunner struct {
	started chan shell.Request
	write   chan struct{}
	finish  chan shell.Result
}

func (s *scriptedRunner) Run(ctx context.Context, req shell.Request) shell.Result {
	s.started <- req
	for {
		select {
		case <-s.write:
			req.OnOutput()
		case r := <-s.finish:
			return r
		}
	}
}

func newWatch(t *testing.T) (*FolderPromptWatcher, *fakeClock, *scriptedRunner, chan []string) {
	clock := &fakeClock{timers: make(chan chan time.Time, 8)}
	run := &scriptedRunner{started: make(chan shell.Request, 1), write: make(chan struct{}), finish: make(chan shell.Result)}
	notes := make(chan []string, 4)
	w := &FolderPromptWatcher{Executor: run, Home: "/Users/jane", After: clock.after, Notify: func(f []string) { notes <- f }}
	return w, clock, run, notes
}

func recvT[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func TestFolderPromptWatcherSilentCommand(t *testing.T) {
	t.Parallel()
	w, clock, run, notes := newWatch(t)
	res := make(chan shell.Result, 1)
	go func() { res <- w.Run(context.Background(), shell.Request{Command: "ls ~/Documents"}) }()
	recvT(t, "the command to start", run.started)
	timer := recvT(t, "the quiet timer", clock.timers)
	timer <- time.Time{} // N seconds pass without a byte
	if got := recvT(t, "the notice", notes); strings.Join(got, ",") != "Documents" {
		t.Errorf("notified about %q", got)
	}
	run.finish <- shell.Result{Executed: true, TimedOut: true, Error: "hark: timed out after 30s"}
	r := recvT(t, "the result", res)
	for _, want := range []string{"timed out", "~/Documents", "Privacy & Security › Files and Folders"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("result error %q lacks %q", r.Error, want)
		}
	}
	select {
	case n := <-notes:
		t.Errorf("notified twice: %q", n)
	default:
	}
}

func TestFolderPromptWatcherBusyCommand(t *testing.T) {
	t.Parallel()
	w, clock, run, notes := newWatch(t)
	res := make(chan shell.Result, 1)
	go func() { res <- w.Run(context.Background(), shell.Request{Command: "find ~/Downloads -name '*.dmg'"}) }()
	recvT(t, "the command to start", run.started)
	first := recvT(t, "the quiet timer", clock.timers)
	run.write <- struct{}{} // it prints: the quiet period starts over
	recvT(t, "a new quiet timer after output", clock.timers)
	first <- time.Time{} // the old timer is ignored
	run.finish <- shell.Result{Executed: true, Success: true, Output: "a.dmg\n"}
	r := recvT(t, "the result", res)
	if r.Error != "" || r.Output != "a.dmg\n" {
		t.Errorf("a busy command's result changed: %+v", r)
	}
	select {
	case n := <-notes:
		t.Errorf("a command that printed was reported as stalled: %q", n)
	default:
	}
}

func TestFolderPromptWatcherIgnoresOtherCommands(t *testing.T) {
	t.Parallel()
	w, clock, run, _ := newWatch(t)
	res := make(chan shell.Result, 1)
	go func() { res <- w.Run(context.Background(), shell.Request{Command: "df -h"}) }()
	req := recvT(t, "the command to start", run.started)
	if req.OnOutput != nil {
		t.Error("an unrelated command was watched")
	}
	run.finish <- shell.Result{Success: true}
	recvT(t, "the result", res)
	select {
	case <-clock.timers:
		t.Error("a timer was started for an unrelated command")
	default:
	}
	var _ agent.Executor = w
}

// Each kind of prompt gets its own advice: Files and Folders for the three,
// the per-launch grant for other apps' data, the volumes' own switches.
func TestFolderPromptHintPerKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		folders []string
		want    []string
		not     []string
	}{
		{[]string{"Documents"}, []string{"~/Documents", "Files and Folders"}, []string{"other apps", "Volumes"}},
		{[]string{"Library/Containers"}, []string{"data from other apps", "~/Library/Containers", "after each start", "-not -path"}, []string{"Removable"}},
		{[]string{"/Volumes"}, []string{"removable or network volume", "Removable Volumes"}, []string{"other apps"}},
		{[]string{"Desktop", "Library/Group Containers", "/Volumes"}, []string{"~/Desktop", "~/Library/Group Containers", "Network Volumes"}, nil},
	} {
		h := FolderPromptHint(c.folders)
		for _, w := range c.want {
			if !strings.Contains(h, w) {
				t.Errorf("%v: hint lacks %q: %s", c.folders, w, h)
			}
		}
		for _, w := range c.not {
			if strings.Contains(h, w) {
				t.Errorf("%v: hint has %q: %s", c.folders, w, h)
			}
		}
	}
}
