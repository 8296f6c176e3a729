package app

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
)

// macOS asks the user before an app may read ~/Desktop, ~/Documents or
// ~/Downloads, and the process that touched them simply waits for the
// answer: to Hark that is a command that prints nothing until its timeout.
// FolderPromptWatcher notices such a command and says what to allow.

// protectedFolders are the home folders behind a macOS privacy prompt:
// the three of Files and Folders, then (macOS 14 and later) other apps'
// containers, whose prompt "would like to access data from other apps" is
// granted only for the life of the process, so it returns at every launch.
var protectedFolders = []string{"Desktop", "Documents", "Downloads", "Library/Containers", "Library/Group Containers"}

// volumesFolder stands for removable and network volumes, which have
// prompts of their own; it is the one entry outside the home folder.
const volumesFolder = "/Volumes"

// ProtectedFolders lists the prompt-guarded folders that a command run in
// dir may touch: dir inside one of them, a word naming one (~/Documents,
// $HOME/Downloads/x, the absolute path, or a relative path from the home
// folder), or a word naming the home folder itself, which a recursive tool
// walks into all three. Case is ignored, as on macOS's file system. It is a
// hint for a message, not a policy decision, so it reads words, not a
// parse tree.
func ProtectedFolders(command, dir, home string) []string {
	if home == "" {
		return nil
	}
	home = filepath.Clean(home)
	found := map[string]bool{}
	under := func(p string) {
		rel, err := filepath.Rel(strings.ToLower(home), strings.ToLower(filepath.Clean(p)))
		if err != nil || strings.HasPrefix(rel, "..") {
			return
		}
		if rel == "." {
			for _, f := range protectedFolders {
				found[f] = true
			}
			return
		}
		for _, f := range protectedFolders {
			lf := strings.ToLower(f)
			// Inside f, or above it (a walk of ~/Library reaches the
			// containers).
			if rel == lf || strings.HasPrefix(rel, lf+"/") || strings.HasPrefix(lf, rel+"/") {
				found[f] = true
			}
		}
	}
	volumes := func(p string) {
		if l := strings.ToLower(filepath.Clean(p)); l == "/volumes" || strings.HasPrefix(l, "/volumes/") {
			found[volumesFolder] = true
		}
	}
	if dir != "" {
		volumes(dir)
		under(dir)
		if len(found) == len(protectedFolders) {
			// A command run in the home folder touches the three only
			// when it names them (or walks "."), below.
			clear(found)
		}
	}
	cwd := dir
	if cwd == "" {
		cwd = home
	}
	for _, w := range strings.FieldsFunc(command, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '|' || r == '&' || r == '(' || r == ')' || r == '=' || r == '<' || r == '>'
	}) {
		w = strings.Trim(w, `"'`)
		switch {
		case w == "~" || strings.HasPrefix(w, "~/"):
			under(home + w[1:])
		case strings.HasPrefix(w, "$HOME") || strings.HasPrefix(w, "${HOME}"):
			rest := strings.TrimPrefix(strings.TrimPrefix(w, "${HOME}"), "$HOME")
			if rest == "" || strings.HasPrefix(rest, "/") {
				under(home + rest)
			}
		case filepath.IsAbs(w):
			volumes(w)
			under(w)
		case w == "." || w == "*" || w == "./":
			under(cwd)
		case strings.HasPrefix(w, "-") || strings.HasPrefix(w, "$"):
		default:
			// A relative path: only a folder's own name, so "Desktop" in a
			// grep pattern run elsewhere is not taken for the folder.
			first, _, _ := strings.Cut(strings.TrimPrefix(w, "./"), "/")
			for _, f := range protectedFolders[:3] {
				if strings.EqualFold(first, f) {
					under(filepath.Join(cwd, f))
				}
			}
		}
	}
	var out []string
	for _, f := range append(protectedFolders, volumesFolder) {
		if found[f] {
			out = append(out, f)
		}
	}
	return out
}

// FolderQuiet is how long a command touching a protected folder may print
// nothing before Hark says macOS may be asking about it.
const FolderQuiet = 8 * time.Second

// FolderPromptWatcher runs commands through Executor and, when one that
// touches a protected folder stays silent for Quiet, calls Notify once with
// the folders, and adds the hint to the result the model reads, so it can
// tell the user too.
type FolderPromptWatcher struct {
	Executor agent.Executor
	Home     string
	Quiet    time.Duration                        // 0 means FolderQuiet
	Notify   func(folders []string)               // tells the user; must not block
	After    func(time.Duration) <-chan time.Time // nil means time.After; tests pass a fake clock
}

// Run runs req, watching it when it touches a protected folder.
func (w *FolderPromptWatcher) Run(ctx context.Context, req shell.Request) shell.Result {
	folders := ProtectedFolders(req.Command, req.WorkingDirectory, w.Home)
	if len(folders) == 0 {
		return w.Executor.Run(ctx, req)
	}
	after, quiet := w.After, w.Quiet
	if after == nil {
		after = time.After
	}
	if quiet <= 0 {
		quiet = FolderQuiet
	}
	activity := make(chan struct{}, 1)
	prev := req.OnOutput
	req.OnOutput = func() {
		select {
		case activity <- struct{}{}:
		default:
		}
		if prev != nil {
			prev()
		}
	}
	done := make(chan shell.Result, 1)
	go func() { done <- w.Executor.Run(ctx, req) }()
	silent := after(quiet)
	warned := false
	for {
		select {
		case res := <-done:
			if warned && !res.Success {
				res.Error = strings.TrimRight(res.Error+"\nhark: "+FolderPromptHint(folders), "\n")
			}
			return res
		case <-activity:
			if !warned {
				silent = after(quiet)
			}
		case <-silent:
			silent = nil
			if !warned {
				warned = true
				if w.Notify != nil {
					w.Notify(folders)
				}
			}
		}
	}
}

// FolderPromptHint says what to do about a command held up by one of
// macOS's privacy prompts, each kind with its own advice.
func FolderPromptHint(folders []string) string {
	var files, containers []string
	volumes := false
	for _, f := range folders {
		switch {
		case f == volumesFolder:
			volumes = true
		case strings.HasPrefix(f, "Library/"):
			containers = append(containers, "~/"+f)
		default:
			files = append(files, "~/"+f)
		}
	}
	var parts []string
	if len(files) > 0 {
		parts = append(parts, "macOS may be asking whether Hark may open "+strings.Join(files, ", ")+
			": answer the prompt, or allow Hark in System Settings › Privacy & Security › Files and Folders")
	}
	if len(containers) > 0 {
		parts = append(parts, "macOS may be asking whether Hark may access data from other apps ("+strings.Join(containers, ", ")+
			"): answer the prompt, which comes back after each start of Hark, or leave those folders out (find … -not -path '*/Library/Containers/*')")
	}
	if volumes {
		parts = append(parts, "macOS may be asking whether Hark may open a removable or network volume (/Volumes): answer the prompt, "+
			"or allow Removable Volumes or Network Volumes for Hark in System Settings › Privacy & Security › Files and Folders")
	}
	return "the command went quiet; " + strings.Join(parts, "; ") + ", then ask again"
}
