package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/doctor"
	"github.com/hark-sh/hark/app/hotkey"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/app/tray"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/portaudio"
	"github.com/hark-sh/hark/speech/whisper"
)

func init() {
	register(&command{
		name:    "doctor",
		usage:   "[-v] [-timeout 2s] [-first-run]",
		summary: "Check everything Hark needs, one line each, with the fix for what is missing.",
		run:     runDoctor,
	})
}

func runDoctor(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	verbose := fs.Bool("v", false, "also show how long each check took")
	timeout := fs.Duration("timeout", doctor.DefaultTimeout, "give up on a check after this long")
	firstRun := fs.Bool("first-run", false, "for `make run`: also download the whisper model when missing, and exit 0 so the app still starts")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "Usage: hark doctor [-v] [-timeout 2s] [-first-run]")
		fmt.Fprintln(e.stderr, "Checks settings, folders, microphone, whisper, Ollama, sandbox, notifications, tray, hotkey and")
		fmt.Fprintln(e.stderr, "launch at login. Exits 1 when something Hark needs is missing (✗); ⚠ lines are optional.")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		fmt.Fprintln(e.stderr, "hark doctor:", err)
		return exitError
	}
	st, loadErr := settings.Load(paths.Settings) // on error: defaults, and the Settings check reports it

	start := time.Now()
	fmt.Fprintf(e.stdout, "Hark %s doctor (%s/%s)\n\n", version, runtime.GOOS, runtime.GOARCH)
	reports := doctor.Run(ctx, doctorChecks(paths, st, loadErr), *timeout)
	failed := doctor.Print(e.stdout, reports)
	if *verbose {
		fmt.Fprintf(e.stdout, "\nChecked in %s; slowest:\n", time.Since(start).Round(time.Millisecond))
		for _, r := range doctor.Slowest(reports)[:min(3, len(reports))] {
			fmt.Fprintf(e.stdout, "  %-20s %s\n", r.Check.Name, r.Elapsed.Round(time.Millisecond))
		}
	}
	if *firstRun {
		firstRunModel(ctx, e, st)
		return exitOK
	}
	if failed {
		return exitError
	}
	return exitOK
}

// doctorChecks wires the real adapters into the checks.
func doctorChecks(paths settings.Paths, st settings.Settings, loadErr error) []doctor.Check {
	goos := runtime.GOOS
	host := agent.ResolveHost(st.OllamaHost)
	client := agent.NewOllamaClient(host)
	checks := []doctor.Check{
		doctor.Settings(paths.Settings, loadErr),
		doctor.Folders(paths),
		doctor.Microphone(listMicrophones, st.Microphone, goos),
		doctor.WhisperBuild(whisper.Available(), goos),
		doctor.WhisperModel(st.WhisperModel, modelFile(paths.Models)),
		doctor.VADModel(func() (string, string, error) { return models.CheckVAD(paths.Models) }),
		doctor.Ollama(client, host.String(), goos),
		doctor.OllamaModel(client, host.String(), st.OllamaModel, goos),
		doctor.Sandbox(shell.SandboxStatus, goos),
	}
	if goos == "darwin" {
		checks = append(checks,
			doctor.MacNotifications(appBundlePath),
			doctor.MacTray(tray.Check),
			// Carbon hot keys need the app's run loop, so the real
			// registration is checked when Hark starts.
			doctor.Hotkey(st.Hotkey, parseHotkey, nil),
		)
	} else {
		addr, busErr := doctor.SessionBusAddress(os.Getenv)
		caps := doctor.NotificationCaps(addr)
		tray := doctor.StatusNotifierWatcher(addr)
		if busErr != nil {
			caps = func(context.Context) ([]string, error) { return nil, busErr }
			tray = func(context.Context) (bool, error) { return false, busErr }
		}
		checks = append(checks,
			doctor.Notifications(caps),
			doctor.TrayHost(tray),
			doctor.Hotkey(st.Hotkey, parseHotkey, grabHotkey),
		)
	}
	checks = append(checks, doctor.LoginItem(func() (bundle.Status, error) {
		l, err := bundle.DefaultLoginItem()
		if err != nil {
			return bundle.Status{}, err
		}
		return l.Status()
	}))
	return checks
}

// listMicrophones lists PortAudio's input devices. A build without PortAudio
// is reported as such, so the fix is to rebuild rather than to plug in a mic.
func listMicrophones(context.Context) ([]doctor.InputDevice, error) {
	devs, err := portaudio.Devices()
	defer portaudio.Terminate()
	if errors.Is(err, portaudio.ErrUnavailable) {
		return nil, doctor.ErrCannotRecord
	}
	if err != nil {
		return nil, err
	}
	out := make([]doctor.InputDevice, len(devs))
	for i, d := range devs {
		out[i] = doctor.InputDevice{Name: d.Name, Default: d.Default}
	}
	return out, nil
}

// modelFile maps the whisperModel setting to the file it means, whether or
// not it was downloaded yet (the check reports a missing file with the
// download command).
func modelFile(dir string) func(string) (string, error) {
	return func(setting string) (string, error) {
		if strings.ContainsRune(setting, os.PathSeparator) || strings.HasSuffix(setting, ".bin") {
			return setting, nil
		}
		m, err := models.Lookup(models.Catalog, setting)
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, m.File()), nil
	}
}

// parseHotkey reads the hotkey setting as the app will.
func parseHotkey(combo string) error {
	_, err := hotkey.Parse(combo)
	return err
}

// grabHotkey registers the push-to-talk combination on X11 and lets it go.
func grabHotkey(_ context.Context, combo string) error {
	c, err := hotkey.Parse(combo)
	if err != nil {
		return err
	}
	l, err := hotkey.Register(c, hotkey.Options{})
	if errors.Is(err, hotkey.ErrTaken) {
		return fmt.Errorf("%w (%v)", doctor.ErrHotkeyTaken, err)
	}
	if err != nil {
		return err
	}
	return l.Close()
}

// appBundlePath finds the Hark.app that notifications will come from: the
// one this binary runs in, else an installed one.
func appBundlePath() (string, bool) {
	if exe, err := os.Executable(); err == nil {
		if i := strings.Index(exe, ".app/Contents/MacOS/"); i >= 0 {
			return exe[:i+len(".app")], true
		}
	}
	for _, p := range []string{"/Applications/Hark.app", filepath.Join(os.Getenv("HOME"), "Applications", "Hark.app")} {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, true
		}
	}
	return "", false
}

// firstRunModel downloads the configured whisper model when this build can
// use it and it is missing, so `make run` ends with voice input working.
func firstRunModel(ctx context.Context, e *env, st settings.Settings) {
	paths, err := settings.DefaultPaths()
	if err != nil {
		return
	}
	if !whisper.Available() {
		fmt.Fprintln(e.stdout, "\nThis build has no whisper.cpp, so the speech model is not downloaded; Hark starts without voice input (`hark send` and Type a request… still work).")
		return
	}
	path, err := modelFile(paths.Models)(st.WhisperModel)
	if err != nil {
		return
	}
	if _, err := os.Stat(path); err == nil {
		return
	}
	if strings.ContainsRune(st.WhisperModel, os.PathSeparator) || strings.HasSuffix(st.WhisperModel, ".bin") {
		fmt.Fprintf(e.stdout, "\nThe whisper model %s is missing; put it there or change \"whisperModel\".\n", path)
		return
	}
	fmt.Fprintf(e.stdout, "\nDownloading the speech model %s…\n", st.WhisperModel)
	if code := runModels(ctx, e, []string{"download", st.WhisperModel}); code != exitOK {
		fmt.Fprintf(e.stdout, "The download did not finish; run `hark models download %s` later. Hark starts without voice input.\n", st.WhisperModel)
	}
}
