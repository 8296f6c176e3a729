//go:build cgo

package portaudio

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/speech"
)

// speak renders a sentence with espeak-ng and brings it to 16 kHz mono 16-bit
// with sox, with 0.3 s of silence before it.
func speak(t *testing.T, text string) (string, speech.Audio) {
	t.Helper()
	dir := t.TempDir()
	raw, out := filepath.Join(dir, "raw.wav"), filepath.Join(dir, "say.wav")
	run(t, "espeak-ng", "-w", raw, text)
	run(t, "sox", raw, "-r", "16000", "-c", "1", "-b", "16", out, "pad", "0.3", "0")
	a, err := speech.ReadWAVFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return out, a
}

// waitFlowing waits for the first samples, then a little longer: the server
// drops the first buffers of a new recording stream.
func waitFlowing(t *testing.T, r *Recorder) time.Duration {
	t.Helper()
	t0 := time.Now()
	select {
	case <-r.FirstSample():
	case <-time.After(5 * time.Second):
		t.Fatal("no samples within 5s of Start")
	}
	d := time.Since(t0)
	time.Sleep(200 * time.Millisecond)
	return d
}

// bestCorrelation aligns rec against src and returns the normalised
// cross-correlation at the best lag. A coarse search on 10 ms energy
// envelopes finds the neighbourhood; the exact lag is searched around it.
func bestCorrelation(rec, src []float32) (float64, int) {
	const hop = 160
	env := func(x []float32) []float64 {
		out := make([]float64, len(x)/hop)
		for i := range out {
			var s float64
			for _, v := range x[i*hop : (i+1)*hop] {
				s += float64(v) * float64(v)
			}
			out[i] = math.Sqrt(s)
		}
		return out
	}
	er, es := env(rec), env(src)
	coarse, best := 0, math.Inf(-1)
	for lag := 0; lag+len(es) <= len(er); lag++ {
		if c := ncc(er[lag:lag+len(es)], es); c > best {
			best, coarse = c, lag
		}
	}
	fine, bestFine := 0, math.Inf(-1)
	for lag := max(0, coarse*hop-2*hop); lag <= coarse*hop+2*hop && lag+len(src) <= len(rec); lag++ {
		if c := ncc32(rec[lag:lag+len(src)], src); c > bestFine {
			bestFine, fine = c, lag
		}
	}
	return bestFine, fine
}

func ncc(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range b {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

func ncc32(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range b {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// TestCaptureSpeech records a spoken sentence through the whole stack and
// checks the recording is the sentence. Stop comes right after the player has
// drained, so the end of the sentence is only there thanks to the tail.
func TestCaptureSpeech(t *testing.T) {
	needPulse(t)
	path, src := speak(t, "List the files in my downloads folder.")

	for _, tc := range []struct {
		name       string
		deviceRate bool
	}{
		{"16 kHz stream", false},
		{"device rate, resampled", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRecorder(Options{Tail: 300 * time.Millisecond})
			r.forceDeviceRate = tc.deviceRate
			defer r.Close()
			if err := r.Start(context.Background()); err != nil {
				t.Fatalf("Start: %v", err)
			}
			first := waitFlowing(t, r)
			// Follow the recording while it runs, as a stream does.
			var live speech.Audio
			quit, followed := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(followed)
				for {
					got := r.CapturedSince(len(live.Samples))
					live.Samples = append(live.Samples, got.Samples...)
					live.SampleRate = max(live.SampleRate, got.SampleRate)
					select {
					case <-quit:
						return
					case <-time.After(50 * time.Millisecond):
					}
				}
			}()
			play(t, path)
			close(quit)
			<-followed
			got, err := r.Stop()
			if err != nil {
				t.Fatalf("Stop: %v", err)
			}
			st := r.Stats()
			if live.SampleRate != st.DeviceRate || live.Duration() < src.Duration() {
				t.Errorf("followed %s at %d Hz while %s played at a device rate of %d Hz", live.Duration(), live.SampleRate, src.Duration(), st.DeviceRate)
			}
			if st.DeviceRate == speech.WhisperRate && (len(live.Samples) > len(got.Samples) || !slices.Equal(live.Samples, got.Samples[:len(live.Samples)])) {
				t.Errorf("the %d samples followed during capture are not the start of the %d Stop returned", len(live.Samples), len(got.Samples))
			}
			if got.SampleRate != speech.WhisperRate {
				t.Fatalf("recording at %d Hz, want %d", got.SampleRate, speech.WhisperRate)
			}
			if got.Duration() < src.Duration() {
				t.Fatalf("recording lasts %s, shorter than the %s played", got.Duration(), src.Duration())
			}
			c, lag := bestCorrelation(got.Samples, src.Samples)
			t.Logf("device %q at %d Hz × %d ch; Start returned in %s, first samples after %s (waited %s); captured %s; correlation %.4f at lag %s; overflows %d",
				st.Device, st.DeviceRate, st.Channels, st.StartDelay, st.FirstSample, first, st.Captured, c,
				time.Duration(lag)*time.Second/speech.WhisperRate, st.Overflows)
			if tc.deviceRate == (st.DeviceRate == speech.WhisperRate) && tc.deviceRate {
				t.Errorf("stream opened at %d Hz; the device-rate case must resample", st.DeviceRate)
			}
			if c < 0.95 {
				t.Errorf("correlation with the spoken sentence is %.4f, want ≥ 0.95", c)
			}
			if _, err := speech.CheckSpeech(got); err != nil {
				t.Errorf("the speech gate rejects the recording: %v", err)
			}
		})
	}
}

// TestTailAfterStop plays a long tone, calls Stop in the middle of it and
// checks that the recording goes on for the tail: its last part is tone, not
// silence.
func TestTailAfterStop(t *testing.T) {
	needPulse(t)
	dir := t.TempDir()
	tone := filepath.Join(dir, "tone.wav")
	run(t, "sox", "-n", "-r", "16000", "-c", "1", "-b", "16", tone, "synth", "1.5", "sine", "440", "vol", "0.5")

	const tail = 500 * time.Millisecond
	r := NewRecorder(Options{Tail: tail})
	defer r.Close()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFlowing(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	player := exec.CommandContext(ctx, "paplay", "--latency-msec=1000", tone)
	player.Env = playerEnv()
	if err := player.Start(); err != nil {
		t.Fatal(err)
	}
	defer player.Wait()
	// Wait until the tone is being recorded, then Stop mid-tone.
	deadline := time.Now().Add(5 * time.Second)
	for !r.hearing(0.1) {
		if time.Now().After(deadline) {
			t.Fatal("the tone never reached the recorder")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	stopAt := r.captured()
	got, err := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	after := time.Duration(len(got.Samples)-stopAt) * time.Second / speech.WhisperRate
	t.Logf("captured %s after Stop was called (tail %s)", after, tail)
	if after < tail-50*time.Millisecond {
		t.Fatalf("only %s captured after Stop, want the %s tail", after, tail)
	}
	last := got.Samples[len(got.Samples)-int(0.4*speech.WhisperRate):]
	if lv := speech.Measure(speech.Audio{Samples: last, SampleRate: speech.WhisperRate}); lv.RMSDBFS < -15 {
		t.Fatalf("the last 400 ms are at %.1f dBFS; the tone (about -9 dBFS) played on past Stop and should be there", lv.RMSDBFS)
	}
}

// TestMaxLength: a recording stops by itself and says so.
func TestMaxLength(t *testing.T) {
	needPulse(t)
	auto := make(chan error, 1)
	r := NewRecorder(Options{MaxLength: time.Second, OnAutoStop: func(err error) { auto <- err }})
	defer r.Close()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-auto:
		if err != nil {
			t.Fatalf("auto stop reported %v, want nil for the maximum length", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the recording did not stop by itself at its maximum length")
	}
	got, err := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Duration(); d < 990*time.Millisecond || d > 1010*time.Millisecond {
		t.Fatalf("recording lasts %s, want the 1s maximum", d)
	}
	if by := r.Stats().StoppedBy; by != "max-length" {
		t.Fatalf("stopped by %q, want max-length", by)
	}
}

// TestCancelAndRestart: cancelling the context ends the recording, and the
// Recorder is ready for the next one; so is it after an error.
func TestCancelAndRestart(t *testing.T) {
	needPulse(t)
	r := NewRecorder(Options{})
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Start: %v, want ErrBusy", err)
	}
	waitFlowing(t, r)
	cancel()
	if _, err := r.Stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stop after cancel: %v, want context.Canceled", err)
	}
	if _, err := r.Stop(); !errors.Is(err, ErrNotRecording) {
		t.Fatalf("second Stop: %v, want ErrNotRecording", err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatalf("Start after a cancelled recording: %v", err)
	}
	waitFlowing(t, r)
	if _, err := r.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
}

func TestDevices(t *testing.T) {
	needPulse(t)
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	defaults := 0
	for _, d := range devs {
		if d.Channels < 1 {
			t.Errorf("%q listed with %d input channels", d.Name, d.Channels)
		}
		if d.Default {
			defaults++
		}
	}
	if defaults != 1 {
		t.Fatalf("%d devices marked default among %+v, want 1", defaults, devs)
	}
}

// TestNoDevice: a device name that matches nothing is a clear error, and the
// Recorder records fine afterwards once the name is fixed.
func TestNoDevice(t *testing.T) {
	needPulse(t)
	r := NewRecorder(Options{Device: "no such microphone 4711"})
	defer r.Close()
	err := r.Start(context.Background())
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "hark devices") {
		t.Fatalf("Start: %v, want ErrNoDevice naming `hark devices`", err)
	}
	r.opts.Device = ""
	if err := r.Start(context.Background()); err != nil {
		t.Fatalf("Start with the default device after the error: %v", err)
	}
	waitFlowing(t, r)
	if _, err := r.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestNoServer runs in a child process whose audio stack points at a server
// that does not exist (PortAudio reads that at initialisation): there is no
// input device, and Start says so with the fix. Then the server "appears"
// and the same Recorder records, having rescanned the devices.
func TestNoServer(t *testing.T) {
	if os.Getenv(childEnv) == "no-server" {
		r := NewRecorder(Options{})
		defer r.Close()
		err := r.Start(context.Background())
		if err == nil {
			r.Stop()
			t.Fatal("Start succeeded without any audio server")
		}
		if !errors.Is(err, ErrNoDevice) {
			t.Fatalf("Start: %v, want ErrNoDevice", err)
		}
		t.Logf("error shown to the user: %v", err)
		// The server appears, as a microphone being plugged in: the same
		// Recorder finds it on the next Start.
		os.Setenv("PULSE_SERVER", os.Getenv("HARK_TEST_PULSE_SERVER"))
		if err := r.Start(context.Background()); err != nil {
			t.Fatalf("Start once a device is there: %v", err)
		}
		if _, err := r.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		t.Log("recorded after the device appeared")
		return
	}
	srv := needPulse(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNoServer$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=no-server",
		"PULSE_SERVER=unix:"+filepath.Join(srv.dir, "nothing-here"),
		"HARK_TEST_PULSE_SERVER=unix:"+srv.socket)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, want := range []string{"no microphone found", "recorded after the device appeared"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("child output lacks %q:\n%s", want, out)
		}
	}
}

// captured is how much the running recording holds, in 16 kHz samples.
func (r *Recorder) captured() int {
	r.mu.Lock()
	c := r.cur
	r.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.buf) / c.channels * speech.WhisperRate / c.rate
}

// hearing reports whether the last 50 ms captured peak above amp.
func (r *Recorder) hearing(amp float32) bool {
	r.mu.Lock()
	c := r.cur
	r.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.rate * c.channels / 20
	for _, v := range c.buf[max(0, len(c.buf)-n):] {
		if v > amp || v < -amp {
			return true
		}
	}
	return false
}

// TestDeviceLost records from a second server and kills it mid-recording, the
// way a USB microphone disappears: capture ends by itself with ErrDeviceLost
// and advice, Stop reports it, and the Recorder records again afterwards.
func TestDeviceLost(t *testing.T) {
	main := needPulse(t)
	doomed, err := startPulse()
	if err != nil {
		t.Fatal(err)
	}
	defer doomed.close()
	doomed.use()
	defer main.use()

	auto := make(chan error, 1)
	r := NewRecorder(Options{Stall: time.Second, OnAutoStop: func(err error) { auto <- err }})
	defer r.Close()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFlowing(t, r)
	doomed.cmd.Process.Kill()
	select {
	case err := <-auto:
		if !errors.Is(err, ErrDeviceLost) {
			t.Fatalf("auto stop: %v, want ErrDeviceLost", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the recording did not notice that its device went away")
	}
	_, err = r.Stop()
	if !errors.Is(err, ErrDeviceLost) || !strings.Contains(err.Error(), "hark devices") {
		t.Fatalf("Stop: %v, want ErrDeviceLost with advice", err)
	}
	t.Logf("error shown to the user: %v", err)

	main.use()
	if err := r.Start(context.Background()); err != nil {
		t.Fatalf("Start after the lost device: %v", err)
	}
	waitFlowing(t, r)
	if _, err := r.Stop(); err != nil {
		t.Fatalf("Stop after recovering: %v", err)
	}
}

// TestStartLatency measures key-down (Start) to first samples with PortAudio
// already initialised, as in the app, which initialises it at launch. The
// figures are logged, not asserted: they depend on the machine and server.
func TestStartLatency(t *testing.T) {
	needPulse(t)
	if err := Init(); err != nil {
		t.Fatal(err)
	}
	defer Terminate()
	r := NewRecorder(Options{Tail: -1})
	defer r.Close()
	var lat []time.Duration
	for range 4 {
		t0 := time.Now()
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		started := time.Since(t0)
		select {
		case <-r.FirstSample():
		case <-time.After(5 * time.Second):
			t.Fatal("no samples within 5s")
		}
		lat = append(lat, time.Since(t0))
		if _, err := r.Stop(); err != nil {
			t.Fatal(err)
		}
		t.Logf("Start returned after %s, first samples after %s", started.Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	}
	slices.Sort(lat)
	t.Logf("key-down → first sample: median %s, min %s, max %s over %d starts", lat[len(lat)/2].Round(time.Microsecond), lat[0].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond), len(lat))
}
