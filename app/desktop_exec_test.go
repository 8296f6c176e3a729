package app

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
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
		{name: "Linux $EDITOR in a terminal before desktop editors", goos: "linux", path: "/h/settings.json", have: []string{"xterm", "kate"},
			env:  map[string]string{"EDITOR": "micro"},
			want: []string{"/usr/bin/xterm -e micro '/h/settings.json'"}},
		{name: "Linux no xdg-open, no gio: a desktop text editor", goos: "linux", path: "/h/settings.json", have: []string{"mousepad", "xterm"},
			want: []string{"/usr/bin/mousepad /h/settings.json"}},
		{name: "Linux only vim and xterm (no $EDITOR)", goos: "linux", path: "/h/settings.json", have: []string{"vim", "xterm"},
			want: []string{"/usr/bin/xterm -e vim '/h/settings.json'"}},
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
					if c.inPath && (name == "open" || name == "xdg-open") || slices.Contains(c.have, name) {
						return "/usr/bin/" + name, nil
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

// startAndWatch turns a quick non-zero exit into an error carrying what
// the program printed, and a program still running at the deadline (a
// viewer) into success.
func TestStartAndWatchExitCodes(t *testing.T) {
	t.Parallel()
	err := startAndWatch(5*time.Second, "sh", "-c", "echo 'No application knows how to open URL file:///x.jsonl' >&2; echo more >&2; exit 1")
	if err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "No application knows how to open") || strings.Contains(err.Error(), "more") {
		t.Errorf("failing opener: %v, want exit status 1 with its first stderr line", err)
	}
	if err := startAndWatch(5*time.Second, "sh", "-c", "exit 0"); err != nil {
		t.Errorf("succeeding opener: %v", err)
	}
	if err := startAndWatch(50*time.Millisecond, "sleep", "1"); err != nil {
		t.Errorf("opener still running at the deadline: %v, want nil", err)
	}
	if err := startAndWatch(time.Second, "/nonexistent/opener"); err == nil {
		t.Error("a missing program must fail")
	}
}
