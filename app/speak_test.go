package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// fakeSpeaker records what it was asked to say and "plays" each text
// until finish is called or its context ends, like a speech program that
// is stopped. log, shared with a recorder, orders speech and capture.
type fakeSpeaker struct {
	mu      sync.Mutex
	said    []string
	stopped []string // texts cut short by their context
	started chan string
	finish  chan struct{}
	log     *eventLog
	// silentAt, when set, receives the time each speech was stopped.
	silentAt chan time.Time
}

func newFakeSpeaker(log *eventLog) *fakeSpeaker {
	return &fakeSpeaker{started: make(chan string, 16), finish: make(chan struct{}, 16), log: log}
}

func (f *fakeSpeaker) Speak(ctx context.Context, text string) error {
	f.mu.Lock()
	f.said = append(f.said, text)
	f.mu.Unlock()
	f.log.add("speak")
	f.started <- text
	select {
	case <-f.finish:
		f.log.add("spoke")
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		f.stopped = append(f.stopped, text)
		f.mu.Unlock()
		f.log.add("silent")
		if f.silentAt != nil {
			f.silentAt <- time.Now()
		}
		return ctx.Err()
	}
}

func (f *fakeSpeaker) cut() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.stopped...)
}

type eventLog struct {
	mu sync.Mutex
	ev []string
}

func (l *eventLog) add(e string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.ev = append(l.ev, e)
	l.mu.Unlock()
}

func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.ev, " ")
}

// loggingRecorder notes each Start in log.
type loggingRecorder struct {
	*fakeRecorder
	log *eventLog
}

func (r loggingRecorder) Start(ctx context.Context) error {
	r.log.add("mic")
	return r.fakeRecorder.Start(ctx)
}

func TestSpokenApprovalSaysTheDangerFirst(t *testing.T) {
	t.Parallel()
	p := Pending{
		Command: "cd ~/Downloads && ls && rm -r old-bills\u202e", TrashOffered: true,
		Reasons:    []shell.Reason{{Category: "delete", Why: "rm: deletes files", Command: "rm -r old-bills\u202e"}},
		Preview:    &preview.Preview{Status: preview.Shown, Summary: "Would delete 3 folders in Downloads"},
		HeardDoubt: "Hark was not sure it heard “bills”, and this command deletes or overwrites what it names",
	}
	desc, prompt := SpokenApproval(p, "/home/u"), answerPrompt(p, true)
	for _, want := range []string{"not sure it heard “bills”", "hidden characters", "Would delete 3 folders in Downloads", "rm: deletes files", "old-bills"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description %q does not say %q", desc, want)
		}
	}
	if strings.Index(desc, "not sure") > strings.Index(desc, "Would delete") || strings.Index(desc, "hidden") > strings.Index(desc, "Would delete") {
		t.Errorf("the warnings do not come first: %q", desc)
	}
	if !strings.Contains(prompt, "click") {
		t.Errorf("a command with hidden characters must be answered with a click: %q", prompt)
	}
	p.Command, p.Reasons[0].Command, p.HeardDoubt = "rm -r ~/Downloads/old", "rm -r ~/Downloads/old", ""
	desc, prompt = SpokenApproval(p, "/home/u"), answerPrompt(p, true)
	if strings.Contains(desc, "hidden") || !strings.Contains(desc, "rm -r old in your home folder, Downloads") {
		t.Errorf("description %q", desc)
	}
	if prompt != "Say yes to move it to the Trash, delete it to delete, or no." {
		t.Errorf("prompt %q", prompt)
	}
	prompt = answerPrompt(Pending{Command: "mkdir x"}, true)
	if prompt != "Say yes or no." {
		t.Errorf("prompt %q", prompt)
	}
}

func TestSpokenAnswerText(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ in, want string }{
		"markdown":  {"## Done\n\n**Moved** 3 files to `~/Old`. See [the log](file:///x).", "Done Moved 3 files to ~/Old. See the log."},
		"list":      {"- one\n- two\n1. three", "one two three"},
		"output":    {"Here is the listing:\n```\na.txt\nb.txt\n```\nThat is all.", "Here is the listing: (the output is in the menu) That is all."},
		"long code": {"Run `find . -name '*.log' | xargs rm` next.", "Run (shown in the menu) next."},
		"table":     {"Sizes:\n| a | 1 |\n| b | 2 |", "Sizes: (a table is in the menu) (a table is in the menu)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := SpokenAnswer(c.in); got != c.want {
				t.Errorf("SpokenAnswer(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	long := strings.Repeat("This sentence is about forty characters. ", 40)
	got := SpokenAnswer(long)
	if len(got) > maxSpokenAnswer+40 || !strings.HasSuffix(got, "The rest is in the menu.") || !strings.Contains(got, "characters. The rest") {
		t.Errorf("a long answer is not cut at a sentence: %d bytes, %q", len(got), got[max(0, len(got)-80):])
	}
}

// TestSpeechBargeIn: with speak on, the approval is read aloud; the
// hotkey stops the speech before the microphone opens, and a yes after a
// description cut short runs nothing — the no that follows is taken.
func TestSpeechBargeIn(t *testing.T) {
	t.Parallel()
	log := &eventLog{}
	sp := newFakeSpeaker(log)
	decided := make(chan Decision, 1)
	tr := &scriptTranscriber{lines: []heardLine{{"make a folder", nil}, {"yes", nil}, {"no", nil}}}
	p := Pending{Command: "mkdir ~/Reports", Tier: shell.Confirm}
	h := start(t, askOnceAgent(p, decided), func(o *Options) {
		o.Transcriber = tr
		o.Approver = nil
		o.Speaker = sp
		o.Settings.Speak = true
	})
	h.app.o.Recorder = loggingRecorder{h.rec, log}
	speakAnswer(h)
	desc := recv(t, "the description", sp.started)
	if !strings.Contains(desc, "mkdir") {
		t.Fatalf("the description %q does not name the command", desc)
	}
	// The description is still playing: the press stops it.
	speakAnswer(h)
	if cut := sp.cut(); len(cut) != 1 || cut[0] != desc {
		t.Fatalf("the press did not stop the speech: cut %q", cut)
	}
	if l := log.String(); !strings.Contains(l, "speak silent mic") {
		t.Fatalf("the microphone opened before the speech stopped: %s", l)
	}
	h.views.wait(t, "the refusal", hasNote("stopped before its end"))
	// The refusal is said too, and the next press stops that as well.
	recv(t, "the refusal spoken", sp.started)
	speakAnswer(h)
	d := recv(t, "decision", decided)
	if d.Approved || d.By != ByVoice {
		t.Fatalf("after a cut-short description: %+v", d)
	}
}

// TestSpeechHeardToTheEndLetsYesRun: once the description has been heard
// to its end, a spoken yes runs the command, and the final answer is
// read aloud without its Markdown.
func TestSpeechHeardToTheEndLetsYesRun(t *testing.T) {
	t.Parallel()
	sp := newFakeSpeaker(nil)
	decided := make(chan Decision, 1)
	tr := &scriptTranscriber{lines: []heardLine{{"make a folder", nil}, {"yes", nil}}}
	p := Pending{Command: "mkdir ~/Reports", Tier: shell.Confirm}
	h := start(t, askOnceAgent(p, decided), func(o *Options) {
		o.Transcriber = tr
		o.Approver = nil
		o.Speaker = sp
		o.Settings.Speak = true
	})
	speakAnswer(h)
	recv(t, "the description", sp.started)
	sp.finish <- struct{}{}
	prompt := recv(t, "the prompt", sp.started)
	if prompt != "Say yes or no." {
		t.Fatalf("prompt %q", prompt)
	}
	speakAnswer(h) // barges in on the prompt, which is fine
	d := recv(t, "decision", decided)
	if !d.Approved {
		t.Fatalf("a yes after the whole description: %+v", d)
	}
	ans := recv(t, "the answer spoken", sp.started)
	// Hark's account is spoken first; the model's claim only inside the
	// warning that follows it.
	if want := "Hark: no command ran — nothing changed. Warning: The model says “done”, but Hark ran no command for this request."; ans != want {
		t.Fatalf("answer spoken as %q", ans)
	}
	// Escape stops it too.
	h.app.Post(Escape{})
	h.views.wait(t, "silence", func(View) bool { return len(sp.cut()) == 2 })
}

// TestSpeakOffSaysNothing: speak is off by default.
func TestSpeakOffSaysNothing(t *testing.T) {
	t.Parallel()
	sp := newFakeSpeaker(nil)
	h := start(t, answerAgent("all done"), func(o *Options) { o.Speaker = sp })
	speakAnswer(h)
	h.views.wait(t, "idle", func(v View) bool { return v.State == Idle && v.Stream == "all done" })
	select {
	case s := <-sp.started:
		t.Fatalf("said %q with speak off", s)
	default:
	}
}

// BenchmarkBargeIn is how long speech keeps playing after the hotkey goes
// down, through the loop, against a baseline of stopping the same fake
// speech directly in the same run. The fake falls silent the moment its
// context ends, so this is the loop's share; desktop's
// BenchmarkSpeakerStop measures the speech program's.
func BenchmarkBargeIn(b *testing.B) {
	sp := newFakeSpeaker(nil)
	sp.silentAt = make(chan time.Time, 1)
	var loopTotal, baseTotal time.Duration
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { _ = sp.Speak(ctx, "x") }()
		<-sp.started
		t0 := time.Now()
		cancel()
		baseTotal += (<-sp.silentAt).Sub(t0)
	}
	s := settings.Defaults()
	s.Speak, s.HotkeyMode, s.SoundCues = true, ModePushToTalk, false
	rec := newFakeRecorder()
	a := New(Options{Settings: s, Paths: testPaths(b.TempDir()), Speaker: sp, Recorder: rec,
		Transcriber: newFakeTranscriber(""), Agent: replyAgent("a long answer"), Logger: slog.New(slog.DiscardHandler)})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go a.Run(ctx)
	reply := make(chan SendReply, 1)
	for i := 0; i < b.N; i++ {
		for {
			a.Post(SendRequest{Text: "x", Reply: reply})
			if r := <-reply; r.OK {
				break
			}
			time.Sleep(time.Millisecond) // the last iteration's turn is ending
		}
		<-sp.started
		t0 := time.Now()
		a.Post(KeyDown{})
		loopTotal += (<-sp.silentAt).Sub(t0)
		<-rec.started    // the press opened the microphone after the silence
		a.Post(Escape{}) // and drops that recording
	}
	b.ReportMetric(float64(loopTotal.Microseconds())/float64(b.N)/1000, "ms-after-keydown")
	b.ReportMetric(float64(baseTotal.Microseconds())/float64(b.N)/1000, "ms-baseline")
	b.ReportMetric(float64(loopTotal)/float64(max(baseTotal, 1)), "ratio")
}

// replyAgent answers every request with itself and records nothing, for
// benchmarks that run many requests.
type replyAgent string

func (r replyAgent) RunWith(ctx context.Context, conv *agent.Conversation, request string, o agent.RequestOptions) (agent.Outcome, error) {
	return agent.Outcome{Answer: string(r)}, nil
}

// TestExternalApprovalIsSpoken: with speak on, another program's approval
// is read aloud as that program's, never as Hark's own, and it says how
// to answer it: by a click, since a spoken answer never reaches another
// program's approval.
func TestExternalApprovalIsSpoken(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ client, says string }{
		{"Claude Desktop", "Another program, Claude Desktop, wants to"},
		{"Hark", "Another program that calls itself Hark wants to"},
		{"hark-mcp helper", "Another program that calls itself hark-mcp helper wants to"},
	} {
		t.Run(c.client, func(t *testing.T) {
			t.Parallel()
			sp := newFakeSpeaker(nil)
			h := start(t, answerAgent("nothing"), func(o *Options) {
				o.Approver = nil
				o.Speaker = sp
				o.Settings.Speak = true
			})
			reply := make(chan Decision, 1)
			h.app.Post(ApprovalRequest{Ctx: context.Background(), Reply: reply,
				Pending: Pending{Command: "rm /home/u/Videos/big_video_backup.mp4", WorkingDirectory: "/home/u", Tier: shell.Confirm, Client: c.client,
					Reasons: []shell.Reason{{Category: "delete", Why: "rm: deletes files", Command: "rm /home/u/Videos/big_video_backup.mp4"}}}})
			desc := recv(t, "the description", sp.started)
			if !strings.HasPrefix(desc, c.says) {
				t.Errorf("description %q does not start with %q", desc, c.says)
			}
			if strings.HasPrefix(desc, "Hark wants") || strings.Contains(desc, "the model") {
				t.Errorf("description %q reads as Hark's own request", desc)
			}
			sp.finish <- struct{}{}
			prompt := recv(t, "the prompt", sp.started)
			if strings.Contains(strings.ToLower(prompt), "say yes") || !strings.Contains(prompt, "menu") {
				t.Errorf("prompt %q invites a spoken answer another program's approval never takes", prompt)
			}
			sp.finish <- struct{}{}
			v := h.views.wait(t, "the approval", func(v View) bool { return len(v.Pending) == 1 })
			h.app.Post(MenuClick{ID: PrefixDeny + v.Pending[0].ID})
			recv(t, "the answer", reply)
		})
	}
}

// TestSpokenAnswerKeepsNames: a file name is heard as it is written,
// underscores and all, whether the model wrote it plainly, in code or in
// bold, and whether it reaches speech through the ending or on its own.
func TestSpokenAnswerKeepsNames(t *testing.T) {
	t.Parallel()
	names := []string{"snake_case_name.txt", "_leading.txt", "trailing_.txt", "_both_.txt", "__init__.py", "a_b_c.tar.gz",
		"~/Backups/project_logs_2024-01-03_to_2024-02-11.tar.gz", "/srv/_build/_cache_/x", "my__notes_2024.txt", "OLLAMA_HOST"}
	for _, n := range names {
		for _, form := range []string{"Saved it as %s.", "Saved it as `%s`.", "Saved it as **%s**.", "Saved it as %s and %s."} {
			text := strings.ReplaceAll(form, "%s", n)
			for _, via := range []string{"direct", "ending"} {
				in := text
				if via == "ending" {
					in = agent.Ending(agent.Tally{Ran: 1}, text)
				}
				if got := SpokenAnswer(in); !strings.Contains(got, n) {
					t.Errorf("%s: SpokenAnswer(%q) = %q, lost %q", via, in, got, n)
				}
			}
		}
	}
	if got := SpokenAnswer("It is _really_ gone, **for good**."); got != "It is really gone, for good." {
		t.Errorf("emphasis kept: %q", got)
	}
}

// TestSpeakSaysAFailedRequest: with speak on, a request that fails is
// said aloud like an answer (walk 6, B2-8: every answer was spoken, the
// failures were not, and a listener waited for nothing); a web address
// is said as its place, not letter by letter from "https".
func TestSpeakSaysAFailedRequest(t *testing.T) {
	t.Parallel()
	sp := newFakeSpeaker(nil)
	ag := newFakeAgent(func(ctx context.Context, r request, c agent.Confirmer, on func(agent.Event)) (string, error) {
		return "", errors.New("Ollama 0.12.5 is too old for Hark (needs 0.12.6). Update it: https://ollama.com/download")
	})
	h := start(t, ag, func(o *Options) {
		o.Speaker = sp
		o.Settings.Speak = true
	})
	h.app.Post(SendRequest{Text: "say hi", Reply: make(chan SendReply, 1)})
	said := recv(t, "the failure spoken", sp.started)
	if !strings.HasPrefix(said, "Request failed: Ollama 0.12.5 is too old for Hark") || !strings.Contains(said, "ollama.com/download") || strings.Contains(said, "https") {
		t.Errorf("the failure is spoken as %q", said)
	}
}
