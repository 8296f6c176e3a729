package main

import (
	"strings"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// sandboxOff is why commands run with no sandbox when the sandbox setting,
// or hark exec's --sandbox, is "off", and how to turn it on.
const sandboxOff = `the sandbox is switched off (sandbox "off"); set it to "auto" to turn it on`

// noSandbox says why commands run in mode have no sandbox on this
// machine, and what would give them one, or "" when the kernel confines
// them (agent.Options.NoSandbox, app.Options.NoSandbox).
func noSandbox(mode shell.SandboxMode) string { return noSandboxWith(mode, shell.SandboxStatus) }

// noSandboxWith is noSandbox with the system's sandbox as status reports
// it. In read-only mode no command runs unconfined: one the system cannot
// confine is refused instead.
func noSandboxWith(mode shell.SandboxMode, status func() (bool, string)) string {
	switch mode {
	case shell.SandboxOff:
		return sandboxOff
	case shell.SandboxReadOnly:
		return ""
	}
	ok, detail := status()
	if ok {
		return ""
	}
	// The system's reason up to its remark on what asks first, which
	// the caller says in its own words.
	why, _, _ := strings.Cut(detail, ";")
	return strings.TrimSpace(why)
}

// holdConfirm keeps confirmation on in s where commands would run with no
// sandbox, and says so in a warning for the user; "" when nothing was
// held.
func holdConfirm(s *settings.Settings) string {
	why := noSandbox(shell.SandboxMode(s.Sandbox))
	if why == "" || s.ConfirmBeforeExecute {
		return ""
	}
	s.ConfirmBeforeExecute = true
	return "confirmBeforeExecute is false in settings, and that is not applied: this machine has no sandbox (" + why +
		"), so Hark asks before running anything that is not read-only; set confirmBeforeExecute to true, or give Hark a sandbox"
}
