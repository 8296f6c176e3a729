package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/portaudio"
)

func init() {
	register(&command{
		name:    "devices",
		usage:   "",
		summary: "List the microphones (input devices); * marks the system default.",
		about:   "Lists the input devices. Put a name in the \"microphone\" setting, or pass it to `hark record --device`.",
		run:     runDevices,
	})
}

func runDevices(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { writeUsage(e.stderr, "devices", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	devs, err := portaudio.Devices()
	// Devices balances its own Init; this makes sure PortAudio is down
	// before the process exits whatever happened.
	defer portaudio.Terminate()
	if err != nil {
		showln(e.stderr, "hark devices:", err)
		return exitError
	}
	if len(devs) == 0 {
		fmt.Fprintln(e.stderr, "hark devices: no input devices found; connect a microphone (on macOS also allow Hark in System Settings → Privacy & Security → Microphone)")
		return exitError
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tCHANNELS\tRATE\tHOST API")
	for _, d := range devs {
		mark := " "
		if d.Default {
			mark = "*"
		}
		showf(tw, "%s %s\t%d\t%.0f Hz\t%s\n", mark, d.Name, d.Channels, d.SampleRate, d.HostAPI)
	}
	tw.Flush()
	return exitOK
}

// voiceSettings finds Hark's files and reads the settings for the voice
// commands (devices, record, models).
func voiceSettings() (settings.Paths, settings.Settings, error) {
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
