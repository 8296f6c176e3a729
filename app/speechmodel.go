package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
	"github.com/hark-sh/hark/speech/models"
)

// SpeechModels lets the menu download what voice input lacks when Hark
// starts able to listen but without its whisper model (or the voice
// activity model): each choice is a row with its size and what else it
// costs, and the download runs, reports and stops as the language
// model's does (pull.go). cmd/hark sets it where whisper.cpp is built in.
type SpeechModels struct {
	// Downloader installs models into its Dir (Paths.Models) from its
	// BaseURL (the modelBaseURL setting); its Catalog (nil: models.All())
	// is what can be offered. Its Progress is replaced by the app's.
	Downloader models.Downloader
	// Use, when set, makes the Transcriber use a model just installed at
	// path: a whisper model other than the one it was built with, or the
	// voice activity model. It runs off the event loop. Nil: the
	// Transcriber finds the model by itself at its next load.
	Use func(m models.Model, path string) error
}

func (s *SpeechModels) catalog() []models.Model {
	if s.Downloader.Catalog != nil {
		return s.Downloader.Catalog
	}
	return models.All()
}

// The problem rows of missing speech models.
const (
	speechMissingTitle = "No speech model yet"
	vadMissingTitle    = "No voice activity model (optional)"
)

// heldVoice ends a turn whose recording had no speech model to turn it
// into words: the loop keeps the recording until the model is in place.
type heldVoice struct{ audio speech.Audio }

func (*heldVoice) Error() string {
	return "no speech model yet: the request is kept until one is in place"
}

// speechMissing says the whisper model is on offer, so a recording made
// now is kept rather than transcribed.
func (a *App) speechMissing() bool {
	return len(a.problems["transcriber"].Offers) > 0
}

// offerSpeech puts in the menu the speech models voice input lacks, each
// with its Download row: the voice activity model when none is installed,
// and the whisper model the settings name, with others to choose from,
// when its file is not in the models folder. It reports whether the
// whisper model is on offer; a setting that names a file of the user's
// own is never offered, and its check says what is wrong.
func (a *App) offerSpeech() bool {
	s := a.o.Speech
	if s == nil || a.o.Recorder == nil || a.o.Transcriber == nil {
		return false
	}
	dir, catalog := s.Downloader.Dir, s.catalog()
	var whisper, vad []models.Model
	for _, m := range catalog {
		switch {
		case !models.IsVAD(m):
			whisper = append(whisper, m)
		case vad == nil:
			vad = []models.Model{m}
		}
	}
	if models.FindVAD(dir) != "" {
		delete(a.problems, "vad")
	} else if vad != nil {
		a.problems["vad"] = ProblemInfo{Title: vadMissingTitle, Offers: a.speechOffers(vad, dir),
			Detail: fmt.Sprintf("No voice activity model: music and typing can reach whisper, which may invent words for them. Download %s (%s) from the Hark menu; Hark uses it as soon as it is in place.",
				vad[0].Name, agent.SizeText(int64(vad[0].SizeMiB)<<20))}
	}
	setting := a.settings.WhisperModel
	if _, err := models.Lookup(whisper, setting); err != nil {
		return false
	}
	path, _ := models.Path(setting, dir, whisper)
	if _, err := os.Stat(path); err == nil {
		return false
	}
	offers := models.Offers(setting, a.settings.Language, whisper)
	if len(offers) == 0 {
		return false
	}
	a.problems["transcriber"] = ProblemInfo{Title: speechMissingTitle, Detail: speechMissingText(setting, dir, offers), Offers: a.speechOffers(offers, dir)}
	return true
}

// speechMissingText is the detail behind the row: what is missing, the
// choices with what each costs, and what happens to what is said meanwhile.
func speechMissingText(setting, dir string, offers []models.Model) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Hark can hear you, but has no speech model to turn what you say into text (%s is not in %s). Download one from the Hark menu:\n", setting, dir)
	for _, m := range offers {
		fmt.Fprintf(&b, "  • %s — %s, %s", m.Name, agent.SizeText(int64(m.SizeMiB)<<20), models.About(m))
		if m.Name == setting {
			b.WriteString(" (the whisperModel setting)")
		}
		b.WriteString("\n")
	}
	b.WriteString("Another than the setting's becomes the whisperModel setting. What you say before a model is in place is kept, and Hark transcribes it once the model arrives.")
	return b.String()
}

// speechOffers are the rows of ms. A part an earlier run left in dir (Hark
// quit during the download) is offered to resume.
func (a *App) speechOffers(ms []models.Model, dir string) []DownloadOffer {
	var out []DownloadOffer
	for _, m := range ms {
		size := int64(m.SizeMiB) << 20
		tip := "Download it into Hark's models folder now; progress shows in the status line"
		if !models.IsVAD(m) && m.Name != a.settings.WhisperModel {
			tip += "; it becomes the whisperModel setting"
		}
		out = append(out, DownloadOffer{ID: PrefixSpeechModel + m.Name, Name: m.Name, Size: size, About: models.About(m), Tip: tip,
			ResumeTip: "Hark keeps the part already downloaded in its models folder and goes on from it"})
		if _, ok := a.pullKept[m.Name]; ok {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, m.File()+".part")); err == nil && fi.Size() > 0 {
			a.pullKept[m.Name] = agent.PullProgress{Model: m.Name, Done: fi.Size(), Total: size}
		}
	}
	return out
}

// offersNow is offers as the menu shows them now: the size a download
// learnt from the host, and the part an earlier one left.
func (a *App) offersNow(offers []DownloadOffer) []DownloadOffer {
	out := append([]DownloadOffer(nil), offers...)
	for i, o := range out {
		if n := a.pullSizes[o.Name]; n > 0 {
			out[i].Size = n
		}
		if kept := a.pullKept[o.Name]; kept.Total > 0 && kept.Total == out[i].Size {
			out[i].Kept = kept.Fraction()
		}
	}
	return out
}

// startSpeechDownload downloads the speech model name, as the language
// model's download runs: one at a time, progress on the status line,
// Cancel download in the menu, a part kept to resume from.
func (a *App) startSpeechDownload(ctx context.Context, name string) {
	s := a.o.Speech
	if s == nil {
		return
	}
	m, err := models.Lookup(s.catalog(), name)
	if err != nil {
		return
	}
	size := int64(m.SizeMiB) << 20
	if n := a.pullSizes[name]; n > 0 {
		size = n
	}
	d, use, now := s.Downloader, s.Use, a.o.now
	a.startDownload(ctx, &pullJob{model: name, speech: true}, size, func(ctx context.Context, progress func(agent.PullProgress)) error {
		// The tracker that sums Ollama's layers gives this one file the
		// same rate and time left.
		t := &agent.PullTracker{Model: name}
		d.Progress = func(p models.Progress) {
			progress(t.Add(api.ProgressResponse{Status: "downloading", Digest: m.File(), Total: p.Total, Completed: p.Done}, now()))
		}
		path, err := d.Download(ctx, name)
		if err != nil {
			return err
		}
		if use != nil {
			if err := use(m, path); err != nil {
				return fmt.Errorf("%s is downloaded, but Hark could not switch to it (%w); quit Hark and start it again to use it", name, err)
			}
		}
		return nil
	})
}

// speechDownloaded follows a finished speech download: the voice activity
// model's row goes; a whisper model becomes the setting if it was another
// choice, and the transcriber's check loads it, which runs a request kept
// meanwhile. It returns the notification's next step.
func (a *App) speechDownloaded(ctx context.Context, name string) string {
	if models.IsVAD(models.Model{Name: name}) {
		delete(a.problems, "vad")
		return a.speakHint()
	}
	if name != a.settings.WhisperModel {
		// What the app started with changes too, so the settings watcher
		// does not ask for a restart that is not needed.
		a.o.Settings.WhisperModel, a.settings.WhisperModel = name, name
		if err := settings.Update(a.o.Paths.Settings, func(s *settings.Settings) { s.WhisperModel = name }); err != nil {
			a.log.Warn("saving whisperModel", "err", err)
			a.note = fmt.Sprintf("Could not save the setting: %v", err)
		}
	}
	next := "Hold " + a.hotkeyName() + " and speak."
	if a.settings.HotkeyMode == ModeToggle {
		next = "Press " + a.hotkeyName() + " and speak."
	}
	if a.held != nil {
		next = "Hark now transcribes the request you spoke while it was missing."
	}
	if a.o.Checks["transcriber"] == nil {
		delete(a.problems, "transcriber")
		a.runHeld(ctx)
		return next
	}
	a.problems["transcriber"] = ProblemInfo{Title: "Loading the speech model", Detail: name + " is downloaded; Hark is loading it."}
	a.runCheck(ctx, "transcriber")
	return next
}

// holdVoice keeps a recording made while no speech model was there, and
// says so where the user looks: nothing spoken is dropped unsaid.
func (a *App) holdVoice(h *heldVoice) {
	replaced := a.held != nil
	a.held = &h.audio
	a.stream = ""
	a.setState(Idle)
	a.note = "request kept — it runs once the speech model is in place"
	body := "Hark has no speech model yet, so it kept what you said: it transcribes and runs it as soon as the model is in place."
	if a.pull != nil && a.pull.speech {
		body += fmt.Sprintf(" The download of %s under way brings it (%s).", a.pull.model, a.pull.progress)
	} else if p := a.problems["transcriber"]; len(p.Offers) > 0 {
		body += " Download one from the Hark menu: " + strings.TrimSpace(offerRow(a.offersNow(p.Offers)[0]).Label) + "."
	}
	if replaced {
		body += " It replaces the request you spoke before, which was kept too."
	}
	body += " Quitting Hark first loses it."
	a.notify("Request kept", body)
}

// heldNote is what a stopped download's notification adds while a
// spoken request waits for the model.
func (a *App) heldNote() string {
	if a.held == nil {
		return ""
	}
	return " The request you spoke is still kept: it runs once a speech model is in place."
}

// runHeld transcribes and runs the request kept while the speech model
// was missing, once it is in place and nothing else is under way.
func (a *App) runHeld(ctx context.Context) {
	if a.held == nil || ctx == nil || a.state.Busy() || a.answer != nil || a.speechMissing() {
		return
	}
	audio := *a.held
	a.held = nil
	r := a.newTurn(ctx, "voice", "", nil)
	r.kept = &audio
	a.setState(Transcribing)
	a.note = "the request you spoke while the speech model was missing"
	a.renderNow()
	a.startTurn(r)
	a.preload(ctx)
}
