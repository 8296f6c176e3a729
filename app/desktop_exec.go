package app

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ExecOpener opens files with `open` on macOS and `xdg-open` elsewhere.
// On Linux a failing xdg-open (exit 3: nothing handles the type) is not the
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
	var first error
	if bin, err := look(tool); err != nil {
		first = fmt.Errorf("%s is not installed", tool)
	} else if err := run(openerWait, bin, path); err != nil {
		first = fmt.Errorf("%s: %v", tool, err)
	} else {
		return nil
	}
	if goos == "darwin" {
		return first
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

// shellQuote quotes s for the one shell word a terminal's -e runs.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func startAndWatch(wait time.Duration, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		return nil // still running: a viewer or an editor stays open
	}
}
