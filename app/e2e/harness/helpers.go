package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// DesktopHelpers are the programs Hark starts to reach the person at the
// desktop: dialogs, openers, terminal emulators and editors (the lists in
// app/desktop and app/desktop_exec.go, and their usual kin). Whether a
// machine has them decides what Hark does (a zenity dialog, or a
// notification; xdg-open, or a terminal), and a dialog nobody answers
// stalls a test. So a test's Hark finds none of them unless the test asks
// for it by name (HelperPath): the suite behaves the same on CI, where
// none are installed, and on a developer's desktop, where many are.
var DesktopHelpers = []string{
	// dialogs and viewers
	"zenity", "kdialog", "yad",
	// openers
	"xdg-open", "gio", "kde-open", "kde-open5", "gnome-open", "exo-open",
	// terminal emulators
	"x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "kitty", "alacritty", "foot",
	"xterm", "uxterm", "wezterm", "tilix", "terminator", "lxterminal", "mate-terminal", "qterminal",
	// editors, with a window of their own or in a terminal
	"gnome-text-editor", "mousepad", "gedit", "kate", "kwrite", "xed", "pluma", "featherpad", "leafpad",
	"code", "codium", "subl", "gvim", "geany", "zed", "nano", "vim", "vi", "emacs",
}

// HelperPath is $PATH as Hark should see it in a test: the DesktopHelpers
// hidden, but for those named in have. Each folder of PATH that holds a
// hidden helper is replaced, in its place, by a folder of links to its
// other programs; the rest stay as they are.
func HelperPath(t testing.TB, have ...string) string {
	t.Helper()
	hidden := func(name string) bool { return slices.Contains(DesktopHelpers, name) && !slices.Contains(have, name) }
	var farm string
	var out []string
	for i, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(dir)
		if dir == "" || err != nil || !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return hidden(e.Name()) }) {
			out = append(out, dir)
			continue
		}
		if farm == "" {
			farm = t.TempDir()
		}
		links := filepath.Join(farm, strconv.Itoa(i))
		if err := os.Mkdir(links, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if hidden(e.Name()) {
				continue
			}
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(links, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, links)
	}
	return strings.Join(out, string(os.PathListSeparator))
}
