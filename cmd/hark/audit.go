package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
)

func init() {
	register(&command{
		name:    "audit",
		usage:   "[--tail N] [--json]",
		summary: "Show the latest command decisions from the audit log.",
		about: `Shows the latest decisions about proposed commands (ran at once, approved, denied,
moved to the Trash, refused…), newest last, from the audit log. The log is kept when
hark history clear deletes the conversations.`,
		run: runAudit,
	})
}

func runAudit(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	tail := fs.Int("tail", 20, "show the last N decisions (0 shows all)")
	asJSON := fs.Bool("json", false, "print the entries as JSON lines")
	fs.Usage = func() { writeUsage(e.stderr, "audit", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 || *tail < 0 {
		fs.Usage()
		return exitUsage
	}
	paths, _, err := loadSettings()
	if err != nil {
		showln(e.stderr, "hark audit:", err)
		return exitError
	}
	entries, bad, err := agent.ReadAudit(paths.Audit)
	if err != nil {
		showln(e.stderr, "hark audit:", err)
		return exitError
	}
	if bad > 0 {
		showf(e.stderr, "hark: warning: skipped %d unreadable lines in %s\n", bad, paths.Audit)
	}
	if len(entries) == 0 {
		showf(e.stdout, "No command decisions yet (%s).\n", paths.Audit)
		return exitOK
	}
	if *tail > 0 && len(entries) > *tail {
		entries = entries[len(entries)-*tail:]
	}
	if *asJSON {
		for _, en := range entries {
			b, _ := json.Marshal(en)
			fmt.Fprintf(e.stdout, "%s\n", safeJSON(b))
		}
		return exitOK
	}
	writeAuditTable(e.stdout, entries)
	return exitOK
}

// writeAuditTable prints entries as the table `hark audit` shows; the
// tray's Open audit log shows the same text.
func writeAuditTable(w io.Writer, entries []agent.AuditEntry) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tDECISION\tBY\tTIER\tEXIT\tMS\tPURPOSE\tCOMMAND")
	for _, en := range entries {
		exit := "-"
		switch {
		case en.Cancelled:
			exit = "cancelled"
		case en.TimedOut:
			exit = "timed out"
		case en.ExitCode != nil:
			exit = fmt.Sprint(*en.ExitCode)
		}
		where := en.WorkingDirectory
		if en.Client != "" {
			// asked over MCP: named as the approval named it, so that a
			// client calling itself Hark reads as another program here too
			where += ", from " + app.ClientName(en.Client)
		}
		// The words a spoken answer was read from, last: whisper's, so
		// shown escaped like every other field.
		heard := ""
		if h := strings.Join(strings.Fields(en.HeardAnswer), " "); h != "" {
			heard = " — heard “" + h + "”"
		}
		showf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s (in %s)%s\n", en.Time.Local().Format(time.DateTime), en.Decision, en.DecidedBy,
			en.Tier, exit, en.DurationMs, en.Purpose, firstLine(en.Command), where, heard)
	}
	tw.Flush()
}

// auditText is the audit log as readable text for the tray.
func auditText(path string) (string, error) {
	entries, _, err := agent.ReadAudit(path)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "No command decisions yet.\n", nil
	}
	var b strings.Builder
	showf(&b, "Hark audit log — every command decision, newest last (%s; the same as `hark audit --tail 0`)\n\n", path)
	writeAuditTable(&b, entries)
	return b.String(), nil
}
