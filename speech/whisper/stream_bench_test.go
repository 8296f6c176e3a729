//go:build whisper && cgo

package whisper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	bw "github.com/ggerganov/whisper.cpp/bindings/go"

	"github.com/hark-sh/hark/speech"
)

// utterance is espeak-ng reading sentences with the pauses of speech, at
// least d long (the text repeats until it is), at 16 kHz.
func utterance(tb testing.TB, d time.Duration) speech.Audio {
	tb.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		tb.Skip("espeak-ng is not installed (apt install espeak-ng): the streaming tests speak with it")
	}
	text := "List the files in my downloads folder, sorted by size. " +
		"Then show me which of them changed today. " +
		"Count the lines of every go file in this project, and tell me the largest. "
	var out speech.Audio
	for i := 0; out.Duration() < d; i++ {
		path := filepath.Join(tb.TempDir(), fmt.Sprintf("say%d.wav", i))
		cmd := exec.Command("espeak-ng", "-s", "150", "-w", path, text)
		if b, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("espeak-ng: %v\n%s", err, b)
		}
		a, err := speech.ReadWAVFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		a16, err := a.To16k()
		if err != nil {
			tb.Fatal(err)
		}
		out.SampleRate = a16.SampleRate
		out.Samples = append(out.Samples, a16.Samples...)
	}
	// Key-up at d, then the recorder's tail.
	out.Samples = out.Samples[:int((d+recorderTail).Seconds()*speech.WhisperRate)]
	return out
}

// recorderTail is how long the recorder goes on after key-up (the
// settings' default); the recording a Stream's Finish gets ends with it.
const recorderTail = 300 * time.Millisecond

// streamToKeyUp writes a, up to key-up (all but the recorder's tail), to a
// new stream and waits until every chunk cut by then is transcribed: the
// state at key-up when the chunks kept pace with the speech, which
// chunk-rtf checks. The tail is left for Finish, as in a real recording,
// where it arrives after key-up.
func streamToKeyUp(tr *Transcriber, a speech.Audio) (*speech.Stream, time.Duration) {
	s := tr.BeginStream(context.Background(), nil)
	t0 := time.Now()
	const buf = speech.WhisperRate / 50
	keyUp := len(a.Samples) - int(recorderTail.Seconds()*speech.WhisperRate)
	for i := 0; i < keyUp; i += buf {
		s.Write(speech.Audio{Samples: a.Samples[i:min(i+buf, keyUp)], SampleRate: a.SampleRate})
	}
	s.Wait()
	return s, time.Since(t0)
}

// BenchmarkKeyUpToText is the wait from the end of the recorder's tail
// (what Stop returns) until the text is there, for 5 s and 10 s utterances,
// with a vocabulary prompt as long as the app builds: one pass over the
// whole recording, as Transcribe does, against a stream whose chunks were
// transcribed while the user spoke, so only the tail is left. The two run as
// pairs in one loop; streamed/one-pass is the median of the ratios per pair.
// left-s is the audio left for Finish (after the last cut, with the tail).
// chunk-rtf is the time to transcribe the chunks before key-up over the
// length of that audio:
// below 1 means the chunks keep pace with speech on this machine, so the
// state the streamed figure starts from is the one a real recording reaches.
func BenchmarkKeyUpToText(b *testing.B) {
	path := testModel(b)
	for _, d := range []time.Duration{5 * time.Second, 10 * time.Second} {
		b.Run(fmt.Sprintf("%ds", int(d.Seconds())), func(b *testing.B) {
			a := utterance(b, d)
			tr, err := New(Options{ModelPath: path, Threads: DefaultThreads(), InitialPrompt: benchVocabulary()})
			if err != nil {
				b.Fatal(err)
			}
			if err := tr.Warm(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			var one, streamed, chunkTime []time.Duration
			var ratios []float64
			chunks, left := 0, time.Duration(0)
			for b.Loop() {
				t := time.Now()
				_, err := tr.Transcribe(context.Background(), a)
				if err != nil && !errors.Is(err, speech.ErrNoSpeech) {
					b.Fatal(err)
				}
				op := time.Since(t)

				s, ct := streamToKeyUp(tr, a)
				left = a.Duration() - s.Cut()
				t = time.Now()
				_, err = s.Finish(context.Background(), a)
				if err != nil && !errors.Is(err, speech.ErrNoSpeech) {
					b.Fatal(err)
				}
				st := time.Since(t)
				chunks = s.Chunks()
				one, streamed, chunkTime = append(one, op), append(streamed, st), append(chunkTime, ct)
				ratios = append(ratios, st.Seconds()/op.Seconds())
			}
			b.ReportMetric(ms(median(one)), "one-pass-ms")
			b.ReportMetric(ms(median(streamed)), "streamed-ms")
			b.ReportMetric(medianF(ratios), "streamed/one-pass")
			b.ReportMetric(float64(chunks), "chunks")
			b.ReportMetric(left.Seconds(), "left-s")
			b.ReportMetric(median(chunkTime).Seconds()/a.Duration().Seconds(), "chunk-rtf")
		})
	}
}

// BenchmarkPrompt is one transcription of the JFK sample with the default
// length of vocabulary prompt under three temperature schedules: one pass
// (no fallback, the baseline), whisper.cpp's own (step 0.2) and Hark's
// (FallbackStep). The weight-less test model fails every pass, so each
// schedule runs all its fallbacks: the worst case. A schedule's prompt cost
// is what whisper.cpp itself timed for decoding prompts (prompt-ms) and the
// tokens it decoded for them; Hark's should be one pass's, whisper.cpp's
// three times that. The -ms figures are whole transcriptions, and
// hark/whispercpp their ratio.
func BenchmarkPrompt(b *testing.B) {
	path, a, threads := benchAudio(b)
	prompt := benchVocabulary()
	steps := []struct {
		name string
		step float32
	}{{"one-pass", 0}, {"whispercpp", 0.2}, {"hark", FallbackStep}}
	var runs []*Transcriber
	defer func() {
		for _, tr := range runs {
			tr.Close()
		}
	}()
	for _, s := range steps {
		tr, err := New(Options{ModelPath: path, Threads: threads, InitialPrompt: prompt})
		if err != nil {
			b.Fatal(err)
		}
		tr.fallbackStep = &s.step
		runs = append(runs, tr)
		if err := tr.Warm(context.Background()); err != nil {
			b.Fatal(err)
		}
		if _, err := tr.counters(); err != nil {
			b.Fatal(err)
		}
	}
	times := make([][]time.Duration, len(runs))
	promptTimes := make([][]time.Duration, len(runs))
	tokens := make([]int, len(runs))
	i := 0
	for b.Loop() {
		// Rotate the order so each variant sees the same machine load.
		for k := range runs {
			j := (i + k) % len(runs)
			t := time.Now()
			harkTranscribe(b, runs[j], a)
			times[j] = append(times[j], time.Since(t))
			c, err := runs[j].counters()
			if err != nil {
				b.Fatal(err)
			}
			tokens[j] = c.promptTokens
			promptTimes[j] = append(promptTimes[j], c.promptTime)
		}
		i++
	}
	for k, s := range steps {
		b.ReportMetric(ms(median(times[k])), s.name+"-ms")
		b.ReportMetric(ms(median(promptTimes[k])), s.name+"-prompt-ms")
		b.ReportMetric(float64(tokens[k]), s.name+"-prompt-tokens")
	}
	one := median(promptTimes[0]).Seconds()
	b.ReportMetric(median(promptTimes[1]).Seconds()/one, "whispercpp-prompt/one-pass-prompt")
	b.ReportMetric(median(promptTimes[2]).Seconds()/one, "hark-prompt/one-pass-prompt")
	b.ReportMetric(median(times[2]).Seconds()/median(times[1]).Seconds(), "hark/whispercpp")
}

// benchVocabulary is a prompt as long as the vocabulary builder makes them.
func benchVocabulary() string {
	home, _ := os.UserHomeDir()
	p := speech.BuildVocabulary(speech.VocabularySources{
		Settings: "kubectl, terraform, Makefile, README",
		Folders: func() []string {
			return []string{"Downloads", "Documents", "Projects", "Pictures", "Music", "Desktop", filepath.Base(home)}
		},
		Programs: func() []string {
			return []string{"ls", "grep", "find", "git", "docker", "brew", "curl", "jq", "sed", "awk", "tar", "rsync", "ssh", "scp", "top", "htop", "du", "df", "ps", "kill", "chmod", "chown", "make", "go", "python3", "node", "npm", "cargo", "rustc", "ffmpeg", "sqlite3", "psql", "redis-cli", "tmux", "vim", "less", "head", "tail", "sort", "uniq", "wc", "xargs", "tree"}
		},
		Known: func(string) bool { return true },
		Branches: func() []string {
			return []string{"main", "feature-login", "fix-upload-timeout", "release-2.4", "refactor-settings"}
		},
	})
	return p
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// BenchmarkTokenizePrompt is whisper.cpp's tokenizer on the default length
// of vocabulary prompt: what handing the prompt over as text cost on every
// transcription (and would on every chunk of a stream), and tokens made
// once per model save.
func BenchmarkTokenizePrompt(b *testing.B) {
	tr := loadHark(b, testModel(b), DefaultThreads())
	defer tr.Close()
	prompt := benchVocabulary()
	tokens := make([]bw.Token, 1024)
	var n int
	for b.Loop() {
		var err error
		if n, err = tr.model.Whisper_tokenize(prompt, tokens); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "tokens")
	b.ReportMetric(float64(len(prompt)), "bytes")
}
