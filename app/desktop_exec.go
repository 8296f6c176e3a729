package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// ExecOpener opens files with `open` on macOS and, elsewhere, with the
// first that works of xdg-open, gio open, $VISUAL when it is a desktop
// editor, the desktop's text editors, and last a terminal running
// $EDITOR or nano (whose bottom rows say how to save and quit) under a
// title that says it too. Never vim or vi unless $EDITOR names it: a
// person who did not choose it cannot leave it.
// On macOS text files (settings, the audit log, the app log) open with
// `open -t`, the default text editor, because a .json or .jsonl file may
// have no default application at all; any other file that `open` cannot
// place gets one more try as text. When everything fails the error says
// what was tried and where the file is.
type ExecOpener struct {
	// Failed, when set, hears of an opener that Open took as started
	// (still running at the wait) and that then exited non-zero, with the
	// file: a slow xdg-open that found no application.
	Failed func(path string, err error)

	// For tests; nil means the real ones.
	goos     string
	lookPath func(string) (string, error)
	getenv   func(string) string
	// run starts a program and reports its exit within the wait (nil when
	// it is still running then, as a viewer does).
	run  func(wait time.Duration, name string, args ...string) error
	wait time.Duration // zero: openerWait
}

// openerWait is how long Open waits for xdg-open to fail before taking
// it as having opened the file; a later failure goes to Failed.
const openerWait = 3 * time.Second

// Open starts the viewer or editor and returns once it is known to have
// started.
func (o ExecOpener) Open(path string) error { return o.open(path, false) }

// OpenDocument opens a file to read with the desktop's own application
// only (xdg-open or gio open; `open -t` on macOS): never an editor in a
// terminal. The caller falls back to a text window or a notification.
func (o ExecOpener) OpenDocument(path string) error { return o.open(path, true) }

func (o ExecOpener) open(path string, document bool) error {
	goos, look, getenv, run := o.goos, o.lookPath, o.getenv, o.run
	if goos == "" {
		goos = runtime.GOOS
	}
	if look == nil {
		look = exec.LookPath
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if run == nil {
		failed := o.Failed
		run = func(wait time.Duration, name string, args ...string) error {
			var late func(error)
			if failed != nil {
				late = func(err error) { failed(path, fmt.Errorf("%s: %w", filepath.Base(name), err)) }
			}
			return startAndWatch(wait, late, name, args...)
		}
	}
	wait := o.wait
	if wait == 0 {
		wait = openerWait
	}
	timed := func(d time.Duration, name string, args ...string) error { return run(wait, name, args...) }
	if goos == "darwin" {
		return openDarwin(look, timed, path)
	}
	return openLinux(look, getenv, timed, path, document)
}

// OpenByHand says how to open path without Hark, for a message.
func OpenByHand(goos, path string) string { return openByHand(goos, path, exec.LookPath) }

// openByHand names an editor only if look finds it, a desktop one
// first: advice to run nano on a machine without nano sends the reader
// after a program they do not have.
func openByHand(goos, path string, look func(string) (string, error)) string {
	if goos == "darwin" {
		return "open it by hand: run `open -t " + shellQuote(path) + "` in Terminal"
	}
	for _, e := range guiEditors {
		if _, err := look(e); err == nil {
			return "open it by hand: run `" + e + " " + shellQuote(path) + "`"
		}
	}
	for _, e := range []string{"nano", "vim", "vi"} {
		if _, err := look(e); err == nil {
			return "open it by hand: run `" + e + " " + shellQuote(path) + "` in a terminal"
		}
	}
	return "open " + path + " by hand in any text editor"
}

// openFailedNote is the notification of a file that did not open: which
// file, why, and how to open it by hand.
func openFailedNote(goos, path string, err error) (title, body string) {
	return "File did not open", fmt.Sprintf("%s did not open: %v.\n%s.", path, err, strings.ToUpper(OpenByHand(goos, path)[:1])+OpenByHand(goos, path)[1:])
}

// guiEditors are the text editors desktops ship, tried when neither
// xdg-open nor gio could open the file (a missing or stale MIME cache
// makes both fail with mousepad installed).
var guiEditors = []string{"gnome-text-editor", "mousepad", "gedit", "kate", "kwrite", "xed", "pluma", "featherpad", "leafpad"}

// guiEditorNames are the programs $VISUAL may name that open a window of
// their own; any other $VISUAL (vim, nano, emacs -nw) needs a terminal.
var guiEditorNames = append([]string{"code", "codium", "subl", "gvim", "geany", "zed", "kwrite", "gnome-text-editor"}, guiEditors...)

// terminal is a terminal emulator and how it takes a title and a command
// line.
type terminal struct {
	name string
	args func(title, cmdline string) []string
}

// terminals run an editor under a title; the Debian alternative
// x-terminal-emulator takes -T and -e like xterm.
var terminals = []terminal{
	{"x-terminal-emulator", func(t, c string) []string { return []string{"-T", t, "-e", c} }},
	{"xfce4-terminal", func(t, c string) []string { return []string{"--title", t, "-e", c} }},
	{"gnome-terminal", func(t, c string) []string { return []string{"--title", t, "--", "sh", "-c", c} }},
	{"konsole", func(t, c string) []string { return []string{"-p", "tabtitle=" + t, "-e", "sh", "-c", c} }},
	{"xterm", func(t, c string) []string { return []string{"-T", t, "-e", c} }},
	{"uxterm", func(t, c string) []string { return []string{"-T", t, "-e", c} }},
}

// editorTitle is the terminal's title over an editor of path: for nano it
// says how to save and quit, since that is what a newcomer needs.
func editorTitle(path, editor string) string {
	what := "Hark — " + filepath.Base(path)
	if filepath.Base(path) == "settings.json" {
		what = "Hark settings"
	}
	if editor == "nano" {
		return what + " — Ctrl+O saves, Ctrl+X quits"
	}
	return what
}

// openLinux tries, in order, what a desktop is likely to have: xdg-open,
// gio open, then (unless document) $VISUAL when it is a desktop editor,
// a desktop text editor, and last $EDITOR or nano in a terminal. The
// error lists what was tried and where the file is.
func openLinux(look func(string) (string, error), getenv func(string) string, run func(time.Duration, string, ...string) error, path string, document bool) error {
	var tried []string
	try := func(label, name string, args ...string) bool {
		bin, err := look(name)
		if err != nil {
			return false
		}
		if err := run(openerWait, bin, args...); err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", label, err))
			return false
		}
		return true
	}
	if try("xdg-open", "xdg-open", path) || try("gio open", "gio", "open", path) {
		return nil
	}
	if document {
		return openError(tried, path, "xdg-open or gio")
	}
	if v := strings.Fields(getenv("VISUAL")); len(v) > 0 && slices.Contains(guiEditorNames, filepath.Base(v[0])) {
		if try("$VISUAL", v[0], append(v[1:], path)...) {
			return nil
		}
	}
	for _, ed := range guiEditors {
		if try(ed, ed, path) {
			return nil
		}
	}
	editor := strings.TrimSpace(getenv("EDITOR"))
	if editor == "" {
		if _, err := look("nano"); err != nil {
			return openError(tried, path, "xdg-open, gio, a desktop text editor, or nano and a terminal")
		}
		editor = "nano"
	}
	for _, term := range terminals {
		if try(term.name+" "+editor, term.name, term.args(editorTitle(path, editor), editor+" "+shellQuote(path))...) {
			return nil
		}
	}
	return openError(tried, path, "xdg-open, gio, a desktop text editor, or a terminal for "+editor)
}

// openError says what was tried, or what was looked for, and where the
// file is.
func openError(tried []string, path, lookedFor string) error {
	if len(tried) == 0 {
		return fmt.Errorf("no program to open it was found (%s); the file is %s", lookedFor, path)
	}
	return fmt.Errorf("tried %s; the file is %s", strings.Join(tried, ", "), path)
}

// textExtensions are the files Hark opens that are plain text whatever
// application, if any, claims their extension.
var textExtensions = map[string]bool{".json": true, ".jsonl": true, ".log": true, ".txt": true, ".md": true, ".toml": true, ".yaml": true, ".yml": true}

// openDarwin runs `open -t` for text and `open` for the rest, then `open
// -t` when `open` failed (it exits 1 when no application handles the
// type). The error keeps what `open` printed and says where the file is.
func openDarwin(look func(string) (string, error), run func(time.Duration, string, ...string) error, path string) error {
	bin, err := look("open")
	if err != nil {
		bin = "/usr/bin/open" // always there on macOS; PATH may be minimal
	}
	if textExtensions[strings.ToLower(filepath.Ext(path))] {
		if err := run(openerWait, bin, "-t", path); err != nil {
			return fmt.Errorf("open -t (the default text editor) failed: %v; the file is %s", err, path)
		}
		return nil
	}
	first := run(openerWait, bin, path)
	if first == nil {
		return nil
	}
	if err := run(openerWait, bin, "-t", path); err != nil {
		return fmt.Errorf("open failed (%v), and so did open -t (%v); the file is %s", first, err, path)
	}
	return nil
}

// shellQuote quotes s for the one shell word a terminal's -e runs.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startAndWatch runs name and returns its failure if it exits non-zero
// within wait, with the first line it printed on stderr (`open` and
// xdg-open say there why). A failure after the wait goes to late, if set.
func startAndWatch(wait time.Duration, late func(error), name string, args ...string) error {
	cmd := exec.Command(name, args...)
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	why := func(err error) error {
		if err != nil {
			if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
				return fmt.Errorf("%w: %s", err, line)
			}
		}
		return err
	}
	select {
	case err := <-done:
		return why(err)
	case <-time.After(wait):
		// Still running: a viewer or an editor stays open, or xdg-open
		// is slow to find out it cannot.
		if late != nil {
			go func() {
				if err := <-done; err != nil {
					late(why(err))
				}
			}()
		}
		return nil
	}
}

// cappedBuffer keeps the first 4 KiB written to it and drops the rest, so a
// chatty viewer cannot grow Hark's memory.
type cappedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 4096 - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
