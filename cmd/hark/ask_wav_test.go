package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell/visible"
	"github.com/hark-sh/hark/speech"
)

// fakeWords stands in for whisper: it returns a scripted transcript with
// each word's probability, and records what it was given.
type fakeWords struct {
	text   string
	words  []speech.Word
	err    error
	heard  []speech.Audio
	closed bool
}

func (f *fakeWords) TranscribeWords(_ context.Context, a speech.Audio) (string, []speech.Word, error) {
	f.heard = append(f.heard, a)
	return f.text, f.words, f.err
}

func (f *fakeWords) Close() error { f.closed = true; return nil }

// spoken makes hark ask --wav hear f instead of whisper, and returns a WAV
// file with syllables of a tone in it (48 kHz, so the resampling is on the path) and
// how many times a transcriber was built.
func spoken(t *testing.T, f *fakeWords) (wav string, built *int) {
	t.Helper()
	avail, build := whisperAvailable, newWordTranscriber
	t.Cleanup(func() { whisperAvailable, newWordTranscriber = avail, build })
	n := 0
	whisperAvailable = func() bool { return true }
	newWordTranscriber = func(context.Context, settings.Settings, settings.Paths) (wordTranscriber, error) {
		n++
		return f, nil
	}
	wav = filepath.Join(t.TempDir(), "request.wav")
	if err := speech.WriteWAVFile(wav, syllables()); err != nil {
		t.Fatal(err)
	}
	return wav, &n
}

// syllables is a second of 200 ms tones and 100 ms pauses at 48 kHz, which
// passes for speech as it comes and goes (a steady tone is rejected as
// background noise).
func syllables() speech.Audio {
	samples := make([]float32, 48000)
	for i := range samples {
		if i%14400 < 9600 {
			samples[i] = float32(0.3 * math.Sin(2*math.Pi*220*float64(i)/48000))
		}
	}
	return speech.Audio{Samples: samples, SampleRate: 48000}
}

// billsHeard is "delete the old bills" with whisper unsure of "bills".
func billsHeard() *fakeWords {
	return &fakeWords{text: " delete the old bills", words: []speech.Word{
		{Text: "delete", P: 0.98}, {Text: "the", P: 0.99}, {Text: "old", P: 0.9}, {Text: "bills", P: 0.21},
	}}
}

// The spoken request is printed as heard, unsure words marked, and the
// model gets the words themselves.
func TestAskWavPrintsWhatWasHeard(t *testing.T) {
	f := billsHeard()
	wav, built := spoken(t, f)
	srv, _ := askEnv(t, ollamatest.Reply{Text: "Which bills do you mean?"})
	r := runAgentCLI(t, "", false, "ask", "--new", "--wav", wav)
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "Heard “delete the old [bills?]”\n") || !strings.Contains(r.stdout, "Which bills do you mean?") {
		t.Errorf("stdout does not start with the heard line:\n%s", r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	msgs := reqs[0].Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != "delete the old bills" {
		t.Errorf("the model was asked %q (%s), want the words as heard without marks", last.Content, last.Role)
	}
	if *built != 1 || len(f.heard) != 1 || f.heard[0].SampleRate != 16000 || !f.closed {
		t.Errorf("transcriber built %d times, given %d recordings (rate %v), closed %v; want once, 16 kHz, closed", *built, len(f.heard), f.heard, f.closed)
	}
}

// At the terminal's approval the heard line is shown again, and when an
// unsure word is what the command deletes, that is said before anything
// else about the command.
func TestAskWavWarnsWhenAnUnsureWordIsTheTarget(t *testing.T) {
	cases := []struct {
		name   string
		unsure string // the word whisper was unsure of
		doubt  bool
	}{
		{name: "unsure word is the target", unsure: "bills", doubt: true},
		{name: "unsure word elsewhere", unsure: "old", doubt: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := billsHeard()
			for i := range f.words {
				f.words[i].P = 0.95
				if f.words[i].Text == c.unsure {
					f.words[i].P = 0.2
				}
			}
			wav, _ := spoken(t, f)
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_DATA_HOME", "")
			target := filepath.Join(home, "bills")
			if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(target, "march.pdf"), []byte("paid"), 0o600); err != nil {
				t.Fatal(err)
			}
			askEnv(t,
				ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm -r "+target, "purpose", "deleting the old bills")}},
				ollamatest.Reply{Text: "Left them."},
			)
			var tty bytes.Buffer
			e := &env{stdin: strings.NewReader("n\n"), stdout: &tty, stderr: &tty, isTerminal: true}
			if code := dispatch(context.Background(), e, []string{"ask", "--new", "--wav", wav}); code != exitOK {
				t.Fatalf("exit %d\n%s", code, tty.String())
			}
			rows := screen(tty.String())
			marked := "delete the old bills"
			marked = strings.Replace(marked, c.unsure, "["+c.unsure+"?]", 1)
			heardRow, cmdRow := rowWith(rows, "Heard “"+marked+"”"), rowWith(rows, "$ rm -r "+target)
			promptHeard := rowWith(rows, "    Heard “"+marked+"”")
			doubtRow := rowWith(rows, "! Hark was not sure it heard “bills”, and this command deletes or overwrites what it names")
			question := rowWith(rows, "Move to Trash instead?")
			if question < 0 {
				question = rowWith(rows, "Run this?")
			}
			switch {
			case heardRow < 0 || heardRow > cmdRow:
				t.Errorf("no heard line (row %d) before the command (row %d)", heardRow, cmdRow)
			case promptHeard < cmdRow || promptHeard > question:
				t.Errorf("the approval does not show the heard line (row %d) between the command (row %d) and the question (row %d)", promptHeard, cmdRow, question)
			case c.doubt && (doubtRow < cmdRow || doubtRow > question):
				t.Errorf("the doubt (row %d) is not between the command (row %d) and the question (row %d)", doubtRow, cmdRow, question)
			case c.doubt && rowWith(rows[doubtRow+1:question], "preview:") < 0:
				t.Errorf("the doubt does not come before the preview")
			case !c.doubt && rowWith(rows, "was not sure") >= 0:
				t.Errorf("warned about a word the command does not name")
			default:
				if _, err := os.Stat(filepath.Join(target, "march.pdf")); err != nil {
					t.Errorf("a denied deletion touched the folder: %v", err)
				}
				return
			}
			t.Logf("screen:\n%s", strings.Join(rows, "\n"))
		})
	}
}

// Whatever whisper returns is shown with its hidden characters visible,
// in the heard line and at the approval alike.
func TestAskWavShowsHiddenCharacters(t *testing.T) {
	for _, c := range hiddenFamily {
		t.Run(c.name, func(t *testing.T) {
			text := "create the notes" + c.seq + "Heard “nothing” file"
			wav, _ := spoken(t, &fakeWords{text: text})
			dir := t.TempDir()
			askEnv(t,
				ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "touch "+filepath.Join(dir, "notes"), "purpose", "creating", "workingDirectory", dir)}},
				ollamatest.Reply{Text: "Not created."},
			)
			var tty bytes.Buffer
			e := &env{stdin: strings.NewReader("n\n"), stdout: &tty, stderr: &tty, isTerminal: true}
			if code := dispatch(context.Background(), e, []string{"ask", "--new", "--wav", wav}); code != exitOK {
				t.Fatalf("exit %d\n%s", code, tty.String())
			}
			rows := screen(tty.String())
			// A line break inside the transcript is a word break, as in the
			// menu; every other hidden character is shown as a code point.
			shown := "Heard “" + visible.Line(strings.Join(strings.Fields(text), " ")) + "”"
			first, prompt := rowWith(rows, shown), rowWith(rows, "    "+shown)
			if first < 0 || prompt <= first || rowWith(rows, "Run this? [N]o (safe choice) / [y]es") < prompt {
				t.Errorf("the heard lines (rows %d, %d) are not both shown as %q:\n%s", first, prompt, shown, strings.Join(rows, "\n"))
			}
		})
	}
}

func TestAskWavErrors(t *testing.T) {
	cases := []struct {
		name   string
		args   func(wav string) []string
		words  *fakeWords
		silent bool
		code   int
		want   string
		built  bool // the transcriber was built (the model loaded)
	}{
		{name: "text and a file", args: func(w string) []string { return []string{"--wav", w, "delete", "it"} }, code: exitUsage, want: "not both"},
		{name: "no such file", args: func(w string) []string { return []string{"--wav", w + ".gone"} }, code: exitError, want: "request.wav.gone"},
		{name: "silent file", args: func(w string) []string { return []string{"--wav", w} }, silent: true, code: exitError, want: "hark ask:"},
		{name: "no words heard", args: func(w string) []string { return []string{"--wav", w} }, words: &fakeWords{text: "  "}, code: exitError, want: "whisper heard no words", built: true},
		{name: "transcription fails", args: func(w string) []string { return []string{"--wav", w} }, words: &fakeWords{err: errors.New("decoder broke")}, code: exitError, want: "hark ask: decoder broke", built: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.words
			if f == nil {
				f = billsHeard()
			}
			wav, built := spoken(t, f)
			if c.silent {
				if err := speech.WriteWAVFile(wav, speech.Audio{Samples: make([]float32, 48000), SampleRate: 48000}); err != nil {
					t.Fatal(err)
				}
			}
			srv, _ := askEnv(t)
			r := runAgentCLI(t, "", false, append([]string{"ask", "--new"}, c.args(wav)...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", r.code, r.stdout, r.stderr, c.code, c.want)
			}
			if (*built > 0) != c.built {
				t.Errorf("transcriber built %d times, want built = %v", *built, c.built)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the model was asked %d times about a request nobody heard", n)
			}
		})
	}
	t.Run("no whisper", func(t *testing.T) {
		wav, built := spoken(t, billsHeard())
		whisperAvailable = func() bool { return false }
		askEnv(t)
		r := runAgentCLI(t, "", false, "ask", "--wav", wav)
		if r.code != exitError || !strings.HasPrefix(r.stderr, "hark ask: this hark was built without whisper.cpp") || *built != 0 {
			t.Errorf("exit %d, stderr %q, built %d", r.code, r.stderr, *built)
		}
	})
}

// fakeMic stands in for the microphone of hark ask --listen.
type fakeMic struct {
	startErr error
	// onStart, if set, runs as the recording starts, with the recorder's
	// autoStop callback (to stop it by itself as the maximum length does).
	onStart func(autoStop func(error))
	auto    func(error)
	starts  int
	stops   int
	done    bool
}

func (m *fakeMic) Start(context.Context) error {
	m.starts++
	if m.startErr != nil {
		return m.startErr
	}
	if m.onStart != nil {
		m.onStart(m.auto)
	}
	return nil
}

func (m *fakeMic) Stop() (speech.Audio, error) {
	m.stops++
	return syllables(), nil
}

func useMic(t *testing.T, m *fakeMic) {
	t.Helper()
	prev := newAskRecorder
	t.Cleanup(func() { newAskRecorder = prev })
	newAskRecorder = func(_ settings.Settings, autoStop func(error)) (app.Recorder, func()) {
		m.auto = autoStop
		return m, func() { m.done = true }
	}
}

// billsInHome is a ~/bills folder in a temporary home and a model that
// proposes deleting it.
func billsInHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	target := filepath.Join(home, "bills")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "march.pdf"), []byte("paid"), 0o600); err != nil {
		t.Fatal(err)
	}
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", "rm -r "+target, "purpose", "deleting the old bills")}},
		ollamatest.Reply{Text: "Left them."},
	)
	return target
}

// hark ask --listen records until Enter, then goes on as --wav; the Enter
// and the approval's answer are read from the same terminal in turn, and a
// recording that stopped by itself still waits for its Enter, so that
// keystroke never answers the approval (empty there means Move to Trash).
func TestAskListen(t *testing.T) {
	cases := []struct {
		name    string
		onStart func(func(error))
		note    string // what the terminal says, besides the Listening prompt
	}{
		{name: "stopped by Enter", note: "(it stops recording by itself after 1m)"},
		{name: "stopped by itself", onStart: func(autoStop func(error)) { autoStop(nil) }, note: "(it stops recording by itself after 1m)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spoken(t, billsHeard())
			mic := &fakeMic{onStart: c.onStart}
			useMic(t, mic)
			target := billsInHome(t)
			var tty bytes.Buffer
			e := &env{stdin: strings.NewReader("\nn\n"), stdout: &tty, stderr: &tty, isTerminal: true}
			if code := dispatch(context.Background(), e, []string{"ask", "--new", "--listen"}); code != exitOK {
				t.Fatalf("exit %d\n%s", code, tty.String())
			}
			rows := screen(tty.String())
			listening, heard := rowWith(rows, "Listening… say the request, then press Enter"), rowWith(rows, "Heard “delete the old [bills?]”")
			doubt, denied := rowWith(rows, "! Hark was not sure it heard “bills”"), rowWith(rows, "not run: you denied it")
			switch {
			case listening < 0 || heard < listening:
				t.Errorf("no Listening prompt (row %d) before the heard line (row %d)", listening, heard)
			case doubt < heard || denied < doubt:
				t.Errorf("the doubt (row %d) is not between the heard line (row %d) and the denial (row %d)", doubt, heard, denied)
			case rowWith(rows, c.note) < 0:
				t.Errorf("the terminal does not say %q", c.note)
			case mic.starts != 1 || mic.stops != 1 || !mic.done:
				t.Errorf("microphone started %d, stopped %d times, released %v; want once each", mic.starts, mic.stops, mic.done)
			default:
				if _, err := os.Stat(filepath.Join(target, "march.pdf")); err != nil {
					t.Errorf("the denied deletion touched the folder: %v", err)
				}
				return
			}
			t.Logf("screen:\n%s", strings.Join(rows, "\n"))
		})
	}
}

func TestAskListenErrors(t *testing.T) {
	cases := []struct {
		name     string
		mic      *fakeMic
		terminal bool
		code     int
		want     string
	}{
		{name: "no terminal", mic: &fakeMic{}, code: exitUsage, want: "--listen needs a terminal"},
		{name: "no microphone", mic: &fakeMic{startErr: errors.New("no input device")}, terminal: true, code: exitError, want: "hark ask: could not start recording: no input device"},
		{name: "microphone lost", mic: &fakeMic{onStart: func(autoStop func(error)) { autoStop(errors.New("the microphone was unplugged")) }}, terminal: true, code: exitError, want: "recording failed: the microphone was unplugged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, built := spoken(t, billsHeard())
			useMic(t, c.mic)
			srv, _ := askEnv(t)
			r := runAgentCLI(t, "", c.terminal, "ask", "--listen")
			if r.code != c.code || !strings.Contains(r.stderr, c.want) || r.stdout != "" || *built != 0 || len(srv.Requests()) != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q, transcriber built %d, %d chat requests; want %d and %q, nothing heard or asked",
					r.code, r.stdout, r.stderr, *built, len(srv.Requests()), c.code, c.want)
			}
		})
	}
	if r := runAgentCLI(t, "", true, "ask", "--listen", "--wav", "x.wav"); r.code != exitUsage || !strings.Contains(r.stderr, "not both") {
		t.Errorf("--listen with --wav: exit %d, stderr %q", r.code, r.stderr)
	}
}
