// Package whisper turns recorded speech into text with whisper.cpp, locally.
//
// The real Transcriber needs cgo, libwhisper and the `whisper` build tag; every
// other build gets a Transcriber with the same API whose methods return
// ErrUnavailable, whose message says how to get a build that can transcribe.
// The model is loaded once (Warm loads it ahead of the first request), one
// transcription runs at a time, and cancelling the context aborts whisper.cpp
// between encoder passes and decoder steps instead of waiting for the result.
package whisper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hark-sh/hark/speech"
)

// Options configure a Transcriber. The zero value of each field except
// ModelPath means the default.
type Options struct {
	ModelPath     string // a ggml whisper model file (e.g. ggml-base.en.bin)
	Language      string // "en" when empty; "auto" detects it on multilingual models
	Threads       int    // 0 picks DefaultThreads()
	InitialPrompt string // words that bias transcription toward technical vocabulary
	// VADModelPath, when set, is a ggml Silero model (`hark models download
	// silero-v5`): recordings are trimmed to the speech it finds, and those
	// with none are refused before whisper runs. Without it, or when it will
	// not load, the loudness gate alone keeps silence out.
	VADModelPath string
}

// MaxThreads caps the thread count: whisper.cpp stops getting faster beyond
// about eight threads and more only steals cores from the rest of the desktop.
const MaxThreads = 8

// ErrUnavailable is returned by every method of a Transcriber in a build
// without whisper.cpp. Its text tells the user how to get one that has it.
var ErrUnavailable = errors.New(unavailableText(runtime.GOOS, installHint))

// unavailableText says how to get a build that transcribes, on this OS
// only: the first-run Problems… showed macOS steps on Linux, and named a
// libwhisper-dev package Debian 12 does not have. hint, when make found
// one, is the command that gets whisper.cpp on the system it built on.
func unavailableText(goos, hint string) string {
	const head = "this hark was built without whisper.cpp, so it cannot transcribe. "
	if goos == "darwin" {
		return head + "Install it with `brew install whisper-cpp`, then run `make build`."
	}
	if hint != "" {
		return head + "On this system, `" + hint + "`, then run `make build`: it adds the `whisper` build tag by itself."
	}
	return head + "Install whisper.cpp (your distribution's libwhisper development package where it has one; " +
		"otherwise `make whisper` builds it for Hark, or build it yourself with cmake and `cmake --install`, which installs libwhisper and whisper.pc), " +
		"then run `make build`: it adds the `whisper` build tag when pkg-config finds libwhisper " +
		"(add the folder holding whisper.pc to PKG_CONFIG_PATH if it does not; cgo must be enabled)."
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("whisper: transcriber is closed")

// withDefaults fills in defaults and rejects options that cannot work, before
// anything touches whisper.cpp, so the same checks run in every build.
func (o Options) withDefaults() (Options, error) {
	o.ModelPath = strings.TrimSpace(o.ModelPath)
	if o.ModelPath == "" {
		return o, errors.New("whisper: no model file given; download one with `hark models download base.en` or set whisperModel to a ggml .bin file")
	}
	o.Language = strings.ToLower(strings.TrimSpace(o.Language))
	if o.Language == "" {
		o.Language = "en"
	}
	switch {
	case o.Threads < 0:
		return o, fmt.Errorf("whisper: %d threads is not a thread count; use 0 for automatic or 1 to %d", o.Threads, MaxThreads)
	case o.Threads == 0:
		o.Threads = DefaultThreads()
	case o.Threads > MaxThreads:
		o.Threads = MaxThreads
	}
	return o, nil
}

// checkModelFile gives the user a next step for the usual ways a model path
// goes wrong, instead of whisper.cpp's generic load failure.
func checkModelFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("whisper: model file %s does not exist; download it with `hark models download %s`", path, modelName(path))
	case err != nil:
		return fmt.Errorf("whisper: cannot read model file: %w", err)
	case fi.IsDir():
		return fmt.Errorf("whisper: %s is a folder; give the path of a ggml model file inside it", path)
	}
	return nil
}

// modelName guesses the catalog name from a file name such as
// ggml-base.en.bin, for messages that suggest a download.
func modelName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".bin")
	name = strings.TrimPrefix(name, "ggml-")
	if name == "" {
		return "base.en"
	}
	return name
}

// languageChoice decides what to ask of whisper.cpp for the requested
// language. English-only models accept "en" and "auto" (there is nothing to
// detect) and refuse anything else, because they would transcribe any other
// language as garbled English rather than fail.
func languageChoice(lang string, multilingual bool, modelPath string) (code string, err error) {
	if multilingual {
		return lang, nil
	}
	if lang == "en" || lang == "auto" {
		return "en", nil
	}
	return "", fmt.Errorf("whisper: model %s only knows English, but the language is set to %q; "+
		"use a multilingual model (e.g. `hark models download base`, then set whisperModel to \"base\") or set language to \"en\"",
		filepath.Base(modelPath), lang)
}

// fittedAudioCtx is the encoder window, in whisper's 20 ms audio positions
// (1500 for 30 s), for n samples at 16 kHz: the audio plus a second of
// margin, and never under minFittedSeconds, since the models were trained
// on full windows and a very short one costs accuracy.
func fittedAudioCtx(n int) int {
	const perSecond = 50
	secs := max(float64(n)/speech.WhisperRate+1, minFittedSeconds)
	return min(int(secs*perSecond+0.999), 30*perSecond)
}

const minFittedSeconds = 4

func clampThreads(n int) int {
	return max(1, min(n, MaxThreads))
}

// BeginStream starts transcribing a recording while it is being made (see
// speech.Stream): the caller writes the samples as they arrive and calls
// Finish with the whole recording at key-up. Each chunk is transcribed with
// an encoder window fitted to its length; if one fails, Finish transcribes
// the whole recording in one pass instead. partial, if not nil, receives the
// text committed so far. Each chunk keeps whisper's word probabilities, so
// the stream's FinishWords marks unsure words as a one-pass
// TranscribeWords does.
func (t *Transcriber) BeginStream(ctx context.Context, partial func(text string)) *speech.Stream {
	return speech.NewStream(ctx, speech.StreamOptions{
		ChunkWords: t.transcribeChunkWords,
		WholeWords: t.TranscribeWords,
		Partial:    partial,
	})
}
