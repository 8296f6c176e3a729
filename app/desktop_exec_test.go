package app

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
)

// The argv the opener runs per system and file type, and what it does when
// `open` fails: a .json or .jsonl may have no default application on
// macOS, so text goes to `open -t` and anything else gets a second try
// with it.
func TestExecOpenerArgvPerOS(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		goos    string
		path    string
		inPath  bool     // open / xdg-open found on PATH
		have    []string // other programs found on PATH
		env     map[string]string
		fails   map[string]bool // argv (joined) that exit non-zero
		want    []string
		wantErr []string
	}{
		{name: "macOS audit log opens as text", goos: "darwin", path: "/h/audit.jsonl", inPath: true,
			want: []string{"/usr/bin/open -t /h/audit.jsonl"}},
		{name: "macOS settings open as text", goos: "darwin", path: "/h/settings.JSON", inPath: true,
			want: []string{"/usr/bin/open -t /h/settings.JSON"}},
		{name: "macOS text editor fails: error names the file", goos: "darwin", path: "/h/hark.log", inPath: true,
			fails:   map[string]bool{"/usr/bin/open -t /h/hark.log": true},
			want:    []string{"/usr/bin/open -t /h/hark.log"},
			wantErr: []string{"open -t", "exit status 1", "the file is /h/hark.log"}},
		{name: "macOS other file uses its default app", goos: "darwin", path: "/h/shot.png", inPath: true,
			want: []string{"/usr/bin/open /h/shot.png"}},
		{name: "macOS no default app: retried as text", goos: "darwin", path: "/h/notes.cfg", inPath: true,
			fails: map[string]bool{"/usr/bin/open /h/notes.cfg": true},
			want:  []string{"/usr/bin/open /h/notes.cfg", "/usr/bin/open -t /h/notes.cfg"}},
		{name: "macOS both fail", goos: "darwin", path: "/h/notes.cfg", inPath: true,
			fails:   map[string]bool{"/usr/bin/open /h/notes.cfg": true, "/usr/bin/open -t /h/notes.cfg": true},
			want:    []string{"/usr/bin/open /h/notes.cfg", "/usr/bin/open -t /h/notes.cfg"},
			wantErr: []string{"open failed", "so did open -t", "the file is /h/notes.cfg"}},
		{name: "macOS minimal PATH still finds open", goos: "darwin", path: "/h/audit.jsonl",
			want: []string{"/usr/bin/open -t /h/audit.jsonl"}},
		{name: "Linux uses xdg-open", goos: "linux", path: "/h/audit.jsonl", inPath: true,
			want: []string{"/usr/bin/xdg-open /h/audit.jsonl"}},
		{name: "Linux xdg-open exit 4: gio open", goos: "linux", path: "/h/settings.json", inPath: true, have: []string{"gio", "mousepad"},
			fails: map[string]bool{"/usr/bin/xdg-open /h/settings.json": true},
			want:  []string{"/usr/bin/xdg-open /h/settings.json", "/usr/bin/gio open /h/settings.json"}},
		{name: "Linux no xdg-open, no gio: a desktop text editor before $EDITOR", goos: "linux", path: "/h/settings.json", have: []string{"xterm", "kate"},
			env:  map[string]string{"EDITOR": "micro"},
			want: []string{"/usr/bin/kate /h/settings.json"}},
		{name: "Linux no xdg-open, no gio: a desktop text editor", goos: "linux", path: "/h/settings.json", have: []string{"mousepad", "xterm"},
			want: []string{"/usr/bin/mousepad /h/settings.json"}},
		{name: "Linux gio open when xdg-open is missing", goos: "linux", path: "/h/settings.json", have: []string{"gio", "mousepad"},
			want: []string{"/usr/bin/gio open /h/settings.json"}},
		{name: "Linux $VISUAL a GUI editor comes first of the editors", goos: "linux", path: "/h/settings.json", have: []string{"gedit", "mousepad"},
			env:  map[string]string{"VISUAL": "/usr/bin/gedit"},
			want: []string{"/usr/bin/gedit /h/settings.json"}},
		{name: "Linux $VISUAL a GUI editor with flags", goos: "linux", path: "/h/settings.json", have: []string{"code", "mousepad"},
			env:  map[string]string{"VISUAL": "code --wait"},
			want: []string{"/usr/bin/code --wait /h/settings.json"}},
		{name: "Linux $VISUAL vim is not a GUI editor: nano in a terminal, titled", goos: "linux", path: "/h/settings.json", have: []string{"vim", "nano", "xterm"},
			env:  map[string]string{"VISUAL": "vim"},
			want: []string{"/usr/bin/xterm -T Hark settings — Ctrl+O saves, Ctrl+X quits -e nano '/h/settings.json'"}},
		{name: "Linux only vim and xterm (no $EDITOR): never vim", goos: "linux", path: "/h/settings.json", have: []string{"vim", "vi", "xterm"},
			wantErr: []string{"no program to open it", "the file is /h/settings.json"}},
		{name: "Linux $EDITOR vim is the user's choice", goos: "linux", path: "/h/settings.json", have: []string{"vim", "nano", "xfce4-terminal"},
			env:  map[string]string{"EDITOR": "vim"},
			want: []string{"/usr/bin/xfce4-terminal --title Hark settings -e vim '/h/settings.json'"}},
		{name: "Linux nano in gnome-terminal", goos: "linux", path: "/h/settings.json", have: []string{"nano", "gnome-terminal"},
			want: []string{"/usr/bin/gnome-terminal --title Hark settings — Ctrl+O saves, Ctrl+X quits -- sh -c nano '/h/settings.json'"}},
		{name: "Linux nano in konsole", goos: "linux", path: "/h/settings.json", have: []string{"nano", "konsole"},
			want: []string{"/usr/bin/konsole -p tabtitle=Hark settings — Ctrl+O saves, Ctrl+X quits -e sh -c nano '/h/settings.json'"}},
		{name: "Linux everything fails: says what was tried", goos: "linux", path: "/h/settings.json", inPath: true, have: []string{"gio"},
			fails:   map[string]bool{"/usr/bin/xdg-open /h/settings.json": true, "/usr/bin/gio open /h/settings.json": true},
			want:    []string{"/usr/bin/xdg-open /h/settings.json", "/usr/bin/gio open /h/settings.json"},
			wantErr: []string{"tried xdg-open (exit status 1), gio open (exit status 1)", "the file is /h/settings.json"}},
		{name: "Linux nothing installed", goos: "linux", path: "/h/settings.json",
			wantErr: []string{"no program to open it", "the file is /h/settings.json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var ran []string
			o := ExecOpener{
				goos: c.goos,
				lookPath: func(name string) (string, error) {
					if c.inPath && (name == "open" || name == "xdg-open") || slices.Contains(c.have, filepath.Base(name)) {
						return "/usr/bin/" + filepath.Base(name), nil
					}
					return "", errors.New("not found")
				},
				getenv: func(k string) string { return c.env[k] },
				run: func(_ time.Duration, name string, args ...string) error {
					argv := strings.Join(append([]string{name}, args...), " ")
					ran = append(ran, argv)
					if c.fails[argv] {
						return errors.New("exit status 1")
					}
					return nil
				},
			}
			err := o.Open(c.path)
			if strings.Join(ran, " | ") != strings.Join(c.want, " | ") {
				t.Errorf("ran %q, want %q", ran, c.want)
			}
			if (err != nil) != (len(c.wantErr) > 0) {
				t.Fatalf("Open() error = %v, want error %v", err, len(c.wantErr) > 0)
			}
			for _, w := range c.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestOpenerFailingLateIsReported: an opener that exits non-zero after
// Open took it as started (a loaded machine, a slow xdg-open) is still
// reported, with the file, so the click is never silently lost; one that
// keeps running or exits 0 is not.
func TestOpenerFailingLateIsReported(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, script string
		fails        bool
	}{
		{"exits 4 after the wait", "sleep 0.3; echo 'no method available for opening' >&2; exit 4", true},
		{"exits 0 after the wait", "sleep 0.3; exit 0", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin := filepath.Join(dir, "xdg-open")
			exectest.WriteScript(t, bin, "#!/bin/sh\n"+c.script+"\n")
			late := make(chan error, 1)
			o := ExecOpener{
				goos: "linux",
				lookPath: func(name string) (string, error) {
					if name == "xdg-open" {
						return bin, nil
					}
					return "", errors.New("not found")
				},
				getenv: func(string) string { return "" },
				wait:   50 * time.Millisecond,
				Failed: func(path string, err error) { late <- fmt.Errorf("%s: %w", path, err) },
			}
			if err := o.Open("/h/settings.json"); err != nil {
				t.Fatalf("Open: %v (the opener was still running at the wait)", err)
			}
			select {
			case err := <-late:
				if !c.fails {
					t.Fatalf("reported %v for an opener that succeeded", err)
				}
				if !strings.Contains(err.Error(), "/h/settings.json") || !strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "no method available") {
					t.Errorf("late failure %q lacks the file, the exit or what it said", err)
				}
			case <-time.After(map[bool]time.Duration{true: 20 * time.Second, false: 2 * time.Second}[c.fails]):
				if c.fails {
					t.Fatal("an opener that exited 4 after the wait was never reported")
				}
			}
		})
	}
}

// TestOpenFailureSaysHowByHand: the notification of a file that did not
// open names the file and says how to open it by hand.
func TestOpenFailureSaysHowByHand(t *testing.T) {
	t.Parallel()
	want := map[string]string{"darwin": "open -t '/h/my settings.json'", "linux": "'/h/my settings.json'"}
	if _, err := exec.LookPath("nano"); err == nil {
		want["linux"] = "nano '/h/my settings.json'"
	}
	for goos, want := range want {
		title, body := openFailedNote(goos, "/h/my settings.json", errors.New("xdg-open: exit status 4"))
		if title != "File did not open" || !strings.Contains(body, "/h/my settings.json") || !strings.Contains(body, want) || !strings.Contains(body, "exit status 4") {
			t.Errorf("%s: %q / %q: want the file, why, and %q", goos, title, body, want)
		}
	}
}

// TestOpenByHandNamesAnEditorThatExists: the advice names an editor only
// when one is installed, a desktop one first (walk 6, P-3: it said
// `nano …` on a machine without nano).
func TestOpenByHandNamesAnEditorThatExists(t *testing.T) {
	t.Parallel()
	const path = "/h/settings.json"
	for name, c := range map[string]struct {
		have []string
		want string
	}{
		"none":      {nil, "open " + path + " by hand in any text editor"},
		"mousepad":  {[]string{"mousepad", "vi"}, "open it by hand: run `mousepad '/h/settings.json'`"},
		"nano only": {[]string{"nano"}, "open it by hand: run `nano '/h/settings.json'` in a terminal"},
		"vi only":   {[]string{"vi"}, "open it by hand: run `vi '/h/settings.json'` in a terminal"},
	} {
		look := func(prog string) (string, error) {
			for _, h := range c.have {
				if h == prog {
					return "/usr/bin/" + prog, nil
				}
			}
			return "", exec.ErrNotFound
		}
		if got := openByHand("linux", path, look); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// startAndWatch turns a quick non-zero exit into an error carrying what
// the program printed, and a program still running at the deadline (a
// viewer) into success.
func TestStartAndWatchExitCodes(t *testing.T) {
	t.Parallel()
	err := startAndWatch(5*time.Second, nil, "sh", "-c", "echo 'No application knows how to open URL file:///x.jsonl' >&2; echo more >&2; exit 1")
	if err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "No application knows how to open") || strings.Contains(err.Error(), "more") {
		t.Errorf("failing opener: %v, want exit status 1 with its first stderr line", err)
	}
	if err := startAndWatch(5*time.Second, nil, "sh", "-c", "exit 0"); err != nil {
		t.Errorf("succeeding opener: %v", err)
	}
	if err := startAndWatch(50*time.Millisecond, nil, "sleep", "1"); err != nil {
		t.Errorf("opener still running at the deadline: %v, want nil", err)
	}
	if err := startAndWatch(time.Second, nil, "/nonexistent/opener"); err == nil {
		t.Error("a missing program must fail")
	}
}
