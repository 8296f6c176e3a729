package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/portaudio"
)

func init() {
	register(&command{
		name:    "record",
		usage:   "[--seconds N] [--device NAME] [-v] OUT.wav",
		summary: "Record from the microphone into a 16 kHz mono 16-bit WAV file.",
		about:   "Records from the microphone into OUT.wav (16 kHz, mono, 16-bit), the format whisper.cpp reads.",
		run:     runRecord,
	})
}

func runRecord(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	seconds := fs.Float64("seconds", 0, "record this many `seconds`; 0 records until Enter or Ctrl-C (at most the maxRecording setting)")
	device := fs.String("device", "", "input device `NAME` from `hark devices` (default: the microphone setting, else the system default)")
	verbose := fs.Bool("v", false, "print the device, stream rate and start latency to stderr")
	fs.Usage = func() { writeUsage(e.stderr, "record", fs) }
	// Flags may follow the file name too: `hark record out.wav --seconds 3`.
	var files []string
	for rest := args; ; {
		if code, ok := parseFlags(fs, rest); !ok {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 1 || !strings.HasSuffix(strings.ToLower(files[0]), ".wav") {
		fs.Usage()
		return exitUsage
	}
	if *seconds < 0 || *seconds > 600 {
		fmt.Fprintln(e.stderr, "hark record: --seconds must be between 0 and 600")
		return exitUsage
	}
	out := files[0]
	fail := func(err error) int {
		showln(e.stderr, "hark record:", err)
		return exitError
	}
	_, st, err := voiceSettings()
	if err != nil {
		return fail(err)
	}
	opts := portaudio.Options{Device: st.Microphone, Tail: st.RecordTail.D(), MaxLength: st.MaxRecording.D()}
	if *device != "" {
		opts.Device = *device
	}
	if *seconds > 0 {
		// Exactly N seconds: the maximum length ends it, with no tail.
		opts.MaxLength, opts.Tail = time.Duration(*seconds*float64(time.Second)), -1
	}
	autoStop := make(chan error, 1)
	opts.OnAutoStop = func(err error) { autoStop <- err }

	rec := portaudio.NewRecorder(opts)
	// Close releases the Recorder's hold on PortAudio; Terminate makes sure
	// the library is shut down before the process exits.
	defer portaudio.Terminate()
	defer rec.Close()
	// The recording outlives Ctrl-C: the signal ends it and the file is
	// still written.
	if err := rec.Start(context.WithoutCancel(ctx)); err != nil {
		return fail(err)
	}
	enter := make(chan struct{})
	if *seconds > 0 {
		fmt.Fprintf(e.stderr, "Recording %g s…\n", *seconds)
	} else {
		fmt.Fprintf(e.stderr, "Recording… press Enter (or Ctrl-C) to stop; it stops by itself after %s.\n", opts.MaxLength)
		go func() {
			bufio.NewReader(e.stdin).ReadString('\n')
			close(enter)
		}()
	}
	select {
	case err := <-autoStop:
		if err != nil {
			rec.Stop()
			return fail(err)
		}
	case <-enter:
	case <-ctx.Done():
	}
	audio, err := rec.Stop()
	if err != nil {
		return fail(err)
	}
	stats := rec.Stats()
	if *verbose {
		showf(e.stderr, "device %q, stream %d Hz × %d ch; Start took %s, first samples after %s; %d overflows; stopped by %s\n",
			stats.Device, stats.DeviceRate, stats.Channels, stats.StartDelay.Round(time.Millisecond), stats.FirstSample.Round(time.Millisecond), stats.Overflows, stats.StoppedBy)
	}
	if err := speech.WriteWAVFile(out, audio); err != nil {
		return fail(err)
	}
	lv := speech.Measure(audio)
	showf(e.stdout, "%s: %.1f s, 16 kHz mono 16-bit, peak %.0f dBFS\n", out, audio.Duration().Seconds(), lv.PeakDBFS)
	if _, err := speech.CheckSpeech(audio); err != nil {
		showf(e.stderr, "note: %v\n", err)
	}
	return exitOK
}
