package main

import (
	"log/slog"
	"os"
	"strings"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
)

// folderPromptWatcher tells the user when a command touching Desktop,
// Documents or Downloads goes quiet: macOS is most likely asking whether
// Hark may open the folder, and the prompt may be behind other windows.
func folderPromptWatcher(ex agent.Executor, n app.Notifier, log *slog.Logger) agent.Executor {
	home, _ := os.UserHomeDir()
	return &app.FolderPromptWatcher{Executor: ex, Home: home, Notify: func(folders []string) {
		hint := app.FolderPromptHint(folders)
		log.Info("a command went quiet in a protected folder", "folders", folders)
		if n == nil {
			return
		}
		go func() {
			if err := n.Notify("Waiting for macOS", strings.ToUpper(hint[:1])+hint[1:]+"."); err != nil {
				log.Warn("could not post the folder-permission notice", "err", err)
			}
		}()
	}}
}
