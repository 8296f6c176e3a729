package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hark-sh/hark/agent"
)

// ModelPuller downloads an Ollama model, reporting progress as it goes;
// cancelling ctx stops the download. cmd/hark backs it with agent.Pull.
type ModelPuller interface {
	Pull(ctx context.Context, model string, progress func(agent.PullProgress)) error
}

// PullFunc is a ModelPuller made of a function.
type PullFunc func(ctx context.Context, model string, progress func(agent.PullProgress)) error

// Pull calls f.
func (f PullFunc) Pull(ctx context.Context, model string, progress func(agent.PullProgress)) error {
	return f(ctx, model, progress)
}

// PullView is a download under way, for the status line.
type PullView struct {
	Model    string
	Progress agent.PullProgress
	// Keeps says what a cancel keeps, for the Cancel download row.
	Keeps string
}

// pullJob is the loop's record of the one download that may run: the
// language model through Ollama, or a speech model into Hark's models
// folder (speech.go). Both run, report and stop the same way; only where
// the bytes go and what a finished one sets going differ.
type pullJob struct {
	model    string
	speech   bool // a speech model, not Ollama's
	cancel   context.CancelFunc
	progress agent.PullProgress
	started  time.Time
	resumed  bool // an earlier download of the model left a part to go on from
}

// What a cancelled download keeps, by where it went.
const (
	ollamaKeeps = "Ollama keeps what is downloaded for the next try, unless it restarts first"
	speechKeeps = "Hark keeps what is downloaded in its models folder for the next try"
)

func (j *pullJob) keeps() string {
	if j.speech {
		return speechKeeps
	}
	return ollamaKeeps
}

type (
	pullProgress struct{ p agent.PullProgress }
	pullDone     struct {
		model string
		last  agent.PullProgress
		err   error
	}
	// modelLoaded says the model answered for the first time (a preload
	// or a request), which is when /api/ps can tell where it sits.
	modelLoaded struct{}
)

func (pullProgress) isEvent() {}
func (pullDone) isEvent()     {}
func (modelLoaded) isEvent()  {}

// downloadOffer is the model a not-pulled error names, "" for any other
// error: the ollama check's error is then the menu's offer to download it.
func downloadOffer(err error) string {
	var e *agent.Error
	if errors.As(err, &e) && errors.Is(err, agent.ErrModelNotFound) {
		return e.Model
	}
	return ""
}

// modelMissingTitle is the problem row of a model Ollama lacks.
const modelMissingTitle = "Ollama model not ready"

// missingModelText is a not-pulled error in the tray's words: what is
// missing, then the menu's Download row (or, with no puller, the
// terminal command) — never a flag of a terminal command such as
// hark ask's --model, which means nothing to someone in the tray.
func (a *App) missingModelText(err error, model string) string {
	what, rest, _ := strings.Cut(err.Error(), "; ")
	if i := strings.Index(rest, " (installed: "); i >= 0 {
		what += rest[i:]
	}
	if a.o.Puller != nil {
		return sentence(what) + " Download it from the Hark menu (Download " + model + "), or choose a model you have: the ollamaModel setting, in Settings…"
	}
	return sentence(what) + " Run  ollama pull " + model + "  in a terminal, or choose a model you have: the ollamaModel setting, in Settings…"
}

// menuText is text written for a notification as the menu shows it:
// there, the Hark menu is where the reader already is.
func menuText(s string) string {
	return strings.ReplaceAll(s, "Download it from the Hark menu (Download ", "Download it below (Download ")
}

// trayText is an error in the tray's words: a not-pulled model as
// missingModelText says it, and a model that cannot call tools with the
// setting to change instead of hark ask's --model, a flag of a terminal
// command that means nothing to someone at the menu.
func (a *App) trayText(err error) string {
	if m := downloadOffer(err); m != "" {
		return a.missingModelText(err, m)
	}
	var e *agent.Error
	if errors.As(err, &e) && errors.Is(err, agent.ErrToolsUnsupported) && strings.Contains(err.Error(), "--model") {
		return fmt.Sprintf("Model %q cannot call tools, which Hark needs to run commands. Choose a model that can, such as %s, with the ollamaModel setting in Settings… (run  ollama pull %s  in a terminal to download it first).",
			e.Model, strings.Join(agent.ToolCapableModels, ", "), agent.ToolCapableModels[0])
	}
	return err.Error()
}

// Keys of the notifications a download makes stale: the one about the
// last download that stopped, and a failed request's about the model.
const downloadKey = "download"

func missingKey(model string) string { return "missing " + model }

// notifyFailed posts a failed request's notification; one about a model
// Ollama lacks goes under a key, so the download that brings the model
// withdraws it.
func (a *App) notifyFailed(err error, body string) {
	if m := downloadOffer(err); m != "" {
		a.notifyKey(missingKey(m), "Request failed", body)
		return
	}
	a.notify("Request failed", body)
}

// offerMissing puts a not-pulled model's problem row, with its Download
// row, in the menu at once, whoever found it missing: the periodic check
// or a request that just failed. It returns the problem's text, or ""
// when err is about something else.
func (a *App) offerMissing(err error) string {
	m := downloadOffer(err)
	if m == "" {
		return ""
	}
	text := a.missingModelText(err, m)
	p := ProblemInfo{Title: modelMissingTitle, Detail: text}
	if a.o.Puller != nil {
		p.Download = m
	}
	a.problems["ollama"] = p
	return text
}

// offerSize is what "Download MODEL (SIZE)" says: the built-in size of a
// recommended model, or the total an earlier attempt learnt; 0 leaves the
// size out.
func (a *App) offerSize(model string) int64 {
	if n := a.pullSizes[model]; n > 0 {
		return n
	}
	return agent.KnownSize(model)
}

// startPull downloads model on a goroutine of its own, under the loop's
// context (quitting stops it), posting progress as it changes by a tenth
// of a percent or says something new, so a fast download does not flood
// the loop.
func (a *App) startPull(ctx context.Context, model string) {
	puller := a.o.Puller
	if puller == nil {
		return
	}
	a.startDownload(ctx, &pullJob{model: model}, a.offerSize(model), func(ctx context.Context, progress func(agent.PullProgress)) error {
		return puller.Pull(ctx, model, progress)
	})
}

// startDownload runs fetch for job, the one download there may be.
func (a *App) startDownload(ctx context.Context, job *pullJob, size int64, fetch func(context.Context, func(agent.PullProgress)) error) {
	model := job.model
	if a.pull != nil || model == "" {
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	_, job.resumed = a.pullKept[model]
	if stopped := strings.HasPrefix(a.note, "download "); stopped || job.resumed {
		// How the last one stopped is over once this one runs.
		if stopped {
			a.note = ""
		}
		a.withdrawNote(downloadKey)
	}
	job.cancel, job.started = cancel, a.o.now()
	job.progress = agent.PullProgress{Model: model, Total: size, Status: "starting"}
	a.pull = job
	loop := a.loop
	go func() {
		defer cancel()
		var last agent.PullProgress
		shown := -1
		err := fetch(pctx, func(p agent.PullProgress) {
			permille := int(1000 * p.Fraction())
			if permille != shown || p.Status != last.Status {
				shown = permille
				loop.post(pullProgress{p: p})
			}
			last = p
		})
		loop.post(pullDone{model: model, last: last, err: err})
	}()
	a.renderNow()
}

func (a *App) pullMoved(e pullProgress) {
	if a.pull == nil {
		return
	}
	a.pull.progress = e.p
	if e.p.Total > 0 {
		a.pullSizes[a.pull.model] = e.p.Total
	}
	a.renderThrottled()
}

func (a *App) cancelPull() {
	if a.pull != nil {
		a.pull.cancel()
	}
}

// pullFinished tells the user how the download ended: a notification for
// success and failure (they may have stopped watching the menu), a
// remark for a cancel they chose. A success re-runs the ollama check, so
// the problem row goes away by itself.
func (a *App) pullFinished(ctx context.Context, e pullDone) {
	job := a.pull
	a.pull = nil
	if e.last.Total > 0 {
		a.pullSizes[e.model] = e.last.Total
	}
	switch {
	case e.err == nil:
		delete(a.pullKept, e.model)
		took := a.o.now().Sub(job.started).Round(time.Second)
		size := ""
		if e.last.Total > 0 {
			size = agent.SizeText(e.last.Total) + " "
		}
		if a.state == Error && a.lastMissing == e.model {
			// The error on the status line says to pull this model;
			// left there it would contradict the note.
			a.lastError, a.lastMissing = "", ""
			a.setState(Idle)
		}
		a.note = e.model + " downloaded"
		what := "Downloaded " + size
		if job.resumed {
			// Only the rest came now: the time is not the whole size's.
			what = "Finished downloading " + size
		}
		next := a.speakHint()
		if job.speech {
			next = a.speechDownloaded(ctx, e.model)
		} else {
			a.runCheck(ctx, "ollama")
			a.withdrawNote(missingKey(e.model))
		}
		a.notify("Model downloaded", fmt.Sprintf("%s is ready. %sin %s. %s", e.model, what, took, next))
	case errors.Is(e.err, agent.ErrCancelled) || errors.Is(e.err, context.Canceled):
		a.keepPart(e)
		kept := ""
		if pct := int(100 * e.last.Fraction()); pct > 0 {
			kept = fmt.Sprintf(" at %d%% — Resume download below goes on from there", pct)
		}
		a.note = "download cancelled" + kept
		a.notifyKey(downloadKey, "Download cancelled", cancelledText(e, job)+a.heldNote())
	default:
		a.keepPart(e)
		a.note = "download failed — see the notification"
		a.notifyKey(downloadKey, "Download failed", "Could not download "+e.model+": "+e.err.Error()+a.heldNote())
	}
	a.renderNow()
}

// keepPart remembers how far a stopped download got, for the offer to
// resume it.
func (a *App) keepPart(e pullDone) {
	if e.last.Total > 0 && e.last.Done > 0 {
		a.pullKept[e.model] = e.last
	}
}

// cancelledText says what a cancelled download leaves and how to go on.
func cancelledText(e pullDone, job *pullJob) string {
	if pct := int(100 * e.last.Fraction()); pct > 0 && job.speech {
		return fmt.Sprintf("%d%% of %s of %s was downloaded. Hark keeps it in its models folder: Resume download in the Hark menu goes on from there.",
			pct, agent.SizeText(e.last.Total), e.model)
	}
	if pct := int(100 * e.last.Fraction()); pct > 0 {
		return fmt.Sprintf("%d%% of %s of %s was downloaded. Ollama keeps it: Resume download in the Hark menu goes on from there (if Ollama restarts first, it starts over).",
			pct, agent.SizeText(e.last.Total), e.model)
	}
	return "Nothing of " + e.model + " was downloaded yet. Download it again from the Hark menu."
}

// modelAnswered runs the placement check after a load or an answer: only
// once the model is loaded does /api/ps know how much of it found GPU
// memory, and a request that ends before the load (a tap) must not use
// up the look. It is one local GET per request.
func (a *App) modelAnswered(ctx context.Context) {
	if a.o.Checks["gpu"] != nil {
		a.runCheck(ctx, "gpu")
	}
}
