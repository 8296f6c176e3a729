package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/whisper"
)

func init() {
	register(&command{
		name:    "transcribe",
		usage:   "[--model NAME|PATH] [--unsure] [-v] FILE.wav",
		summary: "Print what is said in a WAV file (whisper.cpp, on this machine).",
		about: `Prints the text spoken in FILE.wav (any sample rate; resampled to 16 kHz). With --unsure
the words whisper was unsure of are marked as the approvals mark them: delete the old [bills?].`,
		run: runTranscribe,
	})
}

func runTranscribe(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	model := fs.String("model", "", "a model `NAME` from `hark models list` or the PATH of a ggml model file (default: the whisperModel setting)")
	unsure := fs.Bool("unsure", false, "mark the words whisper was unsure of as [word?], as the approvals of a spoken request do")
	verbose := fs.Bool("v", false, "print the vocabulary whisper is given and the timings (load, resample, transcribe) to stderr")
	fs.Usage = func() { writeUsage(e.stderr, "transcribe", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	fail := func(err error) int {
		showln(e.stderr, "hark transcribe:", err)
		return exitError
	}
	// Without whisper.cpp nothing else matters; say so before anything else.
	if !whisper.Available() {
		return fail(whisper.ErrUnavailable)
	}
	paths, st, err := transcribeSettings()
	if err != nil {
		return fail(err)
	}
	if *model == "" {
		*model = st.WhisperModel
	}
	modelFile, err := resolveModel(*model, paths)
	if err != nil {
		return fail(err)
	}

	audio, err := speech.ReadWAVFile(fs.Arg(0))
	if err != nil {
		return fail(err)
	}
	t0 := time.Now()
	audio16, err := audio.To16k()
	if err != nil {
		return fail(err)
	}
	resampled := time.Since(t0)
	// Checked before the model loads, so a silent file costs nothing.
	if _, err := speech.CheckSpeech(audio16); err != nil {
		return fail(err)
	}

	vocabulary := machineVocabulary(st.InitialPrompt)
	if *verbose {
		// What whisper is told to expect: the first thing to look at when a
		// word keeps coming out wrong (the initialPrompt setting adds words).
		showf(e.stderr, "vocabulary (%d bytes): %s\n", len(vocabulary), vocabulary)
	}
	t1 := time.Now()
	tr, err := loadWhisper(ctx, st, paths, modelFile)
	if err != nil {
		return fail(err)
	}
	defer tr.Close()
	loaded := time.Since(t1)
	if err := tr.VADProblem(); err != nil {
		showln(e.stderr, "hark transcribe:", err)
	}

	t2 := time.Now()
	var text string
	var words []speech.Word
	if *unsure {
		text, words, err = tr.TranscribeWords(ctx, audio16)
	} else {
		text, err = tr.Transcribe(ctx, audio16)
	}
	transcribed := time.Since(t2)
	if *verbose {
		fmt.Fprintf(e.stderr, "load %s · resample %s (%d Hz → 16 kHz) · transcribe %s (%.1f s of audio, %.2f× real time) · %s\n",
			ms(loaded), ms(resampled), audio.SampleRate, ms(transcribed),
			audio.Duration().Seconds(), transcribed.Seconds()/max(audio.Duration().Seconds(), 1e-9), modelFile)
	}
	if err != nil {
		if ctx.Err() != nil {
			return fail(errors.New("interrupted"))
		}
		return fail(err)
	}
	// Marked or not, whisper's text is printed with its hidden characters
	// rendered visible.
	showText(e.stdout, speech.MarkUnsure(text, words)+"\n")
	return exitOK
}

// loadWhisper builds whisper.cpp over modelFile with the settings'
// language, threads and vocabulary and the VAD model if one is installed,
// and loads it: the one transcriber of hark transcribe and hark ask --wav.
func loadWhisper(ctx context.Context, st settings.Settings, paths settings.Paths, modelFile string) (*whisper.Transcriber, error) {
	tr, err := whisper.New(whisper.Options{
		ModelPath:     modelFile,
		Language:      st.Language,
		Threads:       st.WhisperThreads,
		InitialPrompt: machineVocabulary(st.InitialPrompt),
		VADModelPath:  models.FindVAD(paths.Models),
	})
	if err != nil {
		return nil, err
	}
	if err := tr.Warm(ctx); err != nil {
		tr.Close()
		return nil, err
	}
	return tr, nil
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// transcribeSettings reads the settings for the model name, language, threads
// and vocabulary prompt.
func transcribeSettings() (settings.Paths, settings.Settings, error) {
	paths, err := settings.DefaultPaths()
	if err != nil {
		return paths, settings.Settings{}, err
	}
	st, err := settings.Load(paths.Settings)
	if err != nil {
		return paths, st, fmt.Errorf("%w (fix or delete the file to use the defaults)", err)
	}
	return paths, st, nil
}

// resolveModel turns --model (or the whisperModel setting) into a file
// through the models catalog: a path is used as it is, a name is that
// model's file in the models folder, and a missing one gives the command
// that downloads it.
func resolveModel(model string, paths settings.Paths) (string, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return "", errors.New("no model given; pass --model NAME (see `hark models list`) or set whisperModel in the settings")
	}
	return models.Resolve(model, paths.Models, models.Catalog)
}
