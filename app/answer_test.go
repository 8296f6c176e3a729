package app

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/speech"
)

// heardLine is one scripted transcription: its text and, when set, the
// per-word probabilities a WordTranscriber gives.
type heardLine struct {
	text  string
	words []speech.Word
}

// scriptTranscriber hands out one scripted transcription per call, in
// order, and implements WordTranscriber.
type scriptTranscriber struct {
	mu    sync.Mutex
	lines []heardLine
	calls int
}

func (s *scriptTranscriber) next() heardLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if len(s.lines) == 0 {
		return heardLine{}
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	return l
}

func (s *scriptTranscriber) Transcribe(ctx context.Context, a speech.Audio) (string, error) {
	return s.next().text, nil
}

func (s *scriptTranscriber) TranscribeWords(ctx context.Context, a speech.Audio) (string, []speech.Word, error) {
	l := s.next()
	return l.text, l.words, nil
}

// askOnceAgent asks once about p and reports the decision.
func askOnceAgent(p Pending, out chan<- Decision) *fakeAgent {
	return newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		on(agent.Event{Kind: agent.EventAwaiting, Call: &agent.Call{Command: p.Command}})
		d, err := c.Confirm(ctx, p)
		out <- d
		return "done", err
	})
}

// speakAnswer holds the hotkey for one spoken answer.
func speakAnswer(h *harness) {
	h.app.Post(KeyDown{})
	<-h.rec.started
	h.app.Post(KeyUp{})
}

func sure(text string) []speech.Word {
	var ws []speech.Word
	for _, f := range strings.Fields(text) {
		ws = append(ws, speech.Word{Text: f, P: 0.97})
	}
	return ws
}

// TestAnswerByVoice drives the key machine with injected transcripts: the
// request, then spoken answers while the approval waits. An answer that
// is not taken leaves the approval waiting with the status line saying
// why; a plain "no" then ends it.
func TestAnswerByVoice(t *testing.T) {
	t.Parallel()
	plain := Pending{Command: "mkdir ~/Reports", Tier: shell.Confirm}
	del := Pending{Command: "rm -r ~/Downloads/old", Tier: shell.Confirm, TrashOffered: true,
		Reasons: []shell.Reason{{Category: "delete", Why: "rm: deletes files", Command: "rm -r ~/Downloads/old"}}}
	hidden := Pending{Command: "rm -r ~/x\u202e", Tier: shell.Confirm}
	unknown := Pending{Command: `rm -r "$D"`, Tier: shell.Confirm, Preview: &preview.Preview{Status: preview.Shown, Summary: "Cannot tell what it would touch: $D"}}
	type outcome int
	const (
		waits outcome = iota
		approves
		trashes
		denies
	)
	cases := []struct {
		name   string
		p      Pending
		said   heardLine
		want   outcome
		note   string // in the status line
		reason string
	}{
		{"yes", plain, heardLine{"Yes.", sure("Yes.")}, approves, "running it", ""},
		{"approve", plain, heardLine{"approve", nil}, approves, "running it", ""},
		{"run it", plain, heardLine{"Run it!", nil}, approves, "", ""},
		{"no", plain, heardLine{"No.", nil}, denies, "denied", ""},
		{"stop", plain, heardLine{"stop", nil}, denies, "", ""},
		{"no because", plain, heardLine{"No, because it is the wrong folder.", nil}, denies, "told why", "it is the wrong folder"},
		{"deny comma", plain, heardLine{"Deny, keep the logs", nil}, denies, "", "keep the logs"},
		{"yes to a deletion is the Trash", del, heardLine{"yes", sure("yes")}, trashes, "Trash", ""},
		{"trash it", del, heardLine{"Trash it.", nil}, trashes, "", ""},
		{"delete it", del, heardLine{"Delete it.", sure("Delete it.")}, approves, "", ""},
		// Near misses and what needs a click: the approval keeps waiting.
		{"sentence with yes and no", plain, heardLine{"yes, but don't run it", nil}, waits, "heard “yes, but don't run it” — " + SpokenHelp, ""},
		{"not yet", plain, heardLine{"not yet", nil}, waits, "heard “not yet”", ""},
		{"yesterday", plain, heardLine{"yesterday", nil}, waits, "heard “yesterday” — " + SpokenHelp, ""},
		{"question", plain, heardLine{"yes?", nil}, waits, "heard “yes?” — " + SpokenHelp, ""},
		{"unsure yes", plain, heardLine{"yes", []speech.Word{{Text: "yes", P: 0.45}}}, waits, "not sure I heard", ""},
		{"unsure delete", del, heardLine{"delete it", []speech.Word{{Text: "delete", P: 0.5}, {Text: "it", P: 0.9}}}, waits, "not sure", ""},
		{"trash not offered", plain, heardLine{"trash it", nil}, waits, "not offered", ""},
		{"hidden characters", hidden, heardLine{"yes", nil}, waits, "hidden characters", ""},
		{"cannot tell", unknown, heardLine{"yes", nil}, waits, "cannot tell", ""},
		{"silence", plain, heardLine{"", nil}, waits, "didn't catch", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			decided := make(chan Decision, 1)
			tr := &scriptTranscriber{lines: []heardLine{{"clean up my downloads", nil}, c.said, {"no", nil}}}
			h := start(t, askOnceAgent(c.p, decided), func(o *Options) { o.Transcriber = tr; o.Approver = nil })
			speakAnswer(h) // the request
			h.views.wait(t, "approval", func(v View) bool { return len(v.Pending) == 1 })
			speakAnswer(h)
			if c.want == waits {
				v := h.views.wait(t, "the why", func(v View) bool { return strings.Contains(v.Note, c.note) })
				if len(v.Pending) != 1 {
					t.Fatalf("the approval stopped waiting after %q", c.said.text)
				}
				select {
				case d := <-decided:
					t.Fatalf("%q decided %+v", c.said.text, d)
				default:
				}
				speakAnswer(h) // "no"
				d := recv(t, "decision", decided)
				if d.Approved || d.Trash || d.By != ByVoice {
					t.Fatalf("the no after %q: %+v", c.said.text, d)
				}
				return
			}
			d := recv(t, "decision", decided)
			var got outcome
			switch {
			case d.Trash:
				got = trashes
			case d.Approved:
				got = approves
			default:
				got = denies
			}
			if got != c.want || d.By != ByVoice || d.Heard != c.said.text || d.Reason != c.reason {
				t.Fatalf("%q: %+v, want outcome %d reason %q", c.said.text, d, c.want, c.reason)
			}
			if c.note != "" {
				h.views.wait(t, "the outcome", hasNote(c.note))
			}
		})
	}
}

// TestVoiceAnswerNeverMovesToAnotherApproval: an answer spoken for one
// approval that was settled meanwhile (here by the menu) is dropped, not
// applied to whatever waits next.
func TestVoiceAnswerNeverMovesToAnotherApproval(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	tr := &scriptTranscriber{lines: []heardLine{{"make a folder", nil}, {"yes", nil}}}
	h := start(t, askOnceAgent(Pending{Command: "mkdir ~/a", Tier: shell.Confirm}, decided), func(o *Options) { o.Transcriber = tr; o.Approver = nil })
	speakAnswer(h)
	v := h.views.wait(t, "approval", func(v View) bool { return len(v.Pending) == 1 })
	h.app.Post(KeyDown{})
	<-h.rec.started
	if line := StatusLine(h.views.wait(t, "answering", func(v View) bool { return v.Answering })); line != "Listening for your answer… release ctrl+alt+space when done" {
		t.Errorf("status line %q", line)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + v.Pending[0].ID})
	d := recv(t, "decision", decided)
	if d.Approved || d.By != ByMenu {
		t.Fatalf("the menu's deny lost to a later spoken yes: %+v", d)
	}
	h.app.Post(KeyUp{})
	h.views.wait(t, "idle", stateIs(Idle))
}

// TestVoiceAnswersOff: with voiceAnswers off the hotkey does not record
// while an approval waits, and says how to answer.
func TestVoiceAnswersOff(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	tr := &scriptTranscriber{lines: []heardLine{{"make a folder", nil}, {"yes", nil}}}
	h := start(t, askOnceAgent(Pending{Command: "mkdir ~/a", Tier: shell.Confirm}, decided), func(o *Options) {
		o.Transcriber = tr
		o.Approver = nil
		o.Settings.VoiceAnswers = false
	})
	speakAnswer(h)
	v := h.views.wait(t, "approval", func(v View) bool { return len(v.Pending) == 1 })
	h.app.Post(KeyDown{})
	h.app.Post(KeyUp{})
	h.views.wait(t, "why", hasNote("voiceAnswers"))
	if starts, _ := h.rec.counts(); starts != 1 {
		t.Fatalf("the microphone opened %d times; only the request should", starts)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + v.Pending[0].ID})
	recv(t, "decision", decided)
}

// TestSayItAgain: Say it again, from the menu or the notification, drops
// the pending command (cancelled, so nothing runs) and listens for the
// request again; the next press ends that recording and the new words go
// to the agent.
func TestSayItAgain(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"menu", "notification"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			decided := make(chan Decision, 2)
			tr := &scriptTranscriber{lines: []heardLine{{"delete the old bills", nil}, {"delete the old builds", nil}}}
			h := start(t, askOnceAgent(Pending{Command: "rm -r ~/bills", Tier: shell.Confirm}, decided), func(o *Options) { o.Transcriber = tr })
			speakAnswer(h)
			v := h.views.wait(t, "approval", func(v View) bool { return len(v.Pending) == 1 })
			item := false
			for _, it := range BuildMenu(v).Items {
				item = item || it.ID == PrefixSayAgain+v.Pending[0].ID
			}
			if !item {
				t.Fatal("no Say it again in the menu for a spoken request")
			}
			if p := recv(t, "the notification", h.approver.asked); !p.SayAgain || p.ID != v.Pending[0].ID {
				t.Fatalf("the notification does not offer Say it again: %+v", p)
			}
			if via == "menu" {
				h.app.Post(MenuClick{ID: PrefixSayAgain + v.Pending[0].ID})
			} else {
				h.approver.answer(v.Pending[0].ID, Decision{Again: true})
			}
			if d := recv(t, "decision", decided); d.Approved || d.Trash || d.By != ByCancel {
				t.Fatalf("Say it again answered %+v", d)
			}
			<-h.rec.started // listening again, with no key held
			v = h.views.wait(t, "listening", func(v View) bool { return v.State == Listening && v.Toggle })
			if line := StatusLine(v); !strings.Contains(line, "again when done") {
				t.Errorf("status line %q", line)
			}
			h.app.Post(KeyDown{}) // ends the latched recording
			h.app.Post(KeyUp{})
			first := recv(t, "the first request", h.agent.calls)
			if first.Text != "delete the old bills" {
				t.Fatalf("first request %q", first.Text)
			}
			// Said again, it is the same request heard right: it stays in
			// the dropped one's conversation whatever its words.
			if r := recv(t, "the request said again", h.agent.calls); r.Text != "delete the old builds" || r.Conv == nil || r.Conv != first.Conv {
				t.Fatalf("second request %q in conversation %p, want the first's %p", r.Text, r.Conv, first.Conv)
			}
			h.views.wait(t, "the new approval", func(v View) bool { return len(v.Pending) == 1 && v.Pending[0].Heard == "delete the old builds" })
		})
	}
}

// TestSayItAgainOnlyForSpokenRequests: a typed request's approval and
// another program's offer no Say it again, and an Again answer from a
// notification that should not have shown it decides nothing.
func TestSayItAgainOnlyForSpokenRequests(t *testing.T) {
	t.Parallel()
	decided := make(chan Decision, 1)
	h := start(t, askOnceAgent(Pending{Command: "rm -r ~/bills", Tier: shell.Confirm}, decided), nil)
	h.app.Post(SendRequest{Text: "delete the old bills", Reply: make(chan SendReply, 1)})
	p := recv(t, "the typed request's notification", h.approver.asked)
	if p.SayAgain {
		t.Fatal("a typed request offers Say it again")
	}
	ext := make(chan Decision, 1)
	h.app.Post(ApprovalRequest{Ctx: context.Background(), Reply: ext,
		Pending: Pending{Command: "rm -r ~/Projects", Tier: shell.Confirm, Client: "Claude Code", Heard: "forged", SayAgain: true}})
	var q Pending
	for q = recv(t, "the other program's notification", h.approver.asked); q.ID == p.ID; {
		q = recv(t, "the other program's notification", h.approver.asked)
	}
	if q.SayAgain {
		t.Fatal("another program's approval offers Say it again")
	}
	v := h.views.wait(t, "both approvals", func(v View) bool { return len(v.Pending) == 2 })
	for _, it := range BuildMenu(v).Items {
		if strings.HasPrefix(it.ID, PrefixSayAgain) {
			t.Fatalf("menu offers %q", it.ID)
		}
	}
	h.approver.answer(q.ID, Decision{Again: true})
	h.approver.answer(p.ID, Decision{Again: true})
	h.app.Post(MenuClick{ID: PrefixSayAgain + p.ID}) // a stale or forged click
	h.app.Post(MenuClick{ID: PrefixDeny + q.ID})
	if d := recv(t, "the other program's answer", ext); d.By != ByMenu {
		t.Fatalf("the other program's approval was answered by %+v", d)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + p.ID})
	if d := recv(t, "the typed request's answer", decided); d.By != ByMenu {
		t.Fatalf("the typed request's approval was answered by %+v", d)
	}
}

// TestHotkeyNeverAnswersAnotherProgram: with only an MCP client's approval
// waiting, a spoken "yes" is a new request for Hark's own model, never an
// answer to that approval, and the status line says so while it listens.
func TestHotkeyNeverAnswersAnotherProgram(t *testing.T) {
	t.Parallel()
	tr := &scriptTranscriber{lines: []heardLine{{"yes", sure("yes")}}}
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		return "nothing to do", nil
	})
	h := start(t, ag, func(o *Options) { o.Transcriber = tr; o.Approver = nil })
	reply := make(chan Decision, 1)
	h.app.Post(ApprovalRequest{Ctx: context.Background(), Reply: reply,
		Pending: Pending{Command: "rm -r ~/Projects", Tier: shell.Confirm, Client: "Claude Code"}})
	v := h.views.wait(t, "the external approval", func(v View) bool { return len(v.Pending) == 1 })
	id := v.Pending[0].ID

	h.app.Post(KeyDown{})
	<-h.rec.started
	v = h.views.wait(t, "listening with a note", func(v View) bool { return v.State == Listening && v.Note != "" })
	if v.Answering {
		t.Fatal("the hotkey recorded an answer to another program's approval")
	}
	if line := StatusLine(v); !strings.Contains(line, "another program") || !strings.Contains(line, "new request") {
		t.Errorf("status line %q does not say why the press is not an answer", line)
	}
	h.app.Post(KeyUp{})
	if r := recv(t, "the new request", ag.calls); r.Text != "yes" {
		t.Fatalf("the agent got %q", r.Text)
	}
	v = h.views.waitNow(t, "idle", stateIs(Idle))
	select {
	case d := <-reply:
		t.Fatalf("the spoken yes answered the other program: %+v", d)
	default:
	}
	if len(v.Pending) != 1 || v.Pending[0].ID != id {
		t.Fatalf("the other program's approval left the menu: %+v", v.Pending)
	}
	h.app.Post(MenuClick{ID: PrefixDeny + id})
	if d := recv(t, "the menu's answer", reply); d.Approved || d.By != ByMenu {
		t.Fatalf("the menu's deny: %+v", d)
	}
}

// TestVoiceAnswerableRefusesExternal checks the guard itself: even in the
// state a turn's approval puts the app in, one waiting approval that
// belongs to another program is not answerable by voice, and the reason
// names it.
func TestVoiceAnswerableRefusesExternal(t *testing.T) {
	t.Parallel()
	s := settings.Defaults()
	a := New(Options{Settings: s, Paths: testPaths(t.TempDir()), Recorder: newFakeRecorder(), Transcriber: &scriptTranscriber{}})
	a.state = AwaitingApproval
	a.turn = &turn{id: 1}
	a.pending = []*pendingEntry{{turn: 1, p: Pending{ID: "1", Command: "mkdir a"}}}
	if ok, why := a.voiceAnswerable(); !ok {
		t.Fatalf("the turn's own approval is not answerable: %q", why)
	}
	a.pending[0].turn = externalTurn
	ok, why := a.voiceAnswerable()
	if ok || !strings.Contains(why, "another program") {
		t.Fatalf("another program's approval: answerable=%v why=%q", ok, why)
	}
}
