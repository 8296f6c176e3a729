package whisper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
)

// TestProbeBuild: the line says which whisper.cpp (version, where from)
// and which backends loaded; without whisper.cpp its fix is the command
// make found for this system, and on Linux never brew.
func TestProbeBuild(t *testing.T) {
	// Not parallel: it sets the values make records with -X.
	defer func(v, o string) { libVersion, libOrigin = v, o }(libVersion, libOrigin)
	libVersion, libOrigin = "1.9.5", "package libwhisper-dev, /usr"
	d, err := probeBuild(true, "linux", "", []string{"CPU", "BLAS"}, nil)
	if err != nil || d != "built with whisper.cpp 1.9.5 (package libwhisper-dev, /usr); backends: CPU, BLAS" {
		t.Errorf("built with whisper: %q, %v", d, err)
	}
	_, err = probeBuild(true, "linux", "", nil, errors.New(noBackendText("linux")))
	var pe *speech.ProbeError
	if !errors.As(err, &pe) || !strings.Contains(pe.Problem, "whisper.cpp 1.9.5 (package libwhisper-dev, /usr): ggml has no CPU backend") ||
		!strings.Contains(pe.Fix(), "GGML_BACKEND_PATH") {
		t.Errorf("no backend: %#v", err)
	}
	for _, c := range []struct{ goos, hint, fix string }{
		{"darwin", "", "brew install whisper-cpp, then `make build`"},
		{"linux", "sudo apt-get install libwhisper-dev", "sudo apt-get install libwhisper-dev, then `make build`"},
		{"linux", "sudo dnf install whisper-cpp-devel", "sudo dnf install whisper-cpp-devel, then `make build`"},
		{"linux", "make whisper", "run `make whisper` (it builds whisper.cpp for Hark"},
		{"linux", "", "make whisper"},
	} {
		_, err := probeBuild(false, c.goos, c.hint, nil, nil)
		var pe *speech.ProbeError
		if !errors.As(err, &pe) || !strings.Contains(pe.Error(), "no whisper.cpp") || !strings.Contains(pe.Fix(), c.fix) {
			t.Errorf("%s %q without whisper: %v", c.goos, c.hint, err)
			continue
		}
		if c.goos == "linux" && strings.Contains(pe.Fix(), "brew") {
			t.Errorf("Linux fix names brew: %q", pe.Fix())
		}
	}
}

func TestSpeedDetail(t *testing.T) {
	t.Parallel()
	got := speedDetail(4*time.Second, 600*time.Millisecond, "ggml-base.en.bin", 4)
	if want := "real-time factor 0.15 (faster than speech): 4.0 s of built-in audio took 0.60 s with ggml-base.en.bin, 4 threads"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := speedDetail(4*time.Second, 6*time.Second, "ggml-large-v3.bin", 2); !strings.Contains(got, "real-time factor 1.50 (slower than speech") {
		t.Errorf("slow: %q", got)
	}
	if got := speedBound(4*time.Second, 1900*time.Millisecond); !strings.Contains(got, "real-time factor above 0.47") {
		t.Errorf("cut short: %q", got)
	}
}

// The built-in clip lasts as long as the shortest encoder window, at
// whisper's rate, and is loud enough to pass Hark's own loudness gate.
func TestClip(t *testing.T) {
	t.Parallel()
	c := Clip()
	if c.SampleRate != speech.WhisperRate || c.Duration() != ClipSeconds*time.Second {
		t.Fatalf("clip: %d Hz, %v", c.SampleRate, c.Duration())
	}
	if _, err := speech.CheckSpeech(c); err != nil {
		t.Errorf("Hark's loudness gate refuses the clip: %v", err)
	}
	for _, s := range c.Samples {
		if math.Abs(float64(s)) > 1 {
			t.Fatalf("the clip clips: sample %v", s)
		}
	}
}

// fakeClipTimer stands in for a Transcriber: Warm and Transcribe wait for
// their gate (or for ctx), and Close is recorded.
type fakeClipTimer struct {
	warmGate, runGate chan struct{}
	running           chan struct{} // closed when Transcribe begins
	runErr            error
	closed            chan struct{}
}

func newFakeClipTimer() *fakeClipTimer {
	return &fakeClipTimer{warmGate: make(chan struct{}), runGate: make(chan struct{}),
		running: make(chan struct{}), closed: make(chan struct{})}
}

func (f *fakeClipTimer) Warm(ctx context.Context) error {
	select {
	case <-f.warmGate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Transcribe ignores ctx, as whisper.cpp in the middle of an encoder pass
// does: only its gate ends it.
func (f *fakeClipTimer) Transcribe(context.Context, speech.Audio) (string, error) {
	close(f.running)
	<-f.runGate
	return "", f.runErr
}

func (f *fakeClipTimer) Close() error { close(f.closed); return nil }

// TestTimeClip: a finished run (no words heard counts) gives the factor; a
// run cut short by doctor's limit answers at once with a bound while
// whisper.cpp is still busy, and the transcriber is closed once it is done;
// a model that has not loaded by then says so.
func TestTimeClip(t *testing.T) {
	t.Parallel()
	t.Run("finished, no words", func(t *testing.T) {
		t.Parallel()
		f := newFakeClipTimer()
		f.runErr = fmt.Errorf("%w: whisper heard no words", speech.ErrNoSpeech)
		close(f.warmGate)
		close(f.runGate)
		d, err := timeClip(context.Background(), f, "ggml-base.en.bin", 4)
		if err != nil || !strings.HasPrefix(d, "real-time factor ") || !strings.Contains(d, "ggml-base.en.bin, 4 threads") {
			t.Errorf("timeClip = %q, %v", d, err)
		}
		<-f.closed
	})
	t.Run("cut short while whisper.cpp is busy", func(t *testing.T) {
		t.Parallel()
		f := newFakeClipTimer()
		close(f.warmGate)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-f.running // doctor's limit strikes once the timed run has begun
			cancel()
		}()
		_, err := timeClip(ctx, f, "m.bin", 1)
		var pe *speech.ProbeError
		if !errors.As(err, &pe) || !pe.Limited() || !strings.Contains(pe.Problem, "real-time factor above") {
			t.Fatalf("cut short: %v", err)
		}
		select {
		case <-f.closed:
			t.Error("the transcriber was closed while its run was still going")
		default:
		}
		close(f.runGate)
		<-f.closed
	})
	t.Run("the model still loading", func(t *testing.T) {
		t.Parallel()
		f := newFakeClipTimer()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := timeClip(ctx, f, "m.bin", 1)
		var pe *speech.ProbeError
		if !errors.As(err, &pe) || !strings.Contains(pe.Problem, "did not load") {
			t.Errorf("still loading: %v", err)
		}
		<-f.closed
	})
}
