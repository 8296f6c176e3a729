package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
)

// modelHost serves model files as the model host does (Range requests
// resume), can hold a file's response part-way until released, and
// records the Range of every request.
type modelHost struct {
	*httptest.Server
	files   map[string][]byte
	holdAt  map[string]int
	held    chan string // a file whose response reached its hold
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	ranges  map[string][]string
}

var rangeStart = regexp.MustCompile(`^bytes=(\d+)-$`)

func newModelHost(t *testing.T, files map[string][]byte) *modelHost {
	t.Helper()
	h := &modelHost{files: files, holdAt: map[string]int{}, held: make(chan string, 8), release: make(chan struct{}), ranges: map[string][]string{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		data, ok := h.files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.mu.Lock()
		h.ranges[name] = append(h.ranges[name], r.Header.Get("Range"))
		hold := h.holdAt[name]
		h.mu.Unlock()
		start := 0
		if m := rangeStart.FindStringSubmatch(r.Header.Get("Range")); m != nil {
			start, _ = strconv.Atoi(m[1])
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-start))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		}
		if hold > start {
			w.Write(data[start:hold])
			w.(http.Flusher).Flush()
			h.held <- name
			select {
			case <-h.release:
			case <-r.Context().Done():
				return
			}
			start = hold
		}
		w.Write(data[start:])
	}))
	t.Cleanup(h.Server.Close)
	t.Cleanup(h.goOn) // runs first: Close waits for held responses
	return h
}

func (h *modelHost) goOn() { h.once.Do(func() { close(h.release) }) }

func (h *modelHost) rangesOf(file string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ranges[file]...)
}

// speechCatalog is a catalog of stand-ins for the real models, 1 MiB
// each, under the real names and file names, with their real checksums.
func speechCatalog() ([]models.Model, map[string][]byte) {
	files := map[string][]byte{}
	var cat []models.Model
	for _, name := range []string{"base.en", "small.en", "tiny.en", "base", "small", "silero-v5"} {
		data := make([]byte, 1<<20)
		for i := range data {
			data[i] = byte(i*7 + len(name))
		}
		sum := sha256.Sum256(data)
		m := models.Model{Name: name, SizeMiB: 1, Checksum: "sha256:" + hex.EncodeToString(sum[:])}
		if name == "silero-v5" {
			m.FileName = "ggml-silero-v5.1.2.bin"
		}
		files[m.File()] = data
		cat = append(cat, m)
	}
	return cat, files
}

// used is what the Use hook was told: the model and where it went.
type used struct {
	model, path string
}

// speechHarness is the app started able to listen but with no speech
// model, against a local model host. Its transcriber check fails, as
// whisper's load does, while the setting's model file is missing.
type speechHarness struct {
	*harness
	host *modelHost
	cat  []models.Model
	used chan used
	// armed receives when a failed check arms the re-check timer, which
	// checkFinished does just before it renders what the check found.
	armed chan struct{}
}

func startSpeech(t *testing.T, edit func(*Options)) *speechHarness {
	t.Helper()
	cat, files := speechCatalog()
	host := newModelHost(t, files)
	sh := &speechHarness{host: host, cat: cat, used: make(chan used, 8), armed: make(chan struct{}, 8)}
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	sh.harness = start(t, answerAgent("you have 3 downloads"), func(o *Options) {
		// Each look at the clock is a second later: the download's rate
		// and time left come out of the bytes alone.
		o.now = func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }
		o.RecheckFirst = time.Hour
		o.afterFunc = func(d time.Duration, f func()) func() bool {
			if d == time.Hour {
				sh.armed <- struct{}{}
			}
			return time.AfterFunc(d, f).Stop
		}
		o.Settings.WhisperModel = "base.en"
		dir := o.Paths.Models
		o.Checks = map[string]func(context.Context) error{"transcriber": func(context.Context) error {
			mu.Lock()
			setting := o.Settings.WhisperModel
			mu.Unlock()
			path, err := models.Path(setting, dir, cat)
			if err != nil {
				return err
			}
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("whisper: model file %s does not exist; download it with `hark models download %s`", path, setting)
			}
			return nil
		}}
		o.Speech = &SpeechModels{
			Downloader: models.Downloader{BaseURL: host.URL, Dir: dir, Catalog: cat},
			Use: func(m models.Model, path string) error {
				if m.Name != "base.en" && !models.IsVAD(m) {
					// The transcriber now loads this one.
					mu.Lock()
					o.Settings.WhisperModel = m.Name
					mu.Unlock()
				}
				sh.used <- used{m.Name, path}
				return nil
			},
		}
		if edit != nil {
			edit(o)
		}
	})
	return sh
}

func rowLabel(v View, id string) string {
	it, _ := itemWithID(BuildMenu(v), id)
	return it.Label
}

// Started without its speech models, Hark offers each choice in the menu
// with what it costs: size, English only or multilingual, what machine it
// fits; and the voice activity model, as optional.
func TestMenuOffersTheSpeechModels(t *testing.T) {
	t.Parallel()
	h := startSpeech(t, nil)
	v := h.views.wait(t, "the offer", func(v View) bool {
		return rowLabel(v, PrefixSpeechModel+"base.en") != "" && v.Problems["transcriber"].Title == speechMissingTitle
	})
	for id, want := range map[string]string{
		"base.en":   "    Download base.en (1.0 MB) — English only, fits any laptop",
		"small.en":  "    Download small.en (1.0 MB) — English only, fits most laptops, 1 GB of memory",
		"tiny.en":   "    Download tiny.en (1.0 MB) — English only, fits any laptop, least accurate",
		"base":      "    Download base (1.0 MB) — multilingual, fits any laptop",
		"silero-v5": "    Download silero-v5 (1.0 MB) — optional: keeps music and typing away from whisper",
	} {
		if got := rowLabel(v, PrefixSpeechModel+id); got != want {
			t.Errorf("row %s: %q, want %q", id, got, want)
		}
	}
	if got := rowLabel(v, PrefixSpeechModel+"small"); got != "" {
		t.Errorf("a fifth whisper model is offered: %q", got)
	}
	if s := StatusLine(v); !strings.HasPrefix(s, "No speech model yet — download one below") {
		t.Errorf("status line %q", s)
	}
	d := v.Problems["transcriber"].Detail
	for _, want := range []string{"base.en — 1.0 MB, English only, fits any laptop (the whisperModel setting)", "base — 1.0 MB, multilingual", "is kept"} {
		if !strings.Contains(d, want) {
			t.Errorf("the problem's detail lacks %q:\n%s", want, d)
		}
	}
	// The offer outlives the transcriber check's own error.
	recv(t, "the check's verdict", h.armed)
	mark := h.views.mark()
	h.app.Post(Problem{Source: "none"}) // handled after the verdict, and renders
	v = h.views.waitFrom(t, mark, "a later render", func(View) bool { return true })
	if v.Problems["transcriber"].Title != speechMissingTitle {
		t.Errorf("the check replaced the offer: %+v", v.Problems["transcriber"])
	}
}

// The speech model's download shows its progress and time left, can be
// cancelled from the menu, keeps the part, and resumes it from there.
func TestSpeechModelDownloadCancelsAndResumes(t *testing.T) {
	t.Parallel()
	h := startSpeech(t, nil)
	file := "ggml-base.en.bin"
	hold := (1<<20)*48/100 + 1000
	h.host.holdAt[file] = hold
	h.views.wait(t, "the offer", func(v View) bool { return rowLabel(v, PrefixSpeechModel+"base.en") != "" })
	h.app.Post(MenuClick{ID: PrefixSpeechModel + "base.en"})
	recv(t, "the host's hold", h.host.held)
	v := h.views.wait(t, "progress with time left", func(v View) bool {
		s := StatusLine(v)
		return strings.HasPrefix(s, "Downloading base.en: 48% of 1.0 MB · ") && strings.Contains(s, "B/s · ") && strings.HasSuffix(s, " left")
	})
	m := BuildMenu(v)
	if it, ok := itemWithID(m, IDCancelDownload); !ok || !strings.Contains(it.Tooltip, "Hark keeps what is downloaded") {
		t.Errorf("Cancel download row %+v", it)
	}
	if _, ok := itemWithID(m, PrefixSpeechModel+"base.en"); ok {
		t.Error("the download is still offered while it runs")
	}
	mark := h.views.mark()
	h.app.Post(MenuClick{ID: IDCancelDownload})
	v = h.views.waitFrom(t, mark, "cancelled", func(v View) bool { return v.Pull == nil && strings.HasPrefix(v.Note, "download cancelled") })
	if !strings.Contains(v.Note, "48%") || !strings.Contains(v.Note, "Resume download") {
		t.Errorf("the status line %q does not say what was kept", v.Note)
	}
	n := recv(t, "the cancel's notification", h.notifier.got)
	if n.title != "Download cancelled" || !strings.Contains(n.body, "48% of 1.0 MB of base.en") || !strings.Contains(n.body, "models folder") {
		t.Errorf("notification %+v", n)
	}
	part := filepath.Join(h.paths.Models, file+".part")
	fi, err := os.Stat(part)
	if err != nil || fi.Size() < (1<<20)*48/100 {
		t.Fatalf("the part is not kept: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(h.paths.Models, file)); err == nil {
		t.Fatal("a cancelled download installed the model")
	}
	resume := "    Resume download base.en (1.0 MB, 48% already downloaded)"
	h.views.wait(t, "the offer to resume", func(v View) bool { return rowLabel(v, PrefixSpeechModel+"base.en") == resume })

	h.app.Post(MenuClick{ID: PrefixSpeechModel + "base.en"})
	n = recv(t, "the ready notification", h.notifier.got)
	if n.title != "Model downloaded" || !strings.HasPrefix(n.body, "base.en is ready. Finished downloading 1.0 MB in ") {
		t.Errorf("notification %+v", n)
	}
	if got := h.host.rangesOf(file); len(got) != 2 || got[0] != "" || got[1] != fmt.Sprintf("bytes=%d-", fi.Size()) {
		t.Errorf("requests' ranges %q, want the second to go on from the %d bytes kept", got, fi.Size())
	}
	h.views.wait(t, "voice ready", func(v View) bool {
		_, ok := v.Problems["transcriber"]
		return !ok && v.Pull == nil
	})
	if u := recv(t, "the switch", h.used); u.model != "base.en" || u.path != filepath.Join(h.paths.Models, file) {
		t.Errorf("Use got %+v", u)
	}
}

// A request spoken while the speech model is missing is kept, the user is
// told so, and it is transcribed and run once the model arrives.
func TestSpokenRequestWaitsForTheSpeechModel(t *testing.T) {
	t.Parallel()
	h := startSpeech(t, nil)
	h.views.wait(t, "the offer", func(v View) bool { return rowLabel(v, PrefixSpeechModel+"base.en") != "" })
	h.app.Post(KeyDown{})
	recv(t, "the recording", h.rec.started)
	h.app.Post(KeyUp{})
	n := recv(t, "the kept notification", h.notifier.got)
	if n.title != "Request kept" || !strings.Contains(n.body, "kept what you said") || !strings.Contains(n.body, "Download base.en (1.0 MB)") {
		t.Errorf("notification %+v", n)
	}
	h.views.wait(t, "the note", func(v View) bool { return v.State == Idle && strings.Contains(StatusLine(v), "request kept") })
	select {
	case <-h.tr.called:
		t.Fatal("transcribed with no speech model")
	default:
	}
	h.app.Post(MenuClick{ID: PrefixSpeechModel + "small.en"})
	n = recv(t, "the ready notification", h.notifier.got)
	if !strings.HasPrefix(n.body, "small.en is ready.") || !strings.Contains(n.body, "transcribes the request you spoke") {
		t.Errorf("notification %+v", n)
	}
	recv(t, "the kept request's transcription", h.tr.called)
	if r := recv(t, "the request", h.agent.calls); r.Text != "list my downloads" {
		t.Errorf("the agent got %q", r.Text)
	}
	h.views.wait(t, "the answer", func(v View) bool { return v.State == Idle && v.Stream == "you have 3 downloads" })
	// Another choice than the setting's becomes the setting.
	s, err := settings.Load(h.paths.Settings)
	if err != nil || s.WhisperModel != "small.en" {
		t.Errorf("whisperModel on disk: %q (%v)", s.WhisperModel, err)
	}
	if u := recv(t, "the switch", h.used); u.model != "small.en" {
		t.Errorf("Use got %+v", u)
	}
}

// The voice activity model downloads from its row, and the row goes.
func TestMenuDownloadsTheVADModel(t *testing.T) {
	t.Parallel()
	h := startSpeech(t, nil)
	h.views.wait(t, "the offer", func(v View) bool { return rowLabel(v, PrefixSpeechModel+"silero-v5") != "" })
	h.app.Post(MenuClick{ID: PrefixSpeechModel + "silero-v5"})
	if n := recv(t, "the ready notification", h.notifier.got); !strings.HasPrefix(n.body, "silero-v5 is ready.") {
		t.Errorf("notification %+v", n)
	}
	if u := recv(t, "the switch", h.used); u.path != filepath.Join(h.paths.Models, "ggml-silero-v5.1.2.bin") {
		t.Errorf("Use got %+v", u)
	}
	h.views.wait(t, "the row gone", func(v View) bool {
		_, ok := v.Problems["vad"]
		return !ok && v.Pull == nil
	})
}

// A part an earlier run left (Hark quit mid-download) is offered to
// resume, and the download goes on from it.
func TestSpeechModelResumesAPartFromAnEarlierRun(t *testing.T) {
	t.Parallel()
	_, files := speechCatalog()
	file := "ggml-base.en.bin"
	kept := (1<<20)*30/100 + 1000
	h := startSpeech(t, func(o *Options) {
		if err := os.MkdirAll(o.Paths.Models, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.Paths.Models, file+".part"), files[file][:kept], 0o644); err != nil {
			t.Fatal(err)
		}
	})
	h.views.wait(t, "the offer to resume", func(v View) bool {
		return rowLabel(v, PrefixSpeechModel+"base.en") == "    Resume download base.en (1.0 MB, 30% already downloaded)"
	})
	h.app.Post(MenuClick{ID: PrefixSpeechModel + "base.en"})
	if n := recv(t, "the ready notification", h.notifier.got); !strings.HasPrefix(n.body, "base.en is ready. Finished downloading") {
		t.Errorf("notification %+v", n)
	}
	if got := h.host.rangesOf(file); len(got) != 1 || got[0] != fmt.Sprintf("bytes=%d-", kept) {
		t.Errorf("ranges %q, want one going on from the %d bytes kept", got, kept)
	}
}
