package whisper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hark-sh/hark/speech"
)

// ProbeBuild is speech recognition's line in `hark doctor`: which
// whisper.cpp this binary was built with (version, where it came from) and
// which ggml backends it loaded; in a build without it, the one command
// that gets it on this system.
func ProbeBuild(context.Context) (string, error) {
	if !Available() {
		return probeBuild(false, runtime.GOOS, installHint, nil, nil)
	}
	names, err := loadedBackends()
	return probeBuild(true, runtime.GOOS, installHint, names, err)
}

func probeBuild(available bool, goos, hint string, backends []string, loadErr error) (string, error) {
	if !available {
		return "", &speech.ProbeError{Problem: "this build has no whisper.cpp (voice input is off; `hark send` still works)", Next: buildFix(goos, hint)}
	}
	lib := "whisper.cpp"
	if libVersion != "" {
		lib += " " + libVersion
	}
	if libOrigin != "" {
		lib += " (" + libOrigin + ")"
	}
	if loadErr != nil {
		problem, next, _ := strings.Cut(strings.TrimPrefix(loadErr.Error(), "whisper: "), "; ")
		return "", &speech.ProbeError{Problem: lib + ": " + problem, Next: next}
	}
	if len(backends) == 0 {
		return "built with " + lib, nil
	}
	return "built with " + lib + "; backends: " + strings.Join(backends, ", "), nil
}

// buildFix is the next step of a build without whisper.cpp: the command
// make found for this system when it built Hark (the distribution's
// package, or `make whisper` where there is none), then a rebuild.
func buildFix(goos, hint string) string {
	const rebuild = ", then `make build` adds the whisper tag by itself"
	switch {
	case goos == "darwin":
		return "brew install whisper-cpp" + rebuild
	case hint == "make whisper":
		return "run `make whisper` (it builds whisper.cpp for Hark; your distribution has no package of it)" + rebuild
	case hint != "":
		return hint + rebuild
	}
	return "install libwhisper (your distribution's whisper.cpp development package, or `make whisper` to build it)" + rebuild
}

// noBackendText is the message of a whisper.cpp whose ggml found no CPU
// plug-in at run time; on Linux it names no Homebrew command.
func noBackendText(goos string) string {
	reinstall := "reinstall the package that installed ggml"
	if goos == "darwin" {
		reinstall = "reinstall ggml (`brew reinstall ggml`)"
	}
	return "whisper: ggml has no CPU backend: its backends are plug-ins (GGML_BACKEND_DL) " +
		"and none could be loaded from the folder ggml was built with; " + reinstall +
		" or set GGML_BACKEND_PATH to the libggml-cpu plug-in, then restart Hark"
}

// ClipSeconds is the length of the built-in clip doctor times: as long as
// the shortest encoder window Hark asks of whisper.cpp (minFittedSeconds),
// so the clip costs what any short request costs and its real-time factor
// is not inflated by a window longer than the audio.
const ClipSeconds = minFittedSeconds

// Clip is the built-in clip: a voice-like sound (a 120 Hz buzz through
// three vowel formants, in syllables of a quarter second), the same on
// every machine, so real-time factors compare across machines.
func Clip() speech.Audio {
	n := ClipSeconds * speech.WhisperRate
	s := make([]float32, n)
	formants := []struct{ hz, gain float64 }{{700, 1}, {1200, 0.6}, {2600, 0.3}}
	for i := range s {
		t := float64(i) / speech.WhisperRate
		var v float64
		for h := 1; h*120 < 4000; h++ {
			f := float64(h * 120)
			var g float64
			for _, fm := range formants {
				d := (f - fm.hz) / 150
				g += fm.gain * math.Exp(-d*d)
			}
			v += g * math.Sin(2*math.Pi*f*t)
		}
		syllable := math.Max(0, math.Sin(2*math.Pi*2*t)) // four a second
		s[i] = float32(0.1 * v * syllable)
	}
	return speech.Audio{Samples: s, SampleRate: speech.WhisperRate}
}

// ProbeSpeed is the doctor line that times whisper.cpp on the built-in
// clip with the model Hark uses: the real-time factor is how long the
// transcription took over how long the clip lasts (under 1: faster than
// speech). Loading the model is not counted.
func ProbeSpeed(ctx context.Context, modelPath string) (string, error) {
	if !Available() {
		return "", &speech.ProbeError{Problem: "nothing to time: this build has no whisper.cpp", Next: buildFix(runtime.GOOS, installHint), Minor: true}
	}
	tr, err := New(Options{ModelPath: modelPath})
	if err != nil {
		return "", err
	}
	return timeClip(ctx, tr, filepath.Base(modelPath), tr.opts.Threads)
}

// clipTimer is what timing the clip needs of a Transcriber.
type clipTimer interface {
	Warm(ctx context.Context) error
	Transcribe(ctx context.Context, a speech.Audio) (string, error)
	Close() error
}

// timeClip loads the model, then times one transcription of the clip. When
// ctx ends first (doctor's time limit) it answers at once with what it
// measured so far, a bound, rather than wait for whisper.cpp's next abort
// check (one encoder pass can take seconds on a slow machine): the run
// stops there by itself and closes the transcriber.
func timeClip(ctx context.Context, tr clipTimer, model string, threads int) (string, error) {
	clip := Clip()
	var started atomic.Int64 // when the timed run began (UnixNano); 0 while the model loads
	type outcome struct {
		err    error
		took   time.Duration
		loaded bool
	}
	done := make(chan outcome, 1)
	go func() {
		defer tr.Close()
		if err := tr.Warm(ctx); err != nil {
			done <- outcome{err: err}
			return
		}
		start := time.Now()
		started.Store(start.UnixNano())
		_, err := tr.Transcribe(ctx, clip)
		done <- outcome{err: err, took: time.Since(start), loaded: true}
	}()
	cutShort := func() (string, error) {
		s := started.Load()
		if s == 0 {
			return "", &speech.ProbeError{Problem: "the model did not load within doctor's time limit, so nothing was timed",
				Next: "`hark doctor -timeout 30s` waits longer", Minor: true}
		}
		return "", &speech.ProbeError{Problem: speedBound(clip.Duration(), time.Since(time.Unix(0, s))),
			Next: "`hark doctor -timeout 30s` waits for the whole clip", Minor: true}
	}
	var o outcome
	select {
	case <-ctx.Done():
		return cutShort()
	case o = <-done:
	}
	switch {
	case ctx.Err() != nil:
		return cutShort()
	case !o.loaded:
		return "", &speech.ProbeError{Problem: "cannot time transcription: " + strings.TrimPrefix(o.err.Error(), "whisper: "),
			Next: "fix the Whisper model line first", Minor: true}
	// The clip is no sentence: whisper hearing no words in it is a
	// finished run, and what is timed is the run.
	case o.err != nil && !errors.Is(o.err, speech.ErrNoSpeech):
		return "", &speech.ProbeError{Problem: "the timed transcription failed: " + strings.TrimPrefix(o.err.Error(), "whisper: "),
			Next: "run `hark doctor -timeout 30s`; if it still fails, `HARK_WHISPER_DEBUG=1 hark doctor` shows whisper.cpp's reason", Minor: true}
	}
	return speedDetail(clip.Duration(), o.took, model, threads), nil
}

// speedBound is the line for a timing cut short after took: the
// real-time factor is at least took over the clip's length.
func speedBound(audio, took time.Duration) string {
	return fmt.Sprintf("the built-in %.1f s clip was not transcribed within doctor's time limit: real-time factor above %.2f",
		audio.Seconds(), took.Seconds()/audio.Seconds())
}

func speedDetail(audio, took time.Duration, model string, threads int) string {
	rtf := took.Seconds() / audio.Seconds()
	verdict := "faster than speech"
	if rtf >= 1 {
		verdict = "slower than speech: a smaller model (`hark models`) answers sooner"
	}
	return fmt.Sprintf("real-time factor %.2f (%s): %.1f s of built-in audio took %.2f s with %s, %d threads",
		rtf, verdict, audio.Seconds(), took.Seconds(), model, threads)
}
