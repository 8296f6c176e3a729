package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
)

func init() {
	register(&command{
		name:    "models",
		usage:   "list | download [NAME] | pull [NAME]",
		summary: "List the whisper models and which are installed, or download one (default: the whisperModel setting); pull has Ollama download the language model (default: the ollamaModel setting).",
		about: `list shows every whisper model of the catalog, which are installed and where; download fetches one
(resuming an interrupted download) and checks its published checksum. pull has Ollama download
the language model, with the same progress bar.`,
		run: runModels,
	})
}

func runModels(ctx context.Context, e *env, args []string) int {
	usage := func() { writeUsage(e.stderr, "models", nil) }
	if len(args) == 0 {
		usage()
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage()
		return exitOK
	case "list":
		if len(args) != 1 {
			usage()
			return exitUsage
		}
		return modelsList(e)
	case "download":
		return modelsDownload(ctx, e, args[1:])
	case "pull":
		return modelsPull(ctx, e, args[1:])
	}
	showf(e.stderr, "hark models: unknown subcommand %q\n", args[0])
	usage()
	return exitUsage
}

func modelsList(e *env) int {
	paths, st, err := voiceSettings()
	if err != nil {
		showln(e.stderr, "hark models:", err)
		return exitError
	}
	installed, err := models.List(paths.Models, models.All())
	if err != nil {
		showln(e.stderr, "hark models:", err)
		return exitError
	}
	where := map[string]string{}
	for _, in := range installed {
		where[in.Name] = in.Path
	}
	showf(e.stdout, "Models folder: %s\n", paths.Models)
	showf(e.stdout, "In use (whisperModel setting): %s\n\n", st.WhisperModel)
	tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tSIZE\tINSTALLED")
	for _, m := range models.Catalog {
		mark := " "
		if m.Name == st.WhisperModel {
			mark = "*"
		}
		state := "-"
		if p, ok := where[m.Name]; ok {
			state = p
		}
		showf(tw, "%s %s\t%s\t%s\n", mark, m.Name, sizeText(m.SizeMiB), state)
	}
	for _, in := range installed {
		if !in.Known {
			showf(tw, "  %s\t%s\t%s\n", in.Name, sizeText(int(in.Bytes>>20)), in.Path)
		}
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "\n* in use. Models ending in .en are English-only; -q5_*/-q8_0 are quantized (smaller, slightly less accurate).\nDownload one with `hark models download NAME`.\n")
	vad := models.FindVAD(paths.Models)
	fmt.Fprintf(e.stdout, "\nVoice activity detection (trims silence, refuses noise before whisper runs; the first installed is used):\n")
	tw = tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	for _, m := range models.VADCatalog {
		mark, state := " ", "-"
		if p, ok := where[m.Name]; ok {
			state = p
			if p == vad {
				mark = "*"
			}
		}
		showf(tw, "%s %s\t%s\t%s\n", mark, m.Name, sizeText(m.SizeMiB), state)
	}
	tw.Flush()
	if vad == "" {
		fmt.Fprintf(e.stdout, "None installed: Hark falls back to its loudness check. Install one with `hark models download %s`.\n", models.VADCatalog[0].Name)
	}
	return exitOK
}

func sizeText(mib int) string {
	if mib >= 1024 {
		return fmt.Sprintf("%.1f GiB", float64(mib)/1024)
	}
	return fmt.Sprintf("%d MiB", mib)
}

// modelArgs reads the arguments of `hark models SUB [NAME]` and the
// settings: NAME ("" when not given), or ok false with the exit code.
func modelArgs(e *env, sub string, args []string) (name string, paths settings.Paths, st settings.Settings, code int, ok bool) {
	fs := flag.NewFlagSet("models "+sub, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return "", paths, st, code, false
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(e.stderr, "Usage: hark models %s [NAME]\n", sub)
		return "", paths, st, exitUsage, false
	}
	paths, st, err := voiceSettings()
	if err != nil {
		showln(e.stderr, "hark models:", err)
		return "", paths, st, exitError, false
	}
	return fs.Arg(0), paths, st, 0, true
}

func modelsDownload(ctx context.Context, e *env, args []string) int {
	name, paths, st, code, ok := modelArgs(e, "download", args)
	if !ok {
		return code
	}
	if name == "" {
		name = st.WhisperModel
		if _, err := models.Lookup(models.Catalog, name); err != nil {
			name = models.Default
		}
	}
	d := &models.Downloader{
		BaseURL:  st.ModelBaseURL,
		Dir:      paths.Models,
		Progress: newProgressPrinter(e.stderr, e.isTerminal).report,
	}
	path, err := d.Download(ctx, name)
	if err != nil {
		showln(e.stderr, "hark models:", err)
		return exitError
	}
	showf(e.stdout, "%s: installed and verified at %s\n", name, path)
	if _, err := models.Lookup(models.VADCatalog, name); err == nil {
		fmt.Fprintln(e.stdout, "Hark uses it for voice activity detection from its next start.")
		return exitOK
	}
	if name != st.WhisperModel {
		showf(e.stdout, "Set \"whisperModel\": %q in %s to use it.\n", name, paths.Settings)
	}
	return exitOK
}

// modelsPull has Ollama download a language model, drawing its progress
// as download draws a whisper model's.
func modelsPull(ctx context.Context, e *env, args []string) int {
	name, paths, st, code, ok := modelArgs(e, "pull", args)
	if !ok {
		return code
	}
	if name == "" {
		name = st.OllamaModel
	}
	if remote := agent.RemoteHost(name, nil); remote != "" && !st.AllowCloudModels {
		showf(e.stderr, "hark models: %s is served by %s, not this machine, and Hark refuses it; pick a local model such as %s, or set \"allowCloudModels\": true if you accept that\n", name, remote, agent.DefaultModel)
		return exitError
	}
	if st.LLMRuntime == "openai" {
		showf(e.stderr, "hark models: pull has Ollama download a model, but llmRuntime is \"openai\": load %s in that server the way it offers (LM Studio's search, llama-server's -m, …)\n", name)
		return exitError
	}
	server := newServer(st)
	pr := newProgressPrinter(e.stderr, e.isTerminal)
	status, resumed := "", int64(-1)
	err := agent.Pull(ctx, server.ollama, server.host, name, func(p agent.PullProgress) {
		layer := strings.HasPrefix(p.Status, "pulling ") && p.Status != "pulling manifest"
		if !layer && p.Status != status {
			// Ollama's own steps (manifest, verifying, writing) get a
			// line each, after the bar.
			pr.finish()
			status = p.Status
			showf(e.stderr, "%s: %s\n", name, p.Status)
		}
		if !layer || p.Total <= 0 {
			return
		}
		if resumed < 0 {
			resumed = p.Done
		}
		pr.report(models.Progress{Model: name, Done: p.Done, Total: p.Total, Resumed: resumed})
	})
	pr.finish()
	if err != nil && errors.Is(err, agent.ErrCancelled) && ctx.Err() != nil {
		// Ctrl-C (or SIGTERM): Ollama ends a pull whose client left and
		// keeps the finished parts, so the same command picks up there.
		showf(e.stderr, "hark models: interrupted; Ollama keeps what it downloaded of %s — run `hark models pull %s` again to resume\n", name, name)
		return exitInterrupted
	}
	if err != nil {
		showln(e.stderr, "hark models:", err)
		return exitError
	}
	showf(e.stdout, "%s: pulled into Ollama at %s\n", name, server.host)
	if name != st.OllamaModel {
		showf(e.stdout, "Set \"ollamaModel\": %q in %s to use it.\n", name, paths.Settings)
	}
	return exitOK
}

// progressPrinter draws a bar that redraws itself on a terminal, and plain
// lines every 10% elsewhere (logs, CI), so neither fills up with noise.
type progressPrinter struct {
	w        io.Writer
	terminal bool
	lastTen  int64
	start    time.Time
	drawn    bool
	wide     int // the longest bar drawn so far, in bytes
}

func newProgressPrinter(w io.Writer, terminal bool) *progressPrinter {
	return &progressPrinter{w: w, terminal: terminal, lastTen: -1, start: time.Now()}
}

func (p *progressPrinter) report(pr models.Progress) {
	if pr.Total <= 0 {
		if p.terminal {
			showf(p.w, "\r%s: %.1f MiB", pr.Model, float64(pr.Done)/(1<<20))
		}
		return
	}
	frac := float64(pr.Done) / float64(pr.Total)
	if p.terminal {
		const width = 30
		n := int(frac * width)
		rate := float64(pr.Done-pr.Resumed) / (1 << 20) / max(time.Since(p.start).Seconds(), 0.001)
		left := ""
		if rate > 0 && pr.Done < pr.Total {
			secs := int(float64(pr.Total-pr.Done) / (1 << 20) / rate)
			left = fmt.Sprintf("%d:%02d left ", secs/60, secs%60)
		}
		line := fmt.Sprintf("%s [%s%s] %5.1f%% %.1f/%.1f MiB %.1f MiB/s %s", pr.Model,
			strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac,
			float64(pr.Done)/(1<<20), float64(pr.Total)/(1<<20), rate, left)
		// \r only moves the cursor: a line shorter than the last (the
		// final one has no time left) is padded to cover the old tail.
		pad := max(p.wide-len(line), 0)
		p.wide = max(p.wide, len(line))
		showf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
		p.drawn = true
		if pr.Done == pr.Total {
			fmt.Fprintln(p.w)
			p.drawn = false
		}
		return
	}
	if ten := int64(frac * 10); ten != p.lastTen {
		if p.lastTen < 0 && pr.Resumed > 0 {
			showf(p.w, "%s: resuming at %.1f MiB\n", pr.Model, float64(pr.Resumed)/(1<<20))
		}
		p.lastTen = ten
		showf(p.w, "%s: %d%% (%.1f of %.1f MiB)\n", pr.Model, ten*10, float64(pr.Done)/(1<<20), float64(pr.Total)/(1<<20))
	}
}

// finish ends a bar left half drawn (a pull that stopped, or one whose
// steps follow), so the next line starts clean.
func (p *progressPrinter) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
