package app

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/visible"
)

// Speaker reads text aloud (desktop.Speaker runs say, spd-say, espeak-ng
// or piper). Speak blocks until the speech has finished or ctx ends; when
// ctx ends it must stop the sound at once and return only once nothing
// more will be heard, because the microphone opens right after. The core
// calls it on a goroutine of its own, one text at a time.
type Speaker interface {
	Speak(ctx context.Context, text string) error
}

// speechRun is speech under way; the loop owns it.
type speechRun struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when Speak has returned for the last part
	key    string        // the pending ID it describes, "" for other speech
}

// Events from the speaking goroutine.
type (
	// speechPart: part i of the speech for key was heard to its end.
	speechPart struct {
		run  *speechRun
		part int
	}
	speechEnded struct {
		run *speechRun
		err error
	}
)

func (speechPart) isEvent()  {}
func (speechEnded) isEvent() {}

// bargeInWait bounds how long a press waits for speech to fall silent
// before it opens the microphone; a Speaker that honours ctx takes
// milliseconds.
const bargeInWait = 500 * time.Millisecond

// speakOn reports whether Hark reads things aloud now.
func (a *App) speakOn() bool { return a.settings.Speak && a.o.Speaker != nil }

// say reads parts aloud one after another, after stopping whatever was
// being said. key names the approval the parts describe ("" for other
// speech); the first part of an approval is its description, and a
// spoken answer runs it only if that part was heard to its end. Nothing
// is said while the microphone is open.
func (a *App) say(parts ...string) { a.sayFor("", parts...) }

func (a *App) sayFor(key string, parts ...string) {
	if !a.speakOn() || a.answer != nil || a.listening() {
		return
	}
	a.bargeIn()
	ctx, cancel := context.WithCancel(context.Background())
	run := &speechRun{cancel: cancel, done: make(chan struct{}), key: key}
	a.speaking = run
	if key != "" {
		a.described[key] = false
	}
	a.syncEscape()
	sp, loop := a.o.Speaker, a.loop
	go func() {
		defer close(run.done)
		defer cancel()
		var err error
		for i, p := range parts {
			if strings.TrimSpace(p) == "" {
				continue
			}
			if err = sp.Speak(ctx, p); err != nil {
				break
			}
			loop.post(speechPart{run: run, part: i})
		}
		loop.post(speechEnded{run: run, err: err})
	}()
}

// bargeIn stops speech at once and waits (briefly) until it is silent,
// so what it said never reaches the microphone.
func (a *App) bargeIn() {
	run := a.speaking
	if run == nil {
		return
	}
	a.speaking = nil
	run.cancel()
	t := time.NewTimer(bargeInWait)
	defer t.Stop()
	select {
	case <-run.done:
	case <-t.C:
		a.log.Warn("speech did not stop within the barge-in wait")
	}
	a.syncEscape()
}

func (a *App) speechPartDone(e speechPart) {
	if e.part == 0 && e.run.key != "" {
		a.described[e.run.key] = true
	}
}

func (a *App) speechDone(e speechEnded) {
	if a.speaking == e.run {
		a.speaking = nil
		a.syncEscape()
	}
	if e.err != nil && !errors.Is(e.err, context.Canceled) && !a.keys.speakFailed {
		a.keys.speakFailed = true
		a.log.Warn("speaking failed; no more speech errors are logged", "err", e.err)
		a.note = "could not speak: " + e.err.Error()
		a.renderNow()
	}
}

// cutShort reports an approval whose spoken description was stopped
// before its end: a spoken answer must not run what was not heard.
func (a *App) cutShort(id string) bool {
	heard, spoken := a.described[id]
	return spoken && !heard
}

// SpokenApproval is what Hark says about p: what it deletes or overwrites
// first, then the warnings that need a click. How to answer is
// answerPrompt's alone, which knows whether Hark can listen now. The
// command itself is read only where nothing shorter says what it does.
func SpokenApproval(p Pending, home string) string {
	var b []string
	if c := spokenClient(p.Client); c != "" {
		b = append(b, c+" wants to run a command.")
	}
	switch {
	case p.AfterNo != "" && p.AfterTimeout:
		b = append(b, "After the last one timed out, the model proposes another command.")
	case p.AfterNo != "":
		b = append(b, "After your no, the model proposes another command.")
	}
	if p.HeardDoubt != "" {
		b = append(b, p.HeardDoubt+".")
	}
	if visible.Hidden(p.Command) || visible.Hidden(p.WorkingDirectory) {
		b = append(b, "Warning: this command holds hidden characters.")
	}
	if pv := p.Preview; pv != nil && pv.Summary != "" {
		b = append(b, sentence(Visible(pv.Summary)))
	}
	for _, l := range ScopeLines(p, home) {
		b = append(b, sentence(strings.TrimPrefix(Visible(l), "⚠ ")))
	}
	parts := DestructiveParts(p)
	for i, r := range parts {
		if i == 3 {
			b = append(b, plural(len(parts)-3, "more part deletes or overwrites", "more parts delete or overwrite")+".")
			break
		}
		b = append(b, sentence(spokenReason(r, home)))
	}
	if len(parts) == 0 {
		b = append(b, "Run "+clip(spokenCommand(Visible(p.Command), home), 160)+"?")
	} else {
		b = append(b, "Run it?")
	}
	if wd := Tilde(p.WorkingDirectory, home); wd != "" && wd != "~" {
		b = append(b, "In "+spokenFolder(Visible(p.WorkingDirectory), home)+".")
	}
	return strings.Join(b, " ")
}

// spokenReason says what one part of a command does and the part itself.
// A reason that opens with its part ("> ~/notes.txt: overwrites a file")
// says the part once, as a place.
func spokenReason(r shell.Reason, home string) string {
	part := strings.TrimSpace(r.Command)
	why := Visible(r.Why)
	if rest, ok := strings.CutPrefix(r.Why, part+": "); ok && part != "" {
		return spokenCommand(Visible(part), home) + ": " + speakable(Visible(rest))
	}
	return speakable(why) + ": " + spokenCommand(Visible(part), home)
}

// spokenClient names the program that asked for an approval as another
// program, so that it is never heard as Hark's own request: its name is
// its own claim, and one calling itself Hark is said to be only that,
// by the same reading of the name as the menu and notification use, so
// a lookalike heard as "Hark" is never announced as plainly as another.
func spokenClient(client string) string {
	c := strings.Join(strings.Fields(Visible(client)), " ")
	if c == "" {
		return ""
	}
	c = clip(c, 40)
	if namesHark(client) {
		return "Another program that calls itself " + c
	}
	return "Another program, " + c + ","
}

// sentence ends s with a full stop unless it ends a sentence already.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".?!") {
		return s
	}
	return s + "."
}

// speakable writes a path or command so a voice reads it: ~ as "home",
// slashes as spaces.
func speakable(s string) string {
	s = strings.ReplaceAll(s, "~/", "home ")
	if s == "~" {
		return "home"
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "/", " / ")), " ")
}

// maxSpokenAnswer is about 30 seconds of speech at an ordinary pace.
const maxSpokenAnswer = 450

var (
	fenceRe   = regexp.MustCompile("(?s)```.*?(```|$)")
	codeRe    = regexp.MustCompile("`[^`\n]*`")
	linkRe    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	markRe    = regexp.MustCompile(`(?m)^\s{0,3}(#{1,6}\s+|[-*+]\s+|>\s?|\d+[.)]\s+)`)
	tableRe   = regexp.MustCompile(`(?m)^\s*\|.*\|\s*$`)
	sentEndRe = regexp.MustCompile(`[.!?…](\s|$)`)
)

// SpokenAnswer is the final answer as Hark says it: Markdown stripped,
// code and command output left out (a code block is said as "the output
// is in the menu"), at most about 30 seconds, cut at a sentence.
func SpokenAnswer(text string) string {
	text = fenceRe.ReplaceAllString(text, " (the output is in the menu) ")
	text = tableRe.ReplaceAllString(text, " (a table is in the menu) ")
	// Only real emphasis goes, before code loses its backticks: a name
	// is heard as written, underscores and all.
	text = agent.StripEmphasis(text)
	text = codeRe.ReplaceAllStringFunc(text, func(c string) string {
		inner := strings.Trim(c, "`")
		if strings.ContainsAny(inner, "|;&<>$") {
			return "(shown in the menu)"
		}
		if n := utf8.RuneCountInString(inner); n <= 24 || n <= 80 && !strings.ContainsAny(inner, " \t") {
			return inner // a word, a file name or a path reads fine
		}
		return "(shown in the menu)"
	})
	text = strings.ReplaceAll(text, "⚠", "Warning:")
	text = linkRe.ReplaceAllString(text, "$1")
	text = markRe.ReplaceAllString(text, "")
	text = Visible(strings.Join(strings.Fields(text), " "))
	if len(text) <= maxSpokenAnswer {
		return text
	}
	cut := text[:maxSpokenAnswer]
	if locs := sentEndRe.FindAllStringIndex(cut, -1); len(locs) > 0 && locs[len(locs)-1][0] > maxSpokenAnswer/3 {
		return cut[:locs[len(locs)-1][0]+1] + " The rest is in the menu."
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return strings.ToValidUTF8(cut, "") + "… The rest is in the menu."
}

// schemeRe is the scheme of a web address, which a voice spells out.
var schemeRe = regexp.MustCompile(`\bhttps?://`)

// SpokenFailure is a failed request as Hark says it: whoever relies on
// speech hears that it failed and why, as they hear an answer.
func SpokenFailure(text string) string {
	return "Request failed: " + SpokenAnswer(schemeRe.ReplaceAllString(text, ""))
}
