package app

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

// invitesSpeech reports text that asks the person to talk to Hark.
func invitesSpeech(s string) bool {
	low := strings.ToLower(s)
	for _, w := range []string{"say yes", "say no", "or say", "and speak", "say it", "hold ctrl", "press ctrl", "speak."} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// listenCase is one way Hark can or cannot listen, as the app is built.
type listenCase struct {
	name    string
	canHear bool
	edit    func(*Options)
	problem *Problem
}

var listenCases = []listenCase{
	{name: "voice works", canHear: true},
	{name: "build without whisper", edit: func(o *Options) { o.Recorder, o.Transcriber = nil, nil }},
	{name: "no transcriber", edit: func(o *Options) { o.Transcriber = nil }},
	{name: "microphone problem", problem: &Problem{Source: "microphone", Message: "no input device"}},
	{name: "hotkey problem", problem: &Problem{Source: "hotkey", Message: "no X display"}},
	{name: "speech model problem", problem: &Problem{Source: "transcriber", Message: "model file missing"}},
}

// Every surface that could invite speech — the spoken approval's prompt,
// the ready line and its tooltip, Say it again, the download-done
// notification — reads the one "can listen" state: it invites speech
// exactly when Hark can hear it.
func TestSpeechInvitationsFollowTheListenState(t *testing.T) {
	t.Parallel()
	for _, c := range listenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkSpokenApproval(t, c)
			checkReadyAndDownload(t, c)
		})
	}
}

func (c listenCase) options(o *Options) {
	if c.edit != nil {
		c.edit(o)
	}
}

func (c listenCase) post(t *testing.T, h *harness) {
	if c.problem != nil {
		m := h.views.mark()
		h.app.Post(*c.problem)
		h.views.waitFrom(t, m, "the problem", func(v View) bool { _, ok := v.Problems[c.problem.Source]; return ok })
	}
}

func checkSpokenApproval(t *testing.T, c listenCase) {
	decided := make(chan Decision, 1)
	for _, p := range []Pending{
		{ID: "", Command: "mkdir ~/Reports", Tier: shell.Confirm},
		{ID: "", Command: "rm ~/old.txt", Tier: shell.Confirm, TrashOffered: true},
		{ID: "", Command: "rm ~/old\u200b.txt", Tier: shell.Confirm},
	} {
		sp := newFakeSpeaker(nil)
		h := start(t, askOnceAgent(p, decided), func(o *Options) {
			o.Approver = nil
			o.Speaker = sp
			o.Settings.Speak = true
			c.options(o)
		})
		c.post(t, h)
		m := h.views.mark()
		reply := make(chan SendReply, 1)
		h.app.Post(SendRequest{Text: "do it", Reply: reply})
		recv(t, "the description", sp.started)
		sp.finish <- struct{}{}
		prompt := recv(t, "the prompt", sp.started)
		sp.finish <- struct{}{}
		if invitesSpeech(prompt) != c.canHear {
			t.Errorf("%s: spoken prompt %q (can hear: %v)", p.Command, prompt, c.canHear)
		}
		if !c.canHear && !strings.Contains(prompt, "menu or the notification") {
			t.Errorf("%s: prompt %q does not say where to answer", p.Command, prompt)
		}
		h.app.Post(MenuClick{ID: PrefixDeny + h.views.wait(t, "pending", func(v View) bool { return len(v.Pending) == 1 }).Pending[0].ID})
		recv(t, "decision", decided)
		recv(t, "reply", reply)
		v := h.views.waitFrom(t, m, "idle", stateIs(Idle))
		if got := v.CantListen == ""; got != c.canHear {
			t.Errorf("view says can listen %v, want %v", got, c.canHear)
		}
	}
}

func checkReadyAndDownload(t *testing.T, c listenCase) {
	model := agent.DefaultModel
	h := startPull(t, model, ollamatest.Pull{Layers: []int64{2_400_000_000, 100_000_000}}, c.options)
	c.post(t, h.harness)
	h.offered(t, "the offer", "    Download "+model+" (2.5 GB)")
	m0 := h.views.mark()
	h.app.Post(MenuClick{ID: PrefixDownload + model})
	n := recv(t, "the end's notification", h.notifier.got)
	if invitesSpeech(n.body) != c.canHear {
		t.Errorf("download-done notification %q (can hear: %v)", n.body, c.canHear)
	}
	if !c.canHear && !strings.Contains(n.body, "hark send") {
		t.Errorf("download-done notification %q does not say how to ask instead", n.body)
	}
	v := h.views.waitFrom(t, m0, "the model there", func(v View) bool { _, ok := v.Problems["ollama"]; return !ok && v.Pull == nil })
	m := BuildMenu(v)
	for _, s := range []string{StatusLine(v), m.Tooltip} {
		if invitesSpeech(s) != c.canHear {
			t.Errorf("menu text %q (can hear: %v)", s, c.canHear)
		}
	}
	// Say it again is a request to speak: offered only where it is heard.
	v.Pending = []Pending{{ID: "p1", Command: "mkdir x", Tier: shell.Confirm, SayAgain: true}}
	_, offered := itemWithID(BuildMenu(v), PrefixSayAgain+"p1")
	if offered != c.canHear {
		t.Errorf("Say it again offered %v (can hear: %v)", offered, c.canHear)
	}
}

// A spoken approval never asks for a voice answer the app would not take:
// with voiceAnswers off it names the menu instead.
func TestSpokenPromptWithVoiceAnswersOff(t *testing.T) {
	t.Parallel()
	sp := newFakeSpeaker(nil)
	decided := make(chan Decision, 1)
	h := start(t, askOnceAgent(Pending{Command: "mkdir ~/Reports", Tier: shell.Confirm}, decided), func(o *Options) {
		o.Approver = nil
		o.Speaker = sp
		o.Settings.Speak = true
		o.Settings.VoiceAnswers = false
	})
	h.app.Post(SendRequest{Text: "make a folder", Reply: make(chan SendReply, 1)})
	recv(t, "the description", sp.started)
	sp.finish <- struct{}{}
	if prompt := recv(t, "the prompt", sp.started); prompt != noVoiceAnswer {
		t.Errorf("prompt %q with voiceAnswers off", prompt)
	}
	sp.finish <- struct{}{}
	h.app.Post(MenuClick{ID: PrefixDeny + h.views.wait(t, "pending", func(v View) bool { return len(v.Pending) == 1 }).Pending[0].ID})
	recv(t, "decision", decided)
}
