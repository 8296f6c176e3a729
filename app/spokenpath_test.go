package app

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
)

// TestSpokenApprovalReadsPathsAsAPersonWould: a path under home, written
// with ~ or absolutely, is read as a place in "your home folder", never
// as "slash tmp slash …"; several targets in one folder are counted, not
// read one by one; and a path that only looks like home is read as what
// it is.
func TestSpokenApprovalReadsPathsAsAPersonWould(t *testing.T) {
	t.Parallel()
	const home = "/tmp/ux4/user"
	rm := func(cmd string) Pending {
		return Pending{Command: cmd, WorkingDirectory: home, Tier: shell.Confirm,
			Reasons: []shell.Reason{{Category: "delete", Why: "rm: deletes files", Command: cmd}}}
	}
	logs := "rm /tmp/ux4/user/Projects/webapp/logs/server_2024-01-03.log /tmp/ux4/user/Projects/webapp/logs/server_2024-01-04.log " +
		"~/Projects/webapp/logs/worker_2024-01-03.log /tmp/ux4/user/Projects/webapp/logs/worker_2024-01-04.log"
	cases := []struct {
		name     string
		p        Pending
		want     []string
		never    []string
		maxBytes int
	}{
		{"absolute under home", rm("rm /tmp/ux4/user/Videos/big_video_backup.mp4"),
			[]string{"rm big_video_backup.mp4 in your home folder, Videos."}, []string{"tmp", "ux4", "/"}, 0},
		{"tilde", rm("rm ~/Videos/big_video_backup.mp4"),
			[]string{"rm big_video_backup.mp4 in your home folder, Videos."}, []string{"/", " home Videos"}, 0},
		{"home itself", rm("rm -r /tmp/ux4/user/"), []string{"rm -r your home folder."}, []string{"/"}, 0},
		{"at home's top", rm("rm /tmp/ux4/user/notes.txt"), []string{"rm notes.txt in your home folder."}, nil, 0},
		{"several in one folder", rm(logs),
			[]string{"rm 4 log files in your home folder, Projects, webapp, logs."}, []string{"server_", "/", "tmp"}, 160},
		{"several kinds", rm("rm ~/a.txt ~/b.log"), []string{"rm 2 files in your home folder."}, []string{"a.txt"}, 0},
		{"recursive: folders too", rm("rm -r ~/Downloads/old_builds ~/Downloads/older_builds"),
			[]string{"rm -r 2 items in your home folder, Downloads."}, []string{"2 files"}, 0},
		{"several folders", rm("rm ~/Projects/a/x.log ~/Projects/b/y.log"),
			[]string{"rm 2 log files under your home folder, Projects."}, nil, 0},
		{"quoted", rm(`rm "/tmp/ux4/user/My Files/a b.txt"`),
			[]string{"rm a b.txt in your home folder, My Files."}, []string{`"`, "/"}, 0},
		// Paths that only look like home are not home.
		{"sibling with a suffix", rm("rm /tmp/ux4/user-evil/Videos/x.mp4"),
			[]string{"user-evil"}, []string{"home folder"}, 0},
		{"sibling with a digit", rm("rm /tmp/ux4/user2/x.mp4"), []string{"user2"}, []string{"home folder"}, 0},
		{"walks out of home", rm("rm /tmp/ux4/user/../user2/x.mp4"), []string{"user2", ".."}, []string{"home folder"}, 0},
		{"tilde walks out", rm("rm ~/../user2/x.mp4"), []string{"user2", ".."}, []string{"your home folder"}, 0},
		{"another user's tilde", rm("rm ~bob/x.mp4"), []string{"~bob"}, []string{"home folder"}, 0},
		{"overwrite names its file once", Pending{Command: "echo milk > /tmp/ux4/user/notes.txt", WorkingDirectory: home, Tier: shell.Confirm,
			Reasons: []shell.Reason{{Category: "write", Why: "> /tmp/ux4/user/notes.txt: overwrites a file", Command: "> /tmp/ux4/user/notes.txt"}}},
			[]string{"> notes.txt in your home folder: overwrites a file."}, []string{"/", "tmp"}, 0},
		{"folder", Pending{Command: "mkdir x", WorkingDirectory: "/tmp/ux4/user/Projects/webapp", Tier: shell.Confirm},
			[]string{"In your home folder, Projects, webapp."}, []string{"/"}, 0},
		{"folder outside home", Pending{Command: "mkdir x", WorkingDirectory: "/tmp/ux4/user-evil", Tier: shell.Confirm},
			[]string{"user-evil"}, []string{"home folder"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			desc := SpokenApproval(c.p, home)
			for _, w := range c.want {
				if !strings.Contains(desc, w) {
					t.Errorf("description %q does not say %q", desc, w)
				}
			}
			for _, w := range c.never {
				if strings.Contains(desc, w) {
					t.Errorf("description %q says %q", desc, w)
				}
			}
			if c.maxBytes > 0 && len(desc) > c.maxBytes {
				t.Errorf("description is %d bytes, over %d: %q", len(desc), c.maxBytes, desc)
			}
		})
	}
}

// FuzzSpokenCommand: any command line is said without a panic, and a name
// in it is never cut apart or stripped of its underscores.
func FuzzSpokenCommand(f *testing.F) {
	for _, s := range []string{"rm ~/a_b.txt", `rm "x y" 'z' \w`, "ls 2>/dev/null | wc -l", "rm -r ~/../x ~bob/y $HOME/z", `echo "$(id)" > ~/f`, "a;b&&c||d|&e", `"`, `\`, "rm / //", "rm ~ ~/ ~//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		got := spokenCommand(cmd, "/home/u")
		if strings.Contains(cmd, "rm ~/a_b.txt") && !strings.Contains(got, "a_b.txt") {
			t.Errorf("spokenCommand(%q) = %q lost the name", cmd, got)
		}
	})
}
