package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/visible"
	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/portaudio"
	"github.com/hark-sh/hark/speech/whisper"
)

// askNow is the time hark ask chooses the conversation by; tests set it.
var askNow = time.Now

func init() {
	register(&command{
		name:    "ask",
		usage:   `[--model M] [--new | --continue] "request" | --wav FILE.wav | --listen`,
		summary: "Ask the model to do something; commands that change anything ask Run this? [N]o / [y]es first (deletions under home offer the Trash).",
		about: `Sends the request to the local Ollama model. Read-only commands it proposes run at once
in a sandbox; anything else asks Run this? [N]o / [y]es here (without a terminal it is not run).
A request continues the latest conversation (the app's too) when it comes within ` + fmt.Sprint(int(agent.FollowUpWindow.Minutes())) + ` minutes of it
and reads as a follow-up: it refers back ("and delete them too", "do it again", "what about the
api project"), repeats the last request, or answers the model's question. Anything else starts a
new conversation; --new always starts one, --continue always continues the latest.
With --wav the request is spoken: whisper transcribes FILE.wav as hark transcribe does, Hark prints
Heard “…” with the words it was unsure of marked ([bills?]), and asks that; each approval shows the
same line, and warns first when an unsure word is what the command deletes or overwrites. --listen
records the request from the microphone until Enter, then does the same.`,
		run: runAsk,
	})
}

func runAsk(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	model := fs.String("model", "", "Ollama model to use (default: the ollamaModel setting, "+agent.DefaultModel+")")
	fresh := fs.Bool("new", false, "start a new conversation, even if the request reads as a follow-up")
	cont := fs.Bool("continue", false, "continue the latest conversation, however old, even if the request does not read as a follow-up")
	wav := fs.String("wav", "", "speak the request instead of typing it: transcribe `FILE.wav` (as hark transcribe does), show what was heard with the unsure words marked, and ask that")
	listen := fs.Bool("listen", false, "speak the request into the microphone (the microphone setting) until Enter, then as --wav")
	fs.Usage = func() { writeUsage(e.stderr, "ask", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	request := strings.TrimSpace(strings.Join(fs.Args(), " "))
	spoken := *wav != "" || *listen
	switch {
	case *fresh && *cont:
		fmt.Fprintln(e.stderr, `hark ask: give --new or --continue, not both`)
		return exitUsage
	case *wav != "" && *listen:
		fmt.Fprintln(e.stderr, `hark ask: give either --wav FILE.wav or --listen, not both`)
		return exitUsage
	case request != "" && spoken:
		fmt.Fprintln(e.stderr, `hark ask: give the request as text, or speak it with --wav or --listen, not both`)
		return exitUsage
	case request == "" && !spoken:
		fmt.Fprintln(e.stderr, `hark ask: say what to do, e.g. hark ask "which folders in Downloads are biggest?" (or speak it: hark ask --listen)`)
		return exitUsage
	case *listen && !e.isTerminal:
		fmt.Fprintln(e.stderr, `hark ask: --listen needs a terminal to press Enter on; record a file with hark record and pass it with --wav`)
		return exitUsage
	}
	// Without whisper.cpp a spoken request cannot be heard: say so before
	// anything else, in hark transcribe's words.
	if spoken && !whisperAvailable() {
		showln(e.stderr, "hark ask:", whisper.ErrUnavailable)
		return exitError
	}

	paths, s, err := loadSettings()
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	if w := holdConfirm(&s); w != "" {
		showln(e.stderr, "hark ask: warning:", w)
	}
	p := &printer{w: e.stdout, atLineStart: true, color: e.colorOut}
	p.home, _ = os.UserHomeDir()
	confirmer := newTerminalConfirmer(e)
	if spoken {
		var audio speech.Audio
		if *listen {
			audio, err = listenOnce(ctx, s, confirmer.q)
		} else {
			audio, err = speech.ReadWAVFile(*wav)
		}
		var text string
		var words []speech.Word
		if err == nil {
			text, words, err = hear(ctx, e, s, paths, audio)
		}
		if err != nil {
			showln(e.stderr, "hark ask:", err)
			return exitError
		}
		// The model gets the words as heard; the terminal shows which of
		// them whisper was unsure of, here and at every approval.
		request = text
		confirmer.heard, confirmer.unsure = speech.MarkUnsure(text, words), speech.Unsure(text, words)
		p.write("Heard “" + visible.Line(strings.Join(strings.Fields(confirmer.heard), " ")) + "”\n")
	}
	var store *agent.Store
	// The preview server starts once the start-up check has passed: a
	// check that fails ends the process, and one ended while the server
	// starts leaves its temporary folder behind.
	a, server, pv, err := newAgentWarm(s, paths, *model, func(o *agent.Options) {
		o.Confirmer, o.OnEvent, store = confirmer, p.event, o.History
		for _, w := range rulesProblems(o.Rules) {
			showln(e.stderr, "hark ask: warning:", w)
		}
	}, false)
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
	warnings, err := server.check(ctx, a.Model(), s.ContextLength, s.AllowCloudModels)
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	for _, w := range warnings {
		showln(e.stderr, "hark ask: warning:", w)
	}
	warmUp(pv)

	store.Warn = func(msg string) { showln(e.stderr, "hark: warning:", msg) }
	conv, note := askConversation(store, request, *fresh, *cont, askNow())
	if note != "" {
		showln(e.stderr, note)
	}

	out, err := a.Run(ctx, conv, request)
	if err != nil {
		p.flushHeld() // nothing to judge it by: the words as they came
	}
	p.endLine()
	if err != nil {
		showln(e.stderr, "hark ask:", err)
		return exitError
	}
	p.summary(out)
	return exitOK
}

// whisperAvailable and newWordTranscriber are how hark ask --wav hears a
// request: this build's whisper.cpp, and the transcriber hark transcribe
// loads, over the whisperModel setting. Tests replace both.
var (
	whisperAvailable   = whisper.Available
	newWordTranscriber = func(ctx context.Context, st settings.Settings, paths settings.Paths) (wordTranscriber, error) {
		file, err := resolveModel(st.WhisperModel, paths)
		if err != nil {
			return nil, err
		}
		tr, err := loadWhisper(ctx, st, paths, file)
		if err != nil {
			return nil, err // not a nil *Transcriber in the interface
		}
		return tr, nil
	}
)

// wordTranscriber gives each word with how sure whisper was of it, and
// releases the model when closed.
type wordTranscriber interface {
	app.WordTranscriber
	io.Closer
}

// newAskRecorder opens the microphone as the app records from it (the
// microphone, recordTail and maxRecording settings); autoStop is called
// when the recording stops by itself, and done releases PortAudio. Tests
// replace it.
var newAskRecorder = func(st settings.Settings, autoStop func(error)) (rec app.Recorder, done func()) {
	r := portaudio.NewRecorder(portaudio.Options{
		Device:     st.Microphone,
		Tail:       st.RecordTail.D(),
		MaxLength:  st.MaxRecording.D(),
		OnAutoStop: autoStop,
	})
	return r, func() {
		r.Close()
		portaudio.Terminate()
	}
}

// listenOnce records a request until Enter. The Enter is read through q,
// the reader the approval prompts use, on this goroutine, so no keystroke
// meant for a prompt is taken here or the other way round. A recording
// that stops by itself at the maximum length keeps what it has and still
// waits for that Enter, so the Enter cannot fall through to the first
// approval as its answer; one that fails ends the wait at once.
func listenOnce(ctx context.Context, st settings.Settings, q *yesNo) (speech.Audio, error) {
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rec, done := newAskRecorder(st, func(err error) {
		if err != nil {
			cancel(err)
		}
	})
	defer done()
	if err := rec.Start(ctx); err != nil {
		return speech.Audio{}, fmt.Errorf("could not start recording: %w", err)
	}
	prompt := "Listening… say the request, then press Enter"
	if max := st.MaxRecording.D(); max > 0 {
		prompt += " (it stops recording by itself after " + humanDuration(max) + ")"
	}
	_, err := q.line(lctx, prompt+". ")
	audio, stopErr := rec.Stop()
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(q.e.stderr)
		return speech.Audio{}, errors.New("interrupted")
	case lctx.Err() != nil:
		fmt.Fprintln(q.e.stderr)
		return speech.Audio{}, fmt.Errorf("recording failed: %w", context.Cause(lctx))
	case err != nil && !errors.Is(err, io.EOF):
		return speech.Audio{}, err
	case stopErr != nil:
		return speech.Audio{}, fmt.Errorf("recording failed: %w", stopErr)
	}
	return audio, nil
}

// hear transcribes a spoken request, in the order hark transcribe checks
// things: that the recording holds speech (before the model loads, so a
// silent one costs nothing), then the words.
func hear(ctx context.Context, e *env, st settings.Settings, paths settings.Paths, audio speech.Audio) (string, []speech.Word, error) {
	audio16, err := audio.To16k()
	if err != nil {
		return "", nil, err
	}
	if _, err := speech.CheckSpeech(audio16); err != nil {
		return "", nil, err
	}
	tr, err := newWordTranscriber(ctx, st, paths)
	if err != nil {
		return "", nil, err
	}
	defer tr.Close()
	if v, ok := tr.(interface{ VADProblem() error }); ok {
		if err := v.VADProblem(); err != nil {
			showln(e.stderr, "hark ask: warning:", err)
		}
	}
	text, words, err := tr.TranscribeWords(ctx, audio16)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, errors.New("interrupted")
		}
		return "", nil, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", nil, errors.New("whisper heard no words, so nothing was asked; hark transcribe FILE.wav shows what it hears in a recording")
	}
	return text, words, nil
}

// summary ends the transcript with Hark's own account of the request, as
// the app's notification does. When the model's answer claims what did
// not happen, Hark's account leads: the answer was held back (see
// printer.holding), so the summary and the flagged claim come first and
// the rest of the model's reply follows, marked as the model's. The
// model's words are made plain for a terminal as they are everywhere, and
// a sentence of theirs that only says nothing changed is left to Hark's
// line, as in the notification.
func (p *printer) summary(out agent.Outcome) {
	p.flushStream()
	t := out.Metrics.Tally()
	t.Undo = "hark undo"
	held := p.held.String()
	p.held.Reset()
	hark, model, flagged := agent.EndingParts(t, held)
	if t.Contradiction(out.Answer) != "" {
		ending := hark
		switch {
		case flagged && model != "":
			ending = "Hark: " + hark + "\n\nThe model's reply: " + model
		case flagged:
			ending = "Hark: " + hark
		case hark == "":
			ending = model
		case model != "":
			ending = hark + "\n\n" + model
		}
		p.endLine()
		p.write("\n")
		for _, line := range strings.Split(ending, "\n") {
			if strings.HasPrefix(line, "⚠") {
				line = p.paint(red, visible.Line(line))
			} else {
				line = visible.Text(line)
			}
			p.write(line + "\n")
		}
		return
	}
	if model != "" {
		p.write(visible.Text(model))
	}
	if t.Facts() == "" {
		p.endLine()
		return // a plain answer, no command proposed: nothing to add
	}
	p.endLine()
	p.write("\n" + t.Summary() + "\n")
}

// printer shows a request's progress as a readable transcript: the model's
// words as they stream, each proposed command with its tier, purpose and
// reasons, and a short line for each result. Everything in it but Hark's
// own words and colours comes from the model or a command, so it is
// rendered with package visible before it is written.
type printer struct {
	w           io.Writer
	atLineStart bool
	color       bool   // ANSI colours for tiers and marks
	home        string // written as ~, as commands write it

	// holding is set once a command that could change something has a
	// result: from then on the model's words are kept in held, not
	// streamed, until the next proposal or the end, where summary decides
	// whether Hark's own account must come before them.
	holding bool
	held    strings.Builder
	// stream renders the words that are not held, line by line; until
	// something could have changed, a line that only says nothing
	// changed is Hark's to say.
	stream mdStream
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

// flushHeld writes the model's words held so far, and the rest of those
// streamed.
func (p *printer) flushHeld() {
	p.flushStream()
	md := mdStream{}
	p.write(visible.Text(md.write(p.held.String()) + md.flush()))
	p.held.Reset()
}

// flushStream writes the rest of the streamed words: a line still
// without its line break, a table still without its last row's.
func (p *printer) flushStream() {
	p.write(visible.Text(p.stream.flush()))
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
			p.flushHeld()
			p.endLine()
			p.write("  (that was the model thinking)\n")
		}
		if p.holding {
			p.held.WriteString(ev.Text)
			return
		}
		p.stream.quiet = true
		p.write(visible.Text(p.stream.write(ev.Text)))
	case agent.EventProposed:
		c := ev.Call
		p.flushHeld() // words before a proposal are not the final answer
		p.endLine()
		p.write(fmt.Sprintf("  $ %s\n    %s · %s · in %s\n", commandBlock(c.Command, "  > "), visible.Line(c.Purpose),
			p.paint(tierColor(c.Tier), visible.Line(string(c.Tier))), visible.Line(app.Tilde(c.WorkingDirectory, p.home))))
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
		p.holding = p.holding || ev.Result.Tier != shell.Safe
	case agent.EventLoading, agent.EventThinking:
		p.endLine()
		p.write("  (" + visible.Line(ev.Text) + ")\n")
	case agent.EventRetry:
		p.endLine()
		p.write("  ! the model's reply was unusable, asking it again: " + visible.Line(ev.Text) + "\n")
	case agent.EventFinal:
		p.flushStream()
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
			p.write(fmt.Sprintf("  %s %s\n", mark, firstLine(trashForUser(r.Output))))
			if r.Error != "" {
				p.write(excerpt(r.Error, 5, "    "))
			}
			return
		}
		p.write(fmt.Sprintf("  %s not run: %s\n", p.paint(red, "✗"), firstLine(notRunForUser(r.Error))))
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

// askConversation is the conversation request goes to, by the app's rule
// (agent.ConversationFor) over the latest stored one unless fresh (--new)
// or cont (--continue) chose, and the note that says which it is when
// that could surprise: continuing one, or not continuing a recent one.
func askConversation(store *agent.Store, request string, fresh, cont bool, now time.Time) (*agent.Conversation, string) {
	if fresh {
		return agent.NewConversation(), ""
	}
	last, err := store.Latest()
	if err != nil {
		if cont {
			return agent.NewConversation(), "(no conversation to continue; this starts a new one)"
		}
		return agent.NewConversation(), ""
	}
	age := now.Sub(last.Updated)
	if cont {
		return last, continuingNote(last.Name(), age)
	}
	conv, continued := agent.ConversationFor(last, request, now)
	switch {
	case continued:
		return conv, continuingNote(last.Name(), age)
	case age < agent.FollowUpWindow:
		return conv, fmt.Sprintf("(a new conversation: this does not read as a follow-up to %s from %s; --continue adds it there)",
			conversationRef(last.Name()), agoText(age))
	}
	return conv, ""
}

// continuingNote names the conversation a follow-up continues by its title
// and age, so nobody continues one they cannot recognise.
func continuingNote(title string, age time.Duration) string {
	return fmt.Sprintf("(continuing %s from %s; --new starts a fresh one)", conversationRef(title), agoText(age))
}

// conversationRef is a conversation's name in quotes, for the notes.
func conversationRef(title string) string {
	if title = strings.TrimSpace(title); title == "" {
		return "the last conversation"
	}
	return "“" + title + "”"
}

func agoText(age time.Duration) string {
	switch m := int(age.Round(time.Minute) / time.Minute); {
	case m >= 2*24*60:
		return fmt.Sprintf("%d days ago", m/(24*60))
	case m >= 2*60:
		return fmt.Sprintf("%d hours ago", m/60)
	case m == 1:
		return "1 minute ago"
	case m > 1:
		return fmt.Sprintf("%d minutes ago", m)
	}
	return "just now"
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// The tool result is written for the model: it tells it what to do next
// ("Do not try the same change another way…"). The terminal shows the
// user the fact alone, in words addressed to them.

// notRunForUser keeps what happened from a not-run result's error.
func notRunForUser(msg string) string {
	const denied, deniedWhy = "The user denied this command", "The user denied this command: "
	switch {
	case strings.HasPrefix(msg, deniedWhy):
		return "you denied it: " + strings.TrimPrefix(msg, deniedWhy)
	case strings.HasPrefix(msg, denied):
		return "you denied it"
	}
	if i := strings.Index(msg, ". "); i >= 0 {
		return msg[:i+1]
	}
	return msg
}

// trashForUser keeps what was moved from a Move to Trash result, and
// names the way back as a terminal user would take it.
func trashForUser(out string) string {
	if i := strings.Index(out, " The command itself did not run."); i >= 0 {
		return out[:i] + " (hark undo puts it back)"
	}
	return out
}
