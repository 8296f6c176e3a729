package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/openai"
	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/desktop"
	"github.com/hark-sh/hark/app/doctor"
	"github.com/hark-sh/hark/app/hotkey"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/app/tray"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/portaudio"
	"github.com/hark-sh/hark/speech/whisper"
)

func init() {
	register(&command{
		name:    "doctor",
		usage:   "[-v] [-timeout 2s] [-first-run]",
		summary: "Check everything Hark needs, one line each, with the fix for what is missing.",
		about: `Checks settings, folders, microphone, whisper, Ollama, sandbox, notifications, tray, hotkey and
launch at login. Exits 1 when something Hark needs is missing (✗); ⚠ lines are optional.`,
		run: runDoctor,
	})
}

func runDoctor(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	verbose := fs.Bool("v", false, "also show how long each check took, and how the sandbox confines commands in the kernel's terms")
	timeout := fs.Duration("timeout", doctor.DefaultTimeout, "give up on a check after this long")
	firstRun := fs.Bool("first-run", false, "for make run: also download the whisper model when missing, and exit 0 so the app still starts")
	fs.Usage = func() { writeUsage(e.stderr, "doctor", fs) }
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		showln(e.stderr, "hark doctor:", err)
		return exitError
	}
	st, loadErr := settings.Load(paths.Settings) // on error: defaults, and the Settings check reports it

	start := time.Now()
	fmt.Fprintf(e.stdout, "Hark %s doctor (%s/%s)\n\n", version, runtime.GOOS, runtime.GOARCH)
	reports := doctor.Run(ctx, doctorChecks(paths, st, loadErr, doctorOptions{whisper: whisper.Available(), verbose: *verbose}), *timeout)
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

// doctorOptions are what shapes the list of checks beyond the settings:
// whether this build has whisper.cpp, and whether -v asks for the detail.
type doctorOptions struct {
	whisper bool
	verbose bool
}

// doctorChecks lists the checks: doctor's own (settings, folders, launch
// at login) and the probe each adapter exports.
func doctorChecks(paths settings.Paths, st settings.Settings, loadErr error, o doctorOptions) []doctor.Check {
	goos := runtime.GOOS
	server := newServer(st)
	checks := []doctor.Check{
		doctor.Settings(paths.Settings, loadErr),
		doctor.Folders(paths),
		// Without whisper.cpp in this build voice input is off, so its
		// microphone and model are not things Hark needs now.
		doctor.FromProbe("Microphone", o.whisper, func(ctx context.Context) (string, error) { return portaudio.ProbeMicrophone(ctx, st.Microphone) }),
		// Voice input is optional (typed requests work without it), so
		// a build without whisper.cpp is a ⚠ line, never a ✗.
		doctor.FromProbe("Speech recognition", false, whisper.ProbeBuild),
	}
	// A build without whisper.cpp cannot use a speech model: advice to
	// download one would cost a download and change nothing. The Speech
	// recognition line says what brings voice input; once it is built
	// in, these lines say which models it still needs.
	if o.whisper {
		checks = append(checks,
			doctor.FromProbe("Whisper model", true, func(ctx context.Context) (string, error) {
				return models.ProbeModel(ctx, st.WhisperModel, paths.Models)
			}),
			doctor.FromProbe("Voice activity model", false, func(ctx context.Context) (string, error) {
				return models.ProbeVAD(ctx, paths.Models)
			}),
			doctor.FromProbe("Speech speed", false, func(ctx context.Context) (string, error) {
				return probeSpeechSpeed(ctx, st.WhisperModel, paths.Models)
			}))
	}
	checks = append(checks, modelChecks(st, server, goos)...)
	checks = append(checks, []doctor.Check{
		doctor.FromProbe("Sandbox", false, func(ctx context.Context) (string, error) {
			return sandboxLine(ctx, shell.ProbeSandbox, o.verbose)
		}),
		doctor.FromProbe("Notifications", false, desktop.ProbeNotifications),
		doctor.FromProbe("Spoken replies", false, func(context.Context) (string, error) {
			return desktop.ProbeSpeaker(goos, st.Language, st.Speak)
		}),
		doctor.FromProbe("Tray", true, tray.ProbeHost),
		doctor.FromProbe("Hotkey", true, func(ctx context.Context) (string, error) {
			return hotkeyProbe(ctx, paths.Runtime, st.Hotkey, hotkey.Probe)
		}),
		doctor.LoginItem(func() (bundle.Status, error) {
			l, err := bundle.DefaultLoginItem()
			if err != nil {
				return bundle.Status{}, err
			}
			return l.Status()
		}),
	}...)
	if goos == "darwin" {
		checks = append(checks, doctor.MacSignature(desktop.BundlePath, codesignDisplay))
	}
	checks = append(checks, intelChecks(goos, runtime.GOARCH, o.whisper, st.WhisperModel)...)
	return append(checks, focusChecks(goos)...)
}

// intelSlowMiB is the size above which a speech model is slow on a CPU
// alone: base.en (142 MiB) answers in about a second there, small.en
// (466 MiB) in several.
const intelSlowMiB = 200

// intelChecks is, on an Intel Mac with voice input, the line saying that
// speech runs on the CPU: Homebrew has no ggml bottles for Intel Macs,
// builds ggml from source and without Metal there. A model larger than
// base then costs seconds per request, which the line says before the
// user blames Hark.
func intelChecks(goos, goarch string, hasWhisper bool, model string) []doctor.Check {
	if goos != "darwin" || goarch != "amd64" || !hasWhisper {
		return nil
	}
	return []doctor.Check{{Name: "Speech on an Intel Mac", Run: func(context.Context) doctor.Result {
		const detail = "runs on the CPU only: Homebrew builds ggml from source on Intel Macs, without Metal"
		if m, err := models.Lookup(models.Catalog, model); err == nil && m.SizeMiB > intelSlowMiB {
			return doctor.Result{
				Status: doctor.Warn,
				Detail: fmt.Sprintf("%s, and %s (%d MiB) may take several seconds per request", detail, m.Name, m.SizeMiB),
				Fix:    fmt.Sprintf("set \"whisperModel\": %q (or \"tiny.en\") in settings; the Speech speed line times the model you have", models.Default),
			}
		}
		return doctor.Result{Status: doctor.OK, Detail: detail + "; keep a small model such as " + models.Default}
	}}}
}

// sandboxPlain is the Sandbox line in a user's words: what the sandbox
// means for the commands Hark runs, not how the kernel holds it.
const sandboxPlain = "on: read-only commands cannot change anything, and an approved command can change only what its approval shows"

// sandboxLine is the Sandbox line: plain words when it works, with the
// kernel's terms (Landlock ABI, namespaces) only under -v. A sandbox that
// does not work keeps the probe's own words: they name what is missing.
func sandboxLine(ctx context.Context, probe doctor.Probe, verbose bool) (string, error) {
	detail, err := probe(ctx)
	switch {
	case err != nil:
		return detail, err
	case verbose && detail != "":
		return sandboxPlain + " (" + detail + ")", nil
	}
	return sandboxPlain, nil
}

// probeSpeechSpeed times whisper.cpp on its built-in clip with the model
// the settings choose; a missing model is the Whisper model line's to
// report, so this line only says it has nothing to time.
func probeSpeechSpeed(ctx context.Context, setting, dir string) (string, error) {
	path, err := models.Path(setting, dir, models.Catalog)
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil {
		return "", &speech.ProbeError{Problem: "no whisper model to time yet", Next: "see the Whisper model line", Minor: true}
	}
	return whisper.ProbeSpeed(ctx, path)
}

// focusChecks is, on macOS, the line saying that a Focus hides approval
// banners: marking them time-sensitive needs an entitlement that only an
// Apple-issued profile grants, which a locally signed build cannot carry.
func focusChecks(goos string) []doctor.Check {
	if goos != "darwin" {
		return nil
	}
	return []doctor.Check{{Name: "Approvals in Focus", Run: func(context.Context) doctor.Result {
		return doctor.Result{
			Status: doctor.Warn,
			Detail: "a Focus holds approval banners back: this build cannot carry the Time Sensitive entitlement; the menu-bar icon still turns to the approval mark while one waits",
			Fix:    "add Hark to the Focus's allowed apps (System Settings › Focus › your Focus › Allowed Notifications), or answer from the menu",
		}
	}}}
}

// modelChecks are the lines of the model server the settings choose:
// Ollama and its model, or the OpenAI-compatible server with its model;
// and, beside either, which such servers answer on this machine's usual
// ports, with the settings lines to use them.
func modelChecks(st settings.Settings, server server, goos string) []doctor.Check {
	local := doctor.FromProbe("Local runtimes", false, func(ctx context.Context) (string, error) {
		return openai.ProbeLocal(ctx, openai.Ports)
	})
	switch {
	case server.err != nil:
		return []doctor.Check{doctor.FromProbe("Model server", true, func(context.Context) (string, error) {
			problem, next, _ := strings.Cut(server.err.Error(), "; ")
			return "", &shell.ProbeError{Problem: problem, Next: next}
		}), local}
	case server.runtime != nil:
		// Which server answers is known only once the probe has asked it
		// (llama-server off its usual port is told by its /props), so the
		// row is "Model server" and the line names the server it found.
		return []doctor.Check{doctor.FromProbe("Model server", true, func(ctx context.Context) (string, error) {
			return agent.ProbeRuntime(ctx, server.runtime, server.host, st.Model(), st.AllowCloudModels)
		}), local}
	}
	return []doctor.Check{
		doctor.FromProbe("Ollama", true, func(ctx context.Context) (string, error) {
			return agent.ProbeServer(ctx, server.ollama, server.host, goos)
		}),
		doctor.FromProbe("Ollama model", true, func(ctx context.Context) (string, error) {
			return agent.ProbeModel(ctx, server.ollama, server.host, st.Model(), goos, st.AllowCloudModels)
		}),
		doctor.FromProbe("Model in GPU memory", false, func(ctx context.Context) (string, error) {
			return agent.ProbeGPU(ctx, server.ollama, server.host, st.Model())
		}),
		local,
	}
}

// codesignDisplay is what `codesign -dv` says about app (it prints to
// stderr, and exits 1 for an unsigned app, which the output says too).
func codesignDisplay(ctx context.Context, app string) string {
	out, _ := exec.CommandContext(ctx, "/usr/bin/codesign", "-dv", "--verbose=2", app).CombinedOutput()
	return string(out)
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
	path, err := models.Path(st.WhisperModel, paths.Models, models.Catalog)
	if err != nil {
		return
	}
	if _, err := os.Stat(path); err == nil {
		return
	}
	if strings.ContainsRune(st.WhisperModel, os.PathSeparator) || strings.HasSuffix(st.WhisperModel, ".bin") {
		showf(e.stdout, "\nThe whisper model %s is missing; put it there or change \"whisperModel\".\n", path)
		return
	}
	fmt.Fprintf(e.stdout, "\nDownloading the speech model %s…\n", st.WhisperModel)
	if code := runModels(ctx, e, []string{"download", st.WhisperModel}); code != exitOK {
		fmt.Fprintf(e.stdout, "The download did not finish; run `hark models download %s` later. Hark starts without voice input.\n", st.WhisperModel)
	}
}

// hotkeyProbe checks the hotkey. While a Hark app runs it holds the
// hotkey itself, so "already taken" is then no problem (`hark doctor` is
// what Problems… suggests running while Hark is up); every other failure
// (no X display, no portal) still shows.
func hotkeyProbe(ctx context.Context, runtimeDir, key string, probe func(context.Context, string) (string, error)) (string, error) {
	msg, err := probe(ctx, key)
	if errors.Is(err, hotkey.ErrTaken) && control.Running(runtimeDir) {
		return key + " (held by the running Hark)", nil
	}
	return msg, err
}
