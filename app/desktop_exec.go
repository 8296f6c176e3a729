package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// ExecOpener opens files with `open` on macOS and, elsewhere, with the
// first that works of xdg-open, gio open, $VISUAL/$EDITOR in a terminal and
// the desktop's text editors.
// On macOS text files (settings, the audit log, the app log) open with
// `open -t`, the default text editor, because a .json or .jsonl file may
// have no default application at all; any other file that `open` cannot
// place gets one more try as text. When everything fails the error says
// what was tried and where the file is.
type ExecOpener struct {
	// For tests; nil means the real ones.
	goos     string
	lookPath func(string) (string, error)
	getenv   func(string) string
	// run starts a program and reports its exit within the wait (nil when
	// it is still running then, as a viewer does).
	run func(wait time.Duration, name string, args ...string) error
}

// openerWait is how long Open waits for xdg-open to fail before taking
// it as having opened the file.
const openerWait = 3 * time.Second

// Open starts the viewer and returns once it is known to have started.
func (o ExecOpener) Open(path string) error {
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
		run = startAndWatch
	}
	if goos == "darwin" {
		return openDarwin(look, run, path)
	}
	return openLinux(look, getenv, run, path)
}

// guiEditors are the text editors desktops ship, tried when neither
// xdg-open nor gio could open the file (a missing or stale MIME cache
// makes both fail with mousepad installed).
var guiEditors = []string{"gnome-text-editor", "kate", "kwrite", "mousepad", "gedit", "xed", "pluma", "featherpad", "leafpad"}

// terminals run a terminal editor; each takes -e COMMAND.
var terminals = []string{"x-terminal-emulator", "xfce4-terminal", "gnome-terminal", "konsole", "xterm", "uxterm"}

// openLinux tries, in order, what a desktop is likely to have: xdg-open,
// gio open, $VISUAL or $EDITOR in a terminal, a desktop text editor, and
// last a terminal editor (nano, vim, vi) in a terminal. The error lists
// what was tried and where the file is.
func openLinux(look func(string) (string, error), getenv func(string) string, run func(time.Duration, string, ...string) error, path string) error {
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
	inTerminal := func(editor string) bool {
		for _, term := range terminals {
			if try(term+" -e "+editor, term, "-e", editor+" "+shellQuote(path)) {
				return true
			}
		}
		return false
	}
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if editor := getenv(v); editor != "" && inTerminal(editor) {
			return nil
		}
	}
	for _, ed := range guiEditors {
		if try(ed, ed, path) {
			return nil
		}
	}
	for _, ed := range []string{"nano", "vim", "vi"} {
		if _, err := look(ed); err == nil && inTerminal(ed) {
			return nil
		}
	}
	if len(tried) == 0 {
		return fmt.Errorf("no program to open it was found (xdg-open, gio, a text editor or a terminal); the file is %s", path)
	}
	return fmt.Errorf("could not open it: tried %s; the file is %s", strings.Join(tried, ", "), path)
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
// xdg-open say there why).
func startAndWatch(wait time.Duration, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
				return fmt.Errorf("%w: %s", err, line)
			}
		}
		return err
	case <-time.After(wait):
		return nil // still running: a viewer or an editor stays open
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
