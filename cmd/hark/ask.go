package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/visible"
)

// continueWindow is how recent the last conversation must be for `hark ask`
// to continue it; older ones are finished business and a new request starts
// fresh. --new always starts fresh.
const continueWindow = 10 * time.Minute

func init() {
	register(&command{
		name:    "ask",
		usage:   `[--model M] [--new] "request"`,
		summary: "Ask the model to do something; commands that change anything ask Run this? [N]o / [y]es first (deletions under home offer the Trash).",
		run:     runAsk,
	})
}

func runAsk(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	model := fs.String("model", "", "Ollama model to use (default: the ollamaModel setting, "+agent.DefaultModel+")")
	fresh := fs.Bool("new", false, fmt.Sprintf("start a new conversation (otherwise one updated in the last %s continues)", continueWindow))
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, `Usage: hark ask [--model M] [--new] "request"`)
		fmt.Fprintln(e.stderr, "\nSends the request to the local Ollama model. Read-only commands it proposes run at once")
		fmt.Fprintln(e.stderr, "in a sandbox; anything else asks Run this? [N]o / [y]es here (without a terminal it is not run).")
		fmt.Fprintf(e.stderr, "Follow-ups within %s continue the same conversation unless --new is given.\n\n", continueWindow)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	request := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if request == "" {
		fmt.Fprintln(e.stderr, `hark ask: say what to do, e.g. hark ask "which folders in Downloads are biggest?"`)
		return exitUsage
	}

	paths, s, err := loadSettings()
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	p := &printer{w: e.stdout, atLineStart: true, color: e.colorOut}
	var store *agent.Store
	a, server, err := newAgent(s, paths, *model, func(o *agent.Options) {
		o.Confirmer, o.OnEvent, store = newTerminalConfirmer(e), p.event, o.History
		for _, w := range rulesProblems(o.Rules) {
			showln(e.stderr, "hark ask: warning:", w)
		}
	})
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	// Loading the model overlaps the checks below; the request waits for
	// the same load instead of starting one after them.
	preloaded := make(chan struct{})
	go func() {
		defer close(preloaded)
		_ = a.Preload(ctx) // the request reports any failure itself
	}()
	defer func() { <-preloaded }()
	warnings, err := agent.Check(ctx, server.client, server.host, a.Model(), s.ContextLength, s.AllowCloudModels)
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	for _, w := range warnings {
		showln(e.stderr, "hark ask: warning:", w)
	}

	store.Warn = func(msg string) { showln(e.stderr, "hark: warning:", msg) }
	conv := agent.NewConversation()
	if !*fresh {
		if last, err := store.Latest(); err == nil && time.Since(last.Updated) < continueWindow {
			conv = last
			showln(e.stderr, continuingNote(conv.Title, time.Since(last.Updated)))
		}
	}

	out, err := a.Run(ctx, conv, request)
	p.endLine()
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	p.summary(out)
	return exitOK
}

// summary ends the transcript with Hark's own account of the request, as
// the app's notification does, so the model's words are never the last
// ones when they claim what did not happen: the claim is flagged first.
func (p *printer) summary(out agent.Outcome) {
	t := out.Metrics.Tally()
	flag := t.Contradiction(out.Answer)
	if flag == "" && t.Facts() == "" {
		return // a plain answer, no command proposed: nothing to add
	}
	p.write("\n")
	if flag != "" {
		p.write(p.paint(red, visible.Line(flag)) + "\n")
	}
	p.write(t.Summary() + "\n")
}

// printer shows a request's progress as a readable transcript: the model's
// words as they stream, each proposed command with its tier, purpose and
// reasons, and a short line for each result. Everything in it but Hark's
// own words and colours comes from the model or a command, so it is
// rendered with package visible before it is written.
type printer struct {
	w           io.Writer
	atLineStart bool
	color       bool // ANSI colours for tiers and marks
}

// wantColor is true on a terminal unless NO_COLOR (https://no-color.org)
// is set or the terminal is dumb.
func wantColor(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// ANSI colours: green for safe and success, yellow for what asks first,
// red for refusals and failures.
const (
	green  = "32"
	yellow = "33"
	red    = "31"
)

func (p *printer) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func tierColor(t shell.Tier) string {
	switch t {
	case shell.Safe:
		return green
	case shell.Forbidden:
		return red
	}
	return yellow
}

func (p *printer) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(p.w, s)
	p.atLineStart = strings.HasSuffix(s, "\n")
}

func (p *printer) endLine() {
	if !p.atLineStart {
		p.write("\n")
	}
}

func (p *printer) event(ev agent.Event) {
	switch ev.Kind {
	case agent.EventText:
		if ev.Reset {
			// What was shown was reasoning; a terminal cannot take it back,
			// so the answer starts on a fresh line.
			p.endLine()
			p.write("  (that was the model thinking)\n")
		}
		p.write(visible.Text(ev.Text))
	case agent.EventProposed:
		c := ev.Call
		p.endLine()
		p.write(fmt.Sprintf("  $ %s\n    %s · %s · in %s\n", commandBlock(c.Command, "  > "), visible.Line(c.Purpose),
			p.paint(tierColor(c.Tier), visible.Line(string(c.Tier))), visible.Line(c.WorkingDirectory)))
		if c.Tier != shell.Safe {
			for _, r := range c.Reasons {
				p.write("    why: " + visible.Line(r.Why) + "\n")
			}
		}
	case agent.EventDecided:
		switch ev.Decision {
		case agent.DecisionUnconfirmedRun:
			p.write("    running without asking: confirmBeforeExecute is off in settings\n")
		case agent.DecisionAllowed:
			p.write("    running without asking: one of your rules allows it (hark rules list)\n")
		}
	case agent.EventWarning:
		p.endLine()
		p.write("  ! warning: " + visible.Line(ev.Text) + "\n")
	case agent.EventInvalid:
		p.endLine()
		p.write("  ! " + visible.Line(ev.Text) + "\n")
	case agent.EventResult:
		p.result(ev.Result)
	case agent.EventLoading, agent.EventThinking:
		p.endLine()
		p.write("  (" + visible.Line(ev.Text) + ")\n")
	case agent.EventRetry:
		p.endLine()
		p.write("  ! the model's reply was unusable, asking it again: " + visible.Line(ev.Text) + "\n")
	case agent.EventFinal:
		p.endLine()
	}
}

// result prints one line of status and a few lines of output.
func (p *printer) result(r *shell.Result) {
	if r.Rule != "" {
		p.write("    " + visible.Line(r.Rule) + "\n")
	}
	if !r.Executed {
		if r.Tier == shell.Forbidden {
			p.write("  " + p.paint(red, "✗") + " refused: Hark never runs this\n")
			return
		}
		if r.Output != "" { // Hark acted in the command's place: Move to Trash
			mark := p.paint(green, "✓")
			if !r.Success {
				mark = p.paint(red, "✗")
			}
			p.write(fmt.Sprintf("  %s %s\n", mark, firstLine(r.Output)))
			if r.Error != "" {
				p.write(excerpt(r.Error, 5, "    "))
			}
			return
		}
		p.write(fmt.Sprintf("  %s not run: %s\n", p.paint(red, "✗"), firstLine(r.Error)))
		return
	}
	status := fmt.Sprintf("exit %d", r.ExitCode)
	if r.TimedOut {
		status = "timed out"
	}
	mark := p.paint(green, "✓")
	if !r.Success {
		mark = p.paint(red, "✗")
	}
	p.write(fmt.Sprintf("  %s %s · %d ms\n", mark, status, r.ExecutionTimeMs))
	out := r.Output
	if !r.Success && strings.TrimSpace(r.Error) != "" {
		out = r.Error
	}
	p.write(excerpt(out, 5, "    "))
}

// firstLine is the first line of s, marked when more follow, with its
// hidden characters shown: it is printed on a line of its own.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return visible.Line(s[:i]) + " …"
	}
	return visible.Line(s)
}

// excerpt indents the first n lines of s and counts the rest; each line
// keeps its tabs and shows every other hidden character.
func excerpt(s string, n int, indent string) string {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == n {
			fmt.Fprintf(&b, "%s… %s\n", indent, pluralWord(len(lines)-n, "more line", "more lines"))
			break
		}
		b.WriteString(indent + visible.Text(l) + "\n")
	}
	return b.String()
}

// continuingNote names the conversation a follow-up continues by its title
// and age, so nobody continues one they cannot recognise.
func continuingNote(title string, age time.Duration) string {
	title = strings.TrimSpace(title)
	if title == "" {
		title = "the last conversation"
	} else {
		title = "“" + title + "”"
	}
	ago := "just now"
	switch m := int(age.Round(time.Minute) / time.Minute); {
	case m == 1:
		ago = "1 minute ago"
	case m > 1:
		ago = fmt.Sprintf("%d minutes ago", m)
	}
	return fmt.Sprintf("(continuing %s from %s; --new starts a fresh one)", title, ago)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
