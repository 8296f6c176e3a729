package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/desktop"
	"github.com/hark-sh/hark/app/hotkey"
	"github.com/hark-sh/hark/app/logs"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/app/tray"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
	"github.com/hark-sh/hark/speech/portaudio"
	"github.com/ollama/ollama/api"
)

func init() {
	register(&command{
		name: "run", summary: "Start the menu-bar app (what plain `hark` does).",
		run: runApp,
	})
}

// runApp builds the real adapters around the core and runs the tray on the
// main goroutine (macOS draws the menu bar only from the main thread). Every
// missing piece of the desktop (X display, tray host, notification server,
// microphone, whisper) degrades to a status line, never to a crash.
func runApp(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	verbose := fs.Bool("v", false, "log debug detail")
	fs.BoolVar(verbose, "verbose", false, "the same as -v")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "Usage: hark [run] [-v|--verbose]\n\nStarts Hark in the menu bar (the tray on Linux).")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		fmt.Fprintln(e.stderr, "hark:", err)
		return exitError
	}
	for _, dir := range []string{filepath.Dir(paths.Settings), paths.History, paths.Logs, paths.Runtime} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			fmt.Fprintf(e.stderr, "hark: cannot create %s: %v\n", dir, err)
			return exitError
		}
	}

	release, err := control.AcquireInstanceLock(paths.Runtime)
	if err != nil {
		fmt.Fprintln(e.stderr, "hark:", err)
		return exitError
	}
	defer release()

	log, closeLog, err := logs.Setup(paths, *verbose)
	if err != nil {
		// The log is a convenience; stderr still works.
		fmt.Fprintf(e.stderr, "hark: logging to stderr only: %v\n", err)
		log = slog.New(logs.NewHandler(e.stderr, slog.LevelInfo))
		closeLog = io.NopCloser(nil)
	}
	defer closeLog.Close()

	st, settingsErr := settings.Load(paths.Settings)
	if settingsErr != nil {
		log.Warn("settings file rejected; using defaults", "err", settingsErr)
	}

	problems := map[string]string{}

	// GUI apps on macOS start with a minimal PATH; commands must find what
	// the user's Terminal finds. Done before anything captures the
	// environment. A no-op elsewhere.
	if err := app.AdoptLoginShellPath(ctx, runtime.GOOS); err != nil {
		log.Warn("login shell PATH", "err", err)
		problems["path"] = fmt.Sprintf("could not read your login shell's PATH (%v); commands run with %s", err, os.Getenv("PATH"))
	}

	if ok, detail := shell.SandboxStatus(); !ok && shell.SandboxMode(st.Sandbox) != shell.SandboxOff {
		log.Warn("no sandbox", "detail", detail)
		problems["sandbox"] = "No sandbox here: git, interpreters and package managers ask before they run (" + detail + ")"
	}

	ctl, err := control.Listen(paths.Runtime)
	if err != nil {
		log.Warn("control socket", "err", err)
		problems["control"] = fmt.Sprintf("`hark send` will not reach this app: %v", err)
	}

	note := desktop.Setup(desktop.Options{Logger: log})
	defer note.Close()
	if note.Problem != "" {
		problems["notifications"] = note.Problem
	}

	recorder, transcriber, voiceProblem := voiceInput(st, paths, log)
	if voiceProblem != "" {
		problems["voice"] = voiceProblem
	}
	if recorder != nil {
		defer portaudio.Terminate()
	}
	if c, ok := transcriber.(io.Closer); ok {
		defer c.Close() // frees the whisper model
	}

	host := agent.ResolveHost(st.OllamaHost)
	client := agent.NewOllamaClient(host)
	// One agent for the app's lifetime: machine facts are gathered once,
	// and the confirmer, progress callback and confirm switch come with
	// each request.
	ao := agentOptions(st, paths, st.OllamaModel, client, host.String())
	sharedAgent, err := agent.New(ao)
	if err != nil {
		fmt.Fprintln(e.stderr, "hark:", err)
		return exitError
	}
	ag := &appAgent{agent: sharedAgent}
	history := storeHistory{newStore(paths.History)}

	var core *app.App
	post := func(ev app.Event) bool { return core.Post(ev) }
	menu := tray.New(tray.Options{Post: post, Logger: log})
	defer menu.Close()

	// The dialog tool that asks for a typed request also asks before
	// confirmation is switched off.
	prompter := desktop.DetectPrompter(runtime.GOOS, exec.LookPath)
	var yesNo app.YesNo
	if p, ok := prompter.(*desktop.ExecPrompter); ok {
		yesNo = p
	}
	opts := app.Options{
		Settings:      st,
		Paths:         paths,
		SettingsError: settingsErr,
		Recorder:      recorder,
		Transcriber:   transcriber,
		Agent:         ag,
		Notifier:      note.Notifier,
		Approver:      note.Approver,
		Menu:          menu,
		Prompter:      prompter,
		YesNo:         yesNo,
		History:       history,
		LoginItem:     loginItem{},
		Trash:         appTrash(ao.Trash),
		LogFile:       logs.File(paths),
		AuditText:     func() (string, error) { return auditText(paths.Audit) },
		Logger:        log,
		Checks: map[string]func(context.Context) error{
			"ollama": func(ctx context.Context) error {
				ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				warnings, err := agent.Check(ctx, client, host.String(), st.OllamaModel, st.ContextLength)
				for _, w := range warnings {
					log.Warn("ollama", "warning", w)
				}
				return ollamaProblem(err)
			},
			"tray": func(context.Context) error {
				if p := tray.HostProblem(); p != "" {
					return errors.New(p)
				}
				return nil
			},
		},
		OnTranscribeStart: func(d time.Duration) {
			log.Info("transcription started", "sinceKeyUpMs", float64(d.Microseconds())/1000)
		},
	}
	core = app.New(opts)

	ctx, stop := context.WithCancel(ctx)
	defer stop()

	// start runs the core and everything that feeds it. On macOS it must run
	// off the main thread, after the tray exists (Carbon hot keys need the
	// Cocoa loop running).
	start := func() {
		go func() {
			core.Run(ctx)
			stop()
			tray.Quit()
		}()
		for src, msg := range problems {
			core.Post(app.Problem{Source: src, Message: msg})
		}
		if ctl != nil {
			go func() {
				if err := ctl.Serve(ctx, core.Post); err != nil {
					log.Warn("control socket stopped", "err", err)
				}
			}()
		}
		go runHotkey(ctx, st, core, note.Notifier, log)
	}

	fmt.Fprintf(e.stderr, "hark: running (log: %s)\n", logs.File(paths))
	if err := tray.Check(); err != nil {
		// No tray: the app still works through the hotkey, notifications
		// and `hark send`; the reason goes to stderr and the log.
		fmt.Fprintf(e.stderr, "hark: %v; running without a menu\n", err)
		log.Warn("no tray", "err", err)
		// Without a menu there is no status line: stderr is the only place
		// left to say what else is missing.
		for src, msg := range problems {
			fmt.Fprintf(e.stderr, "hark: %s: %s\n", src, msg)
		}
		if note.Approver == nil {
			fmt.Fprintf(e.stderr, "hark: with neither a menu nor notifications nobody can approve a command; those that need approval are denied after %v (read-only ones still run)\n", st.ConfirmTimeout.D())
		}
		start()
		<-core.Done()
	} else if err := tray.Run(start, func() {}); err != nil {
		fmt.Fprintf(e.stderr, "hark: %v\n", err)
		return exitError
	}
	stop()
	<-core.Done()
	fmt.Fprintln(e.stderr, "hark: stopped")
	return exitOK
}

// ollamaProblem titles a failed Ollama check for its menu row: Ollama
// itself down, or up without the model.
func ollamaProblem(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "model") && !strings.Contains(msg, "not running") {
		return &app.TitledError{Title: "Ollama model not ready", Err: err}
	}
	return err
}

// runHotkey grabs the push-to-talk combination and forwards its events. A
// failure is a status line (and, when the combination is taken, a
// notification), never the end of the app.
func runHotkey(ctx context.Context, st settings.Settings, core *app.App, notifier app.Notifier, log *slog.Logger) {
	combo, err := hotkey.Parse(st.Hotkey)
	if err != nil {
		core.Post(app.Problem{Source: "hotkey", Message: err.Error() + " — fix \"hotkey\" in Settings…"})
		return
	}
	// A combination the system already uses may register without error
	// (macOS lets two owners share one) and still never reach Hark.
	if what, taken := hotkey.SystemShortcut(combo, runtime.GOOS); taken {
		log.Warn("hotkey is a system shortcut", "combo", combo.String(), "used by", what)
		core.Post(app.Problem{Source: "hotkey-shortcut", Message: fmt.Sprintf("The hotkey %s is already %s here; choose another \"hotkey\" in Settings…", st.Hotkey, "used for "+what)})
	}
	// Toggle mode is the core's business (it reads the setting); the
	// adapter reports plain presses and releases.
	l, err := hotkey.Register(combo, hotkey.Options{})
	if err != nil {
		log.Warn("hotkey unavailable", "combo", combo.String(), "err", err)
		p := app.Problem{Source: "hotkey", Message: err.Error()}
		if errors.Is(err, hotkey.ErrTaken) {
			p.Title = "Hotkey " + combo.String() + " is taken by another app"
		}
		core.Post(p)
		if errors.Is(err, hotkey.ErrTaken) && notifier != nil {
			// Unlike a missing X server, a taken combination is something
			// the user just caused and can fix at once: say it out loud.
			if nerr := notifier.Notify("Hark — hotkey not available", err.Error()); nerr != nil {
				log.Warn("notification failed", "err", nerr)
			}
		}
		return
	}
	defer l.Close()
	log.Info("hotkey registered", "combo", combo.String())
	for {
		select {
		case ev, ok := <-l.Events():
			if !ok {
				return
			}
			var out app.Event = app.KeyDown{}
			if ev.Kind == hotkey.Up {
				out = app.KeyUp{}
			}
			if !core.Post(out) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// voiceInput builds the microphone and the transcriber, or says why voice
// input is off.
func voiceInput(st settings.Settings, paths settings.Paths, log *slog.Logger) (app.Recorder, app.Transcriber, string) {
	if err := portaudio.Init(); err != nil {
		return nil, nil, fmt.Sprintf("no microphone access (%v) — use Type a request… or `hark send`", err)
	}
	tr, err := newTranscriber(st, paths, log)
	if err != nil {
		portaudio.Terminate()
		return nil, nil, err.Error()
	}
	rec := portaudio.NewRecorder(portaudio.Options{
		Device:    st.Microphone,
		Tail:      st.RecordTail.D(),
		MaxLength: st.MaxRecording.D(),
	})
	return rec, tr, ""
}

// appAgent adapts agent.Agent to the core's Agent interface: the core hands
// over the confirmer, the progress callback and the confirm setting per
// request, and the conversation carries over until New conversation.
type appAgent struct {
	agent *agent.Agent
	conv  *agent.Conversation
}

func (a *appAgent) NewConversation() { a.conv = nil }

// Preload lets the core load the model when the hotkey goes down.
func (a *appAgent) Preload(ctx context.Context) error { return a.agent.Preload(ctx) }

func (a *appAgent) Run(ctx context.Context, r app.Request, c app.Confirmer, onEvent func(app.AgentEvent)) (string, error) {
	noConfirm := !r.ConfirmBeforeExecute
	ro := agent.RequestOptions{
		NoConfirm: &noConfirm,
		Confirmer: agent.ConfirmerFunc(func(ctx context.Context, p agent.Pending) (agent.Decision, error) {
			d, err := c.Confirm(ctx, p) // app.Pending is agent.Pending
			return agent.Decision{Approved: d.Approved, By: d.By, Trash: d.Trash}, err
		}),
		OnEvent: func(ev agent.Event) {
			if out, ok := toAppEvent(ev); ok {
				onEvent(out)
			}
		},
	}
	if a.conv == nil {
		a.conv = agent.NewConversation()
	}
	out, err := a.agent.RunWith(ctx, a.conv, r.Text, ro)
	return out.Answer, err
}

func toAppEvent(ev agent.Event) (app.AgentEvent, bool) {
	var out app.AgentEvent
	if c := ev.Call; c != nil {
		out.Command, out.Purpose, out.Tier, out.Reasons = c.Command, c.Purpose, c.Tier, c.Reasons
	}
	switch ev.Kind {
	case agent.EventText:
		out.Kind, out.Text, out.Reset = app.AgentText, ev.Text, ev.Reset
	case agent.EventLoading, agent.EventThinking:
		out.Kind, out.Text = app.AgentStatus, ev.Text
	case agent.EventRetry:
		out.Kind, out.Text = app.AgentStatus, "asking the model again…"
	case agent.EventProposed:
		out.Kind = app.AgentProposed
	case agent.EventAwaiting:
		out.Kind = app.AgentAwaiting
	case agent.EventRunning:
		out.Kind = app.AgentRunning
	case agent.EventResult:
		out.Kind = app.AgentResult
		if r := ev.Result; r != nil {
			out.ExitCode, out.Text = r.ExitCode, r.Error
		}
	case agent.EventFinal:
		out.Kind, out.Text = app.AgentAnswer, ev.Text
	case agent.EventError:
		out.Kind, out.Text = app.AgentError, ev.Text
	default:
		return out, false
	}
	return out, true
}

// storeHistory lists saved conversations for the Recent submenu and renders
// one as plain text.
type storeHistory struct{ s *agent.Store }

func (h storeHistory) Recent(n int) ([]app.ConversationSummary, error) {
	list, err := h.s.List()
	if err != nil {
		return nil, err
	}
	var out []app.ConversationSummary
	for _, c := range list { // newest first
		if len(out) == n {
			break
		}
		title := c.Title
		if conv, err := h.s.Load(c.ID); err == nil {
			title = recentLabel(c.Title, c.Updated, conv.Runs, time.Now())
		}
		out = append(out, app.ConversationSummary{ID: c.ID, Title: title})
	}
	return out, nil
}

// recentLabel tells apart conversations that share a title: when it was
// and how its last request ended ("list my downloads · 14:02 · 1 ran").
func recentLabel(title string, updated time.Time, runs []agent.RunMetrics, now time.Time) string {
	when := updated.Local().Format("15:04")
	if y, m, d := updated.Local().Date(); y != now.Local().Year() || m != now.Local().Month() || d != now.Local().Day() {
		when = updated.Local().Format("Jan 2 15:04")
	}
	label := strings.TrimSpace(title) + " · " + when
	if len(runs) == 0 {
		return label
	}
	r := runs[len(runs)-1]
	switch {
	case r.Outcome == agent.OutcomeCancelled:
		return label + " · cancelled"
	case r.Outcome == agent.OutcomeError:
		return label + " · failed"
	}
	if f := (app.Outcome{Ran: r.Commands, Denied: r.Denied, Refused: r.Refused}).Facts(); f != "" {
		return label + " · " + strings.TrimSuffix(f, " — nothing changed")
	}
	return label
}

func (h storeHistory) Transcript(id string) (string, error) {
	c, err := h.s.Load(id)
	if err != nil {
		return "", err
	}
	return transcriptText(c), nil
}

// transcriptText renders a conversation as a person reads it. Each
// request's last answer is Hark's ending: its own facts about the commands
// first, then the model's words as plain text, as the final notification
// said.
func transcriptText(c *agent.Conversation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s · %s\n\n", c.Title, c.Created.Local().Format("2006-01-02 15:04"), c.Model)
	request := -1
	var timedOut int
	for i, m := range c.Messages {
		switch m.Role {
		case "user":
			request++
			timedOut = 0
			fmt.Fprintf(&b, "You: %s\n\n", m.Content)
		case "assistant":
			for _, tc := range m.ToolCalls {
				if cmd, ok := tc.Function.Arguments.Get("command"); ok {
					fmt.Fprintf(&b, "$ %v\n", cmd)
				}
			}
			text := strings.TrimSpace(m.Content)
			if text == "" && len(m.ToolCalls) > 0 {
				continue
			}
			if lastAnswer(c.Messages, i) && request >= 0 && request < len(c.Runs) {
				r := c.Runs[request]
				o := app.Outcome{Ran: r.Commands, Denied: r.Denied - timedOut, TimedOut: timedOut, Refused: r.Refused}
				text = app.Ending(o, text)
			} else {
				text = app.PlainText(text)
			}
			if text != "" {
				fmt.Fprintf(&b, "Hark: %s\n\n", text)
			}
		case "tool":
			line, to := toolLine(m.Content)
			if to {
				timedOut++
			}
			fmt.Fprintf(&b, "  %s\n\n", line)
		}
	}
	return b.String()
}

// lastAnswer reports whether message i is the last assistant message of
// its request.
func lastAnswer(ms []api.Message, i int) bool {
	for _, m := range ms[i+1:] {
		switch m.Role {
		case "user":
			return true
		case "assistant":
			return false
		}
	}
	return true
}

// toolLine says in words what one command's result was, and whether it is
// an approval that timed out.
func toolLine(content string) (string, bool) {
	var r shell.Result
	if json.Unmarshal([]byte(content), &r) != nil {
		return content, false
	}
	switch {
	case r.Executed && r.ExitCode == 0:
		return "✓ ran", false
	case r.Executed:
		return fmt.Sprintf("✗ ran, exit status %d", r.ExitCode), false
	case strings.Contains(r.Error, "did not answer"):
		return "✗ not run: the approval timed out", true
	case strings.HasPrefix(r.Error, "Refused"):
		return "✗ not run: refused (Hark never runs this)", false
	}
	return "✗ not run: " + firstSentence(r.Error), false
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// loginItem backs the tray's "Launch at login" checkbox with the same
// LaunchAgent or autostart entry that `hark login-item` manages.
type loginItem struct{}

func (loginItem) Enabled() (bool, error)   { return bundle.LaunchAtLogin() }
func (loginItem) SetEnabled(on bool) error { return bundle.SetLaunchAtLogin(on) }

// appTrash hands the agent's Trash to the app, or none: a nil *trash.Bin
// must not become a non-nil interface.
func appTrash(b *trash.Bin) app.Trash {
	if b == nil {
		return nil
	}
	return b
}
