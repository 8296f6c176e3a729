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

// ExecOpener opens files with `open` on macOS and `xdg-open` elsewhere.
// On macOS text files (settings, the audit log, the app log) open with
// `open -t`, the default text editor, because a .json or .jsonl file may
// have no default application at all; any other file that `open` cannot
// place gets one more try as text. On Linux a failing xdg-open (exit 3: nothing handles the type) is not the
// end: the file opens in $VISUAL or $EDITOR inside a terminal emulator, and
// when that fails too the error says where the file is.
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
	tool := "xdg-open"
	if goos == "darwin" {
		tool = "open"
	}
	if goos == "darwin" {
		return openDarwin(look, run, path)
	}
	var first error
	if bin, err := look(tool); err != nil {
		first = fmt.Errorf("%s is not installed", tool)
	} else if err := run(openerWait, bin, path); err != nil {
		first = fmt.Errorf("%s: %v", tool, err)
	} else {
		return nil
	}
	editor := getenv("VISUAL")
	if editor == "" {
		editor = getenv("EDITOR")
	}
	if editor != "" {
		for _, term := range []string{"x-terminal-emulator", "xfce4-terminal", "gnome-terminal", "konsole", "xterm"} {
			bin, err := look(term)
			if err != nil {
				continue
			}
			if err := run(openerWait, bin, "-e", editor+" "+shellQuote(path)); err == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("%v, and no editor in a terminal could open it either; the file is %s", first, path)
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
