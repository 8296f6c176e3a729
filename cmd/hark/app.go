package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/control"
	"github.com/hark-sh/hark/app/desktop"
	"github.com/hark-sh/hark/app/doctor"
	"github.com/hark-sh/hark/app/hotkey"
	"github.com/hark-sh/hark/app/logs"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/app/tray"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
	"github.com/hark-sh/hark/speech/portaudio"
)

func init() {
	register(&command{
		name: "run", usage: "[-v|--verbose]", summary: "Start the menu-bar app (what plain `hark` does).",
		about: "Starts Hark in the menu bar (the tray on Linux). Plain `hark` does the same.",
		run:   runApp,
	})
}

// runApp builds the real adapters around the core and runs the tray on the
// main goroutine (macOS draws the menu bar only from the main thread). Every
// missing piece of the desktop (X display, tray host, notification server,
// microphone, whisper) degrades to a status line, never to a crash.
func runApp(ctx context.Context, e *env, args []string) int {
	verbose, code, ok := runFlags(e, args)
	if !ok {
		return code
	}
	w := &wiring{e: e, verbose: verbose, problems: map[string]string{}, mainBound: runtime.GOOS == "darwin"}
	defer w.close()
	steps := []func(context.Context) error{
		w.openFiles,   // folders, the single-instance lock, settings
		w.openLog,     // the log file, or stderr when it cannot be opened
		w.adoptEnv,    // the login shell's PATH, the sandbox
		w.openDesktop, // control socket, notifications, voice input
		w.buildCore,   // the agent, the tray menu, app.New
	}
	for _, step := range steps {
		var done exitNow
		switch err := step(ctx); {
		case errors.As(err, &done):
			return done.code
		case err != nil:
			showln(e.stderr, "hark:", err)
			return exitError
		}
	}
	return w.run(ctx)
}

func runFlags(e *env, args []string) (verbose bool, code int, ok bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.BoolVar(&verbose, "v", false, "log debug detail")
	fs.BoolVar(&verbose, "verbose", false, "the same as -v")
	fs.Usage = func() { writeUsage(e.stderr, "run", fs) }
	code, ok = parseFlags(fs, args)
	return verbose, code, ok
}

// exitNow ends runApp with code and nothing more to say: the step said it.
type exitNow struct{ code int }

func (x exitNow) Error() string { return fmt.Sprintf("exit %d", x.code) }

// wiring is what runApp builds, one step at a time; close undoes it in
// reverse.
type wiring struct {
	e         *env
	verbose   bool
	closers   []func()
	closeOnce sync.Once

	paths       settings.Paths
	st          settings.Settings
	settingsErr error
	log         *slog.Logger
	// problems are shown in the status line once the core runs, keyed by
	// source.
	problems    map[string]string
	ctl         *control.Server
	menu        *tray.Tray
	loginPath   *app.LoginPath
	escape      *escapeProxy
	note        desktop.Result
	recorder    app.Recorder
	transcriber app.Transcriber
	core        *app.App
	// mainBound: the closers registered with onCloseMain need the main
	// thread (macOS: Carbon hot keys, systray's drawing), and close runs on
	// it, blocked in onExit or after the event loop stopped.
	mainBound bool
}

func (w *wiring) onClose(f func()) { w.closers = append(w.closers, f) }

// onCloseMain adds a closer that may need the main thread. Where close
// runs on that thread (w.mainBound) it is started and not waited for:
// waiting would stall every quit, or hang it for good.
func (w *wiring) onCloseMain(f func()) {
	w.onClose(func() {
		if w.mainBound {
			go f()
			return
		}
		f()
	})
}

// close runs the closers once, in reverse: both the AppKit quit path
// (shutdown, from the tray's onExit) and runApp's defer call it.
func (w *wiring) close() {
	w.closeOnce.Do(func() {
		for i := len(w.closers) - 1; i >= 0; i-- {
			w.closers[i]()
		}
	})
}

// exitGrace bounds how long a quit waits for the core to stop (end the
// turn, signal a running command's process group, record the approval as
// cancelled) before the closers run anyway: macOS ends the process as soon
// as onExit returns, and a logout must not hang on Hark.
const exitGrace = 2 * time.Second

// shutdown is the one way out of the app however the quit came: the menu,
// `hark quit`, or AppKit's terminate (logout, restart, Activity Monitor,
// `osascript -e 'quit app "Hark"'`), which calls the tray's onExit and then
// exit(), so that runApp's deferred cleanup never runs. It cancels the
// core, waits up to grace for done, then runs closeAll. It reports whether
// the core stopped in time.
//
// A command the core stopped has SIGTERM and the runner's kill grace to
// end, no shorter than exitGrace: one that ignores SIGTERM would still run
// when exit() comes, and on macOS nothing ends it with Hark. So when the
// core is late, kill (shell.KillRunning) sends its group SIGKILL first.
func shutdown(stop func(), done <-chan struct{}, grace time.Duration, kill func() int, closeAll func(), log *slog.Logger) bool {
	stop()
	t := time.NewTimer(grace)
	defer t.Stop()
	stopped := true
	select {
	case <-done:
	case <-t.C:
		stopped = false
		log.Warn("quit: the core did not stop in time; closing anyway", "waited", grace, "commands killed", kill())
	}
	closeAll()
	return stopped
}

// files makes Hark's folders, takes the single-instance lock and reads the
// settings (a broken file leaves the defaults in use and a status line).
func (w *wiring) openFiles(ctx context.Context) error {
	paths, st, err := loadSettings()
	var bad *badSettings
	if err != nil && !errors.As(err, &bad) {
		return err
	}
	w.paths, w.st = paths, st
	if bad != nil {
		w.settingsErr = bad.err // the core's status line says how to fix it
	}
	for _, dir := range []string{filepath.Dir(paths.Settings), paths.History, paths.Logs, paths.Runtime} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("cannot create %s: %v", dir, err)
		}
	}
	release, err := control.AcquireInstanceLock(paths.Runtime)
	if errors.Is(err, control.ErrAlreadyRunning) {
		// The running Hark is told, and says so; this one logs it, since a
		// second Hark.app has no visible stderr.
		return exitNow{anotherLaunch(ctx, w.e, paths, w.verbose)}
	}
	if err != nil {
		return err
	}
	w.onClose(release)
	return nil
}

func (w *wiring) openLog(context.Context) error {
	log, closeLog, err := logs.Setup(w.paths, w.verbose)
	if err != nil {
		// The log is a convenience; stderr still works.
		showf(w.e.stderr, "hark: logging to stderr only: %v\n", err)
		log = slog.New(logs.NewHandler(w.e.stderr, slog.LevelInfo))
		closeLog = io.NopCloser(nil)
	}
	w.onClose(func() { closeLog.Close() })
	w.log = log
	if w.settingsErr != nil {
		log.Warn("settings file rejected; using defaults", "err", w.settingsErr)
	}
	return nil
}

// adoptEnv adopts the login shell's PATH and checks the sandbox.
func (w *wiring) adoptEnv(ctx context.Context) error {
	// GUI apps on macOS start with a minimal PATH; commands must find what
	// the user's Terminal finds. Resolved in the background so a slow shell
	// startup never delays the menu-bar icon; commands wait for it (bounded).
	w.loginPath = app.StartLoginShellPath(ctx, runtime.GOOS)
	if ok, detail := shell.SandboxStatus(); !ok && shell.SandboxMode(w.st.Sandbox) != shell.SandboxOff {
		w.log.Warn("no sandbox", "detail", detail)
		w.problems["sandbox"] = "No sandbox here: git, interpreters and package managers ask before they run, every command from another program asks, " +
			"and confirmation stays on (" + detail + ")"
	}
	return nil
}

// openDesktop opens the control socket, the notification server and the
// microphone with its transcriber; each one missing is a status line.
func (w *wiring) openDesktop(context.Context) error {
	ctl, err := control.Listen(w.paths.Runtime)
	if err != nil {
		w.log.Warn("control socket", "err", err)
		w.problems["control"] = fmt.Sprintf("`hark send` will not reach this app: %v", err)
	}
	w.ctl = ctl
	w.note = desktop.Setup(desktop.Options{Logger: w.log})
	w.onClose(func() { w.note.Close() })
	if w.note.Problem != "" {
		w.problems["notifications"] = w.note.Problem
	}
	recorder, transcriber, voiceProblem := voiceInput(w.st, w.paths, w.log)
	if voiceProblem != "" {
		w.problems["voice"] = voiceProblem
	}
	if recorder != nil {
		w.onClose(func() { portaudio.Terminate() })
	}
	if c, ok := transcriber.(io.Closer); ok {
		w.onClose(func() { c.Close() }) // frees the whisper model
	}
	w.recorder, w.transcriber = recorder, transcriber
	return nil
}

// buildCore builds the one agent of the app's lifetime (machine facts are
// gathered once; the conversation, confirmer, progress callback and confirm
// switch come from the core with each request), the tray menu and the core.
func (w *wiring) buildCore(context.Context) error {
	var bin *trash.Bin
	ag, server, err := newAgent(w.st, w.paths, "", func(o *agent.Options) {
		bin = o.Trash
		o.Executor = &app.PathGatedExecutor{Path: w.loginPath, New: func() agent.Executor { return newRunner(w.st) }}
		if runtime.GOOS == "darwin" {
			o.Executor = folderPromptWatcher(o.Executor, w.note.Notifier, w.log)
		}
		if rp := rulesProblems(o.Rules); len(rp) > 0 {
			for _, p := range rp {
				w.log.Warn("rules", "problem", p)
			}
			w.problems["rules"] = strings.Join(rp, "\n") + "\nhark rules list shows every rule and why it is ignored."
		}
	})
	if err != nil {
		return err
	}
	post := func(ev app.Event) bool { return w.core.Post(ev) }
	menu := tray.New(tray.Options{Post: post, Logger: w.log})
	w.menu = menu
	w.onCloseMain(menu.Close)
	prompter, yesNo, missing := choosePrompter(runtime.GOOS, os.Getenv, exec.LookPath, os.Executable)
	if v, ok := w.problems["voice"]; ok && missing != "" {
		w.problems["voice"] = v + " (" + missing + ")"
	}
	st, log, paths := w.st, w.log, w.paths
	w.escape = &escapeProxy{begin: desktop.BeginActivity}
	w.core = app.New(app.Options{
		Settings:      st,
		Paths:         paths,
		SettingsError: w.settingsErr,
		NoSandbox:     noSandbox(shell.SandboxMode(st.Sandbox)),
		Recorder:      w.recorder,
		Transcriber:   w.transcriber,
		Agent:         ag,
		Notifier:      w.note.Notifier,
		Approver:      w.note.Approver,
		Menu:          menu,
		Prompter:      prompter,
		YesNo:         yesNo,
		Viewer:        desktop.DetectTextViewer(runtime.GOOS, os.Getenv, exec.LookPath),
		History:       newStore(paths.History),
		LoginItem:     loginItem{},
		Trash:         appTrash(bin),
		Escape:        w.escape,
		Cues:          cuePlayer(),
		Speaker:       speaker(st.Language, log),
		LogFile:       logs.File(paths),
		AuditText:     func() (string, error) { return auditText(paths.Audit) },
		Logger:        log,
		Checks: map[string]func(context.Context) error{
			"ollama": func(ctx context.Context) error {
				ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				warnings, err := server.check(ctx, ag.Model(), st.ContextLength, st.AllowCloudModels)
				for _, w := range warnings {
					log.Warn("ollama", "warning", w)
				}
				return ollamaProblem(server.name(), err)
			},
			// The probe `hark doctor` shows on its Tray line.
			"tray": probeCheck(tray.ProbeHost),
			"gpu":  gpuCheck(server, st.Model()),
		},
		Puller:     modelPuller(server),
		Speech:     speechModels(st, paths, w.transcriber),
		WatchEvery: watchEvery(),
		OnTranscribeStart: func(d time.Duration) {
			log.Info("transcription started", "sinceKeyUpMs", float64(d.Microseconds())/1000)
		},
	})
	return nil
}

// gpuCheck is the "gpu" check of Ollama's model placement; other runtimes
// report no placement, so they get none.
func gpuCheck(server server, model string) func(context.Context) error {
	if server.ollama == nil {
		return nil
	}
	return (&agent.GPUWatch{Client: server.ollama, Model: model}).Check
}

// modelPuller lets the menu download a missing model through Ollama; other
// runtimes download models their own way, so the menu offers none.
func modelPuller(server server) app.ModelPuller {
	if server.ollama == nil {
		return nil
	}
	return app.PullFunc(func(ctx context.Context, model string, fn func(agent.PullProgress)) error {
		return agent.Pull(ctx, server.ollama, server.host, model, fn)
	})
}

// run starts the core and everything that feeds it, then the tray on this
// goroutine, and returns when the core has stopped.
func (w *wiring) run(ctx context.Context) int {
	e, core := w.e, w.core
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	// The hotkey lets go of its grab when ctx ends (the portal's session
	// Close is a D-Bus call): quitting waits for that, a little, so the
	// desktop keeps no session of a Hark that is gone. On macOS letting go
	// needs the main thread, which runs this closer: it is not waited for
	// there (Carbon hot keys end with the process anyway).
	hotkeyDone := make(chan struct{})
	var hotkeyStarted atomic.Bool
	w.onCloseMain(func() {
		if !hotkeyStarted.Load() {
			return
		}
		select {
		case <-hotkeyDone:
		case <-time.After(2 * time.Second):
			w.log.Warn("quit: the hotkey did not let go within 2s")
		}
	})
	// start runs the core and everything that feeds it. On macOS it must run
	// off the main thread, after the tray exists (Carbon hot keys need the
	// Cocoa loop running).
	start := func() {
		go func() {
			core.Run(ctx)
			stop()
			w.menu.Close() // nothing may reach systray once Quit closes its connection
			tray.Quit()
		}()
		for src, msg := range w.problems {
			core.Post(app.Problem{Source: src, Message: msg})
		}
		go func() {
			select {
			case <-w.loginPath.Done():
			case <-ctx.Done():
				return
			}
			if err := w.loginPath.Err(); err != nil {
				w.log.Warn("login shell PATH", "err", err)
				core.Post(app.Problem{Source: "path", Message: fmt.Sprintf("could not read your login shell's PATH (%v); commands run with %s", err, os.Getenv("PATH"))})
			}
		}()
		if w.ctl != nil {
			w.ctl.OnAnotherLaunch(alreadyRunningNotice(w.note.Notifier, w.log))
			// Cancelling is the whole quit: the core stops, its goroutine
			// above quits the tray, and the tray's onExit finishes.
			w.ctl.OnQuit(func() {
				w.log.Info("quit asked through the control socket")
				stop()
			})
			go func() {
				if err := w.ctl.Serve(ctx, core.Post); err != nil {
					w.log.Warn("control socket stopped", "err", err)
				}
			}()
		}
		hotkeyStarted.Store(true)
		go func() {
			defer close(hotkeyDone)
			runHotkey(ctx, w.st, core, w.note.Notifier, w.log)
		}()
		// On Wayland no app may take Escape for a moment: the portal's
		// cancel shortcut, Cancel in the menu and `hark listen --cancel`
		// do what it does elsewhere.
		if !hotkey.WaylandSession(os.Getenv) {
			go runEscape(ctx, w.escape, core, w.log)
		}
	}

	showf(e.stderr, "hark: running (log: %s)\n", logs.File(w.paths))
	if err := tray.Check(); err != nil {
		// No tray: the app still works through the hotkey, notifications
		// and `hark send`; the reason goes to stderr and the log.
		showf(e.stderr, "hark: %v; running without a menu\n", err)
		w.log.Warn("no tray", "err", err)
		// Without a menu there is no status line: stderr is the only place
		// left to say what else is missing.
		for src, msg := range w.problems {
			showf(e.stderr, "hark: %s: %s\n", src, msg)
		}
		if w.note.Approver == nil {
			fmt.Fprintf(e.stderr, "hark: with neither a menu nor notifications nobody can approve a command; those that need approval are denied after %v (read-only ones still run)\n", w.st.ConfirmTimeout.D())
		}
		start()
		<-core.Done()
	} else if err := tray.Run(start, func() { shutdown(stop, core.Done(), exitGrace, shell.KillRunning, w.close, w.log) }); err != nil {
		showf(e.stderr, "hark: %v\n", err)
		return exitError
	}
	stop()
	<-core.Done()
	fmt.Fprintln(e.stderr, "hark: stopped")
	return exitOK
}

// choosePrompter picks how "Type a request…" asks: a native dialog
// (osascript, zenity, kdialog), which also asks before confirmation is
// switched off; else, on Linux, the user's terminal emulator running
// `hark send --prompt`. With neither, missing says what would enable it.
func choosePrompter(goos string, getenv func(string) string, lookPath func(string) (string, error), executable func() (string, error)) (app.Prompter, app.YesNo, string) {
	if p := desktop.DetectPrompter(goos, lookPath); p != nil {
		var yesNo app.YesNo
		if ep, ok := p.(*desktop.ExecPrompter); ok {
			yesNo = ep
		}
		return p, yesNo, ""
	}
	if goos == "darwin" {
		return nil, nil, "Type a request… needs osascript, which every macOS has; check your PATH"
	}
	t, ok := desktop.DetectTerminal(getenv, lookPath)
	if !ok {
		return nil, nil, "Type a request… needs a terminal emulator or zenity: install xterm (sudo apt-get install xterm) or set $TERMINAL"
	}
	exe, err := executable()
	if err != nil {
		return nil, nil, fmt.Sprintf("Type a request… cannot find this program to run in %s: %v", t.Name, err)
	}
	tp := desktop.NewTerminalPrompter(t, []string{exe, "send", "--prompt"})
	tp.ReasonCommand = []string{exe, "send"}
	return tp, nil, ""
}

// probeCheck is an adapter's doctor probe as one of the core's re-checks:
// the status line shows the problem with its fix.
func probeCheck(p doctor.Probe) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := p(ctx)
		var fixer interface{ Fix() string }
		if errors.As(err, &fixer) && fixer.Fix() != "" {
			return fmt.Errorf("%w — %s", err, fixer.Fix())
		}
		return err
	}
}

// ollamaProblem titles a failed check of the model server (name: Ollama,
// LM Studio, …) for its menu row: the server down, or up without the
// model.
func ollamaProblem(name string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if errors.Is(err, agent.ErrCloudModel) {
		return &app.TitledError{Title: name + " model is not on this machine", Err: err}
	}
	if errors.Is(err, agent.ErrOllamaTooOld) {
		return &app.TitledError{Title: "Ollama is too old — update it (Problems…)", Err: err}
	}
	if strings.Contains(msg, "model") && !strings.Contains(msg, "not running") {
		return &app.TitledError{Title: name + " model not ready", Err: err}
	}
	return err
}

// runHotkey grabs the push-to-talk combination and forwards its events. A
// failure is a status line (and, when the combination is taken, a
// notification), never the end of the app.
func runHotkey(ctx context.Context, st settings.Settings, core *app.App, notifier app.Notifier, log *slog.Logger) {
	combo, err := hotkey.Parse(st.Hotkey)
	if err != nil {
		core.Post(app.Problem{Source: "hotkey", Message: err.Error() + " — fix \"hotkey\" in Settings…"})
		return
	}
	// A combination the system already uses may register without error
	// (macOS lets two owners share one) and still never reach Hark.
	if what, taken := hotkey.SystemShortcut(combo, runtime.GOOS); taken {
		log.Warn("hotkey is a system shortcut", "combo", combo.String(), "used by", what)
		core.Post(app.Problem{Source: "hotkey-shortcut", Message: fmt.Sprintf("The hotkey %s is already %s here; choose another \"hotkey\" in Settings…", st.Hotkey, "used for "+what)})
	}
	if hotkey.WaylandSession(os.Getenv) {
		runPortalHotkey(ctx, combo, core, log)
		return
	}
	// The modes are the core's business (it reads the setting); the
	// adapter reports plain presses and releases, timed when the key moved.
	l, err := hotkey.Register(combo, hotkey.Options{})
	if err != nil {
		log.Warn("hotkey unavailable", "combo", combo.String(), "err", err)
		p := app.Problem{Source: "hotkey", Message: err.Error()}
		if errors.Is(err, hotkey.ErrTaken) {
			p.Title = "Hotkey " + combo.String() + " is taken by another app"
		}
		core.Post(p)
		if errors.Is(err, hotkey.ErrTaken) && notifier != nil {
			// Unlike a missing X server, a taken combination is something
			// the user just caused and can fix at once: say it out loud.
			if nerr := notifier.Notify("Hotkey unavailable", err.Error()); nerr != nil {
				log.Warn("notification failed", "err", nerr)
			}
		}
		return
	}
	defer l.Close()
	log.Info("hotkey registered", "combo", combo.String())
	forwardKeys(ctx, l.Events(), nil, nil, core)
}

// forwardKeys posts the hotkey's events to the core until ctx ends or the
// events stop; onChange runs on each signal of changed (the portal's
// reassignments; nil where the key is Hark's own grab).
func forwardKeys(ctx context.Context, events <-chan hotkey.Event, changed <-chan struct{}, onChange func(), core *app.App) {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			var out app.Event = app.KeyDown{At: ev.At}
			switch ev.Kind {
			case hotkey.Up:
				out = app.KeyUp{At: ev.At}
			case hotkey.Cancel:
				out = app.Escape{}
			}
			if !core.Post(out) {
				return
			}
		case <-changed:
			onChange()
		case <-ctx.Done():
			return
		}
	}
}

// runPortalHotkey is the hotkey on a Wayland desktop: the GlobalShortcuts
// portal lends it (the desktop asks the user once), with the setting as the
// preferred trigger and a second "cancel" shortcut for what Escape does
// elsewhere. Without the portal, or when the user declines its dialog, the
// status line says how to bind `hark listen` instead.
func runPortalHotkey(ctx context.Context, combo hotkey.Combo, core *app.App, log *slog.Logger) {
	l, err := hotkey.RegisterPortal(combo, hotkey.PortalOptions{})
	switch {
	case errors.Is(err, hotkey.ErrDeclined):
		log.Info("the desktop's shortcut dialog was declined")
		core.Post(app.Problem{Source: "hotkey", Title: "No hotkey: the desktop's shortcut dialog was declined",
			Message: "You declined Hark's shortcut in the desktop's dialog; speak with `hark listen` bound to a key (see `hark doctor`) or use Type a request…"})
		return
	case err != nil:
		log.Info("no GlobalShortcuts portal", "err", err)
		core.Post(app.Problem{Source: "hotkey", Title: "No hotkey on this Wayland desktop",
			Message: "This desktop lends no global key to apps: bind `hark listen` to " + combo.String() + " in its keyboard settings (`hark doctor` prints the lines), or use Type a request…"})
		return
	}
	defer l.Close()
	report := func() {
		t := l.Trigger(hotkey.PortalListen)
		if t == "" {
			core.Post(app.Problem{Source: "hotkey", Title: "No key assigned to Hark's shortcut",
				Message: "The desktop bound Hark's shortcut without a key: assign one in its keyboard settings (Hark → Talk to Hark), or use `hark listen`"})
		} else {
			core.Post(app.Problem{Source: "hotkey"}) // clears an earlier one
		}
		core.Post(app.HotkeyAssigned{Trigger: t})
		log.Info("hotkey through the GlobalShortcuts portal", "trigger", t)
	}
	report()
	forwardKeys(ctx, l.Events(), l.Changed(), report, core)
}

// voiceInput builds the microphone and the transcriber, or says why voice
// input is off.
func voiceInput(st settings.Settings, paths settings.Paths, log *slog.Logger) (app.Recorder, app.Transcriber, string) {
	if err := portaudio.Init(); err != nil {
		return nil, nil, fmt.Sprintf("no microphone access (%v) — use Type a request… or `hark send`", err)
	}
	tr, err := newTranscriber(st, paths, log)
	if err != nil {
		portaudio.Terminate()
		return nil, nil, err.Error()
	}
	rec := portaudio.NewRecorder(portaudio.Options{
		Device:    st.Microphone,
		Tail:      st.RecordTail.D(),
		MaxLength: st.MaxRecording.D(),
	})
	// macOS: ask for the microphone now, so its prompt comes at launch and
	// the first press never records the silence of an open prompt.
	if ask := desktop.MicrophoneQuestion(); ask != nil {
		return app.MicGatedRecorder{Recorder: rec, Permission: app.AskMicPermission(ask)}, tr, ""
	}
	return rec, tr, ""
}

// loginItem backs the tray's "Launch at login" checkbox with the same
// LaunchAgent or autostart entry that `hark login-item` manages.
type loginItem struct{}

func (loginItem) Enabled() (bool, error)   { return bundle.LaunchAtLogin() }
func (loginItem) SetEnabled(on bool) error { return bundle.SetLaunchAtLogin(on) }

// appTrash hands the agent's Trash to the app, or none: a nil *trash.Bin
// must not become a non-nil interface.
func appTrash(b *trash.Bin) app.Trash {
	if b == nil {
		return nil
	}
	return b
}
