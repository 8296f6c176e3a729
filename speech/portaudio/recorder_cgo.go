//go:build cgo

package portaudio

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	pa "github.com/gordonklaus/portaudio"

	"github.com/hark-sh/hark/speech"
)

// PortAudio is one library-wide state: Pa_Initialize and Pa_Terminate are
// counted, and its calls are not safe to make concurrently, so every call
// outside the audio callback goes through paMu.
var (
	paMu          sync.Mutex
	paRefs        int
	openStreams   int
	burnStreamIDs sync.Once
)

// Init initialises PortAudio for this process, or counts one more user when
// it already is. Each successful Init needs one Terminate; the process's
// main calls Terminate on its way out so the audio devices are released.
func Init() error {
	paMu.Lock()
	defer paMu.Unlock()
	if paRefs == 0 {
		restore := quietStderr()
		err := pa.Initialize()
		restore()
		if err != nil {
			return fmt.Errorf("starting PortAudio: %v; %s", err, permissionFix())
		}
		burnStreamIDs.Do(func() {
			// The bindings give PortAudio each stream's id, a counter
			// from 0, disguised as the callback's user-data pointer. Go's
			// pointer checks (on with -race) abort the process on any such
			// "pointer" from 1 to 4095, i.e. at the second stream. Openings
			// without a callback fail inside the bindings before reaching
			// PortAudio but still use up an id, so 4096 of them move every
			// real stream's id past that range.
			for range 4096 {
				pa.OpenStream(pa.StreamParameters{})
			}
		})
	}
	paRefs++
	return nil
}

// Terminate releases one Init; the last one shuts PortAudio down, which also
// closes any stream still open. Extra calls do nothing.
func Terminate() error {
	paMu.Lock()
	defer paMu.Unlock()
	if paRefs == 0 {
		return nil
	}
	paRefs--
	if paRefs == 0 {
		return pa.Terminate()
	}
	return nil
}

// rescan re-initialises PortAudio so that it lists the devices present now.
// It only can while no stream is open, and reports whether it did.
func rescan() bool {
	paMu.Lock()
	defer paMu.Unlock()
	if paRefs == 0 || openStreams > 0 {
		return false
	}
	if err := pa.Terminate(); err != nil {
		return false
	}
	restore := quietStderr()
	err := pa.Initialize()
	restore()
	if err != nil {
		// PortAudio is down now; the next Init starts it again.
		paRefs = 0
		return false
	}
	return true
}

// Devices lists the input devices, marking the system default.
func Devices() ([]Device, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	defer Terminate()
	paMu.Lock()
	defer paMu.Unlock()
	all, err := pa.Devices()
	if err != nil {
		return nil, fmt.Errorf("listing audio devices: %v; %s", err, permissionFix())
	}
	def, _ := pa.DefaultInputDevice()
	var out []Device
	for _, d := range all {
		if d.MaxInputChannels < 1 {
			continue
		}
		host := ""
		if d.HostApi != nil {
			host = d.HostApi.Name
		}
		out = append(out, Device{
			Name: d.Name, HostAPI: host, Channels: d.MaxInputChannels,
			SampleRate: d.DefaultSampleRate, Default: def != nil && def.Index == d.Index,
		})
	}
	return out, nil
}

// findDevice resolves a name from Options.Device; the caller holds paMu.
func findDevice(name string) (*pa.DeviceInfo, error) {
	if name == "" {
		d, err := pa.DefaultInputDevice()
		if err != nil || d == nil {
			return nil, fmt.Errorf("%w: there is no default input device; connect a microphone (or pick one from `hark devices` in the \"microphone\" setting) and %s", ErrNoDevice, permissionFix())
		}
		return d, nil
	}
	all, err := pa.Devices()
	if err != nil {
		return nil, fmt.Errorf("%w: listing audio devices: %v", ErrNoDevice, err)
	}
	var partial []*pa.DeviceInfo
	for _, d := range all {
		if d.MaxInputChannels < 1 {
			continue
		}
		if d.Name == name {
			return d, nil
		}
		if strings.Contains(strings.ToLower(d.Name), strings.ToLower(name)) {
			partial = append(partial, d)
		}
	}
	switch len(partial) {
	case 1:
		return partial[0], nil
	case 0:
		return nil, fmt.Errorf("%w: no input device is called %q; `hark devices` lists the ones present (leave the \"microphone\" setting empty for the default)", ErrNoDevice, name)
	}
	names := make([]string, len(partial))
	for i, d := range partial {
		names[i] = fmt.Sprintf("%q", d.Name)
	}
	return nil, fmt.Errorf("%w: %q matches several input devices (%s); use the full name", ErrNoDevice, name, strings.Join(names, ", "))
}

// Recorder captures one recording at a time from an input device. Start and
// Stop may be called from any goroutine; after any error the Recorder is idle
// again and Start may be called anew.
type Recorder struct {
	opts Options
	// forceDeviceRate skips the 16 kHz attempt, so tests exercise the
	// resampling path on a server that would accept 16 kHz.
	forceDeviceRate bool

	mu       sync.Mutex
	cur      *capture
	stats    Stats
	inited   bool
	defaults defaultTracker // the system default input PortAudio listed devices with
}

// NewRecorder returns an idle Recorder. PortAudio is initialised at the first
// Start and kept until Close, so later recordings start without the device
// scan.
func NewRecorder(o Options) *Recorder { return &Recorder{opts: o.withDefaults()} }

// capture is one running recording.
type capture struct {
	stream    *pa.Stream
	rate      int
	channels  int
	device    string
	startedAt time.Time
	limit     int // samples at the maximum length
	tail      int // samples to keep after Stop

	mu        sync.Mutex // shared with the audio callback
	buf       []float32
	target    int // the callback signals reached once buf holds this many
	firstAt   time.Time
	lastAt    time.Time
	overflows int

	first    chan struct{} // closed with the first samples
	reached  chan struct{} // target reached (buffered, 1)
	stopReq  chan struct{} // closed by Stop
	stopOnce sync.Once
	done     chan struct{} // the watcher finished and the stream is closed
	stopping bool          // Stop is collecting it (guarded by Recorder.mu)
	// Set by the watcher before done closes.
	stoppedBy string
	err       error
}

func (c *capture) callback(in []float32, _ pa.StreamCallbackTimeInfo, flags pa.StreamCallbackFlags) {
	now := time.Now()
	c.mu.Lock()
	if c.firstAt.IsZero() {
		c.firstAt = now
		close(c.first)
	}
	c.lastAt = now
	// An overflow means the system dropped samples before this buffer
	// because we were late; the recording goes on with a tiny gap.
	if flags&pa.InputOverflow != 0 {
		c.overflows++
	}
	// Nothing beyond the target is kept: the maximum length until Stop,
	// then the samples up to Stop plus the tail.
	if room := c.target - len(c.buf); room > 0 {
		c.buf = append(c.buf, in[:min(room, len(in))]...)
	}
	hit := len(c.buf) >= c.target
	c.mu.Unlock()
	if hit {
		select {
		case c.reached <- struct{}{}:
		default:
		}
	}
}

// Start opens the device and begins capturing. It returns as soon as the
// stream runs; the first samples arrive a few milliseconds to a second later
// (FirstSample tells when). ctx cancels the recording.
func (r *Recorder) Start(ctx context.Context) error {
	t0 := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		return ErrBusy
	}
	if !r.inited {
		if err := Init(); err != nil {
			return err
		}
		r.inited = true
	}
	// PortAudio keeps the default it saw when it initialised; when the
	// system's default input has moved since (a headset connected), list
	// the devices again so that the recording uses the new one.
	if id, ok := systemDefaultInput(); r.opts.Device == "" && r.defaults.changed(id, ok) && rescan() {
		r.defaults.scanned(id, ok)
	}
	c, err := r.open(t0)
	if errors.Is(err, ErrNoDevice) && rescan() {
		// PortAudio lists devices once, when it initialises: a microphone
		// plugged in (or back in) since then is only found after a rescan.
		r.defaults.scanned(systemDefaultInput())
		c, err = r.open(t0)
	}
	if err != nil {
		return err
	}
	r.cur = c
	r.stats = Stats{Device: c.device, DeviceRate: c.rate, Channels: c.channels, StartDelay: time.Since(t0)}
	go r.watch(ctx, c)
	return nil
}

func (r *Recorder) open(t0 time.Time) (*capture, error) {
	paMu.Lock()
	defer paMu.Unlock()
	dev, err := findDevice(r.opts.Device)
	if err != nil {
		return nil, err
	}
	c := &capture{
		device: dev.Name, startedAt: t0,
		first: make(chan struct{}), reached: make(chan struct{}, 1),
		stopReq: make(chan struct{}), done: make(chan struct{}),
	}
	p := pa.StreamParameters{
		Input:           pa.StreamDeviceParameters{Device: dev, Channels: 1, Latency: dev.DefaultLowInputLatency},
		SampleRate:      speech.WhisperRate,
		FramesPerBuffer: pa.FramesPerBufferUnspecified,
	}
	// 16 kHz mono spares the resampler; many devices (and every PulseAudio
	// or CoreAudio default device) offer it. Otherwise take the device's own
	// rate, and stereo if the device has no mono mode.
	candidates := []pa.StreamParameters{}
	if !r.forceDeviceRate {
		candidates = append(candidates, p)
	}
	p.SampleRate = dev.DefaultSampleRate
	candidates = append(candidates, p)
	if dev.MaxInputChannels >= 2 {
		p.Input.Channels = 2
		candidates = append(candidates, p)
	}
	var lastErr error
	for _, cand := range candidates {
		if err := pa.IsFormatSupported(cand, c.callback); err != nil {
			lastErr = err
			continue
		}
		s, err := pa.OpenStream(cand, c.callback)
		if err != nil {
			lastErr = err
			continue
		}
		c.stream, c.rate, c.channels = s, int(cand.SampleRate), cand.Input.Channels
		openStreams++
		break
	}
	if c.stream == nil {
		return nil, fmt.Errorf("%w: cannot open %q for recording: %v; %s", ErrNoDevice, dev.Name, lastErr, permissionFix())
	}
	c.limit = int(r.opts.MaxLength.Seconds()*float64(c.rate)) * c.channels
	c.tail = int(r.opts.Tail.Seconds()*float64(c.rate)) * c.channels
	c.target = c.limit
	// Ten seconds up front keeps the callback from reallocating during a
	// typical command.
	c.buf = make([]float32, 0, min(c.limit+c.tail, 10*c.rate*c.channels))
	if err := c.stream.Start(); err != nil {
		c.stream.Close()
		openStreams--
		return nil, fmt.Errorf("%w: cannot start recording from %q: %v; %s", ErrNoDevice, dev.Name, err, permissionFix())
	}
	return c, nil
}

// watch ends the capture when Stop's tail is in, the maximum length is
// reached, ctx is cancelled, or the device goes quiet, then closes the stream.
func (r *Recorder) watch(ctx context.Context, c *capture) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	stopReq := c.stopReq
	var tailDeadline <-chan time.Time
	by, err := "", error(nil)
loop:
	for {
		select {
		case <-ctx.Done():
			by, err = "cancel", ctx.Err()
			break loop
		case <-c.reached:
			if stopReq == nil {
				by = "stop"
			} else {
				by = "max-length"
			}
			break loop
		case <-stopReq:
			stopReq = nil
			c.mu.Lock()
			c.target = min(len(c.buf)+c.tail, c.limit+c.tail)
			done := len(c.buf) >= c.target
			c.mu.Unlock()
			if done {
				by = "stop"
				break loop
			}
			// The tail arrives in real time; allow for one late buffer.
			tailDeadline = time.After(r.opts.Tail + r.opts.Stall)
		case <-tailDeadline:
			by, err = "device-lost", fmt.Errorf("%w during the tail after Stop; %s", ErrDeviceLost, lostFix())
			break loop
		case now := <-tick.C:
			c.mu.Lock()
			first, last := c.firstAt, c.lastAt
			c.mu.Unlock()
			switch {
			case first.IsZero() && now.Sub(c.startedAt) > r.opts.Stall+3*time.Second:
				by, err = "device-lost", fmt.Errorf("%w: %q delivered no audio at all; %s", ErrDeviceLost, c.device, permissionFix())
				break loop
			case !first.IsZero() && now.Sub(last) > r.opts.Stall:
				by, err = "device-lost", fmt.Errorf("%w: %q went silent mid-recording (unplugged?); %s", ErrDeviceLost, c.device, lostFix())
				break loop
			}
		}
	}
	paMu.Lock()
	// Abort rather than Stop: the samples are already in, and Stop would
	// wait for buffers of a device that may be gone.
	c.stream.Abort()
	c.stream.Close()
	openStreams--
	paMu.Unlock()
	c.stoppedBy, c.err = by, err
	close(c.done)
	if stopReq != nil && r.opts.OnAutoStop != nil {
		r.opts.OnAutoStop(err)
	}
}

func lostFix() string {
	return "reconnect the microphone or choose another with `hark devices`, then try again"
}

// FirstSample returns a channel closed when the current recording's first
// samples arrive (nil when idle).
func (r *Recorder) FirstSample() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return nil
	}
	return r.cur.first
}

// Stop ends the recording after the tail and returns it as 16 kHz mono. When
// capture had already ended by itself (maximum length, lost device,
// cancellation) it returns what was captured, with the error if there was
// one. Either way the Recorder is idle afterwards.
func (r *Recorder) Stop() (speech.Audio, error) {
	r.mu.Lock()
	c := r.cur
	if c == nil || c.stopping {
		r.mu.Unlock()
		return speech.Audio{}, ErrNotRecording
	}
	c.stopping = true
	r.mu.Unlock()
	c.stopOnce.Do(func() { close(c.stopReq) })
	<-c.done

	c.mu.Lock()
	raw, firstAt, overflows := c.buf, c.firstAt, c.overflows
	c.buf = nil
	c.mu.Unlock()

	r.mu.Lock()
	r.cur = nil
	r.stats.StoppedBy = c.stoppedBy
	r.stats.Overflows = overflows
	if !firstAt.IsZero() {
		r.stats.FirstSample = firstAt.Sub(c.startedAt)
	}
	r.stats.Captured = time.Duration(len(raw)/c.channels) * time.Second / time.Duration(c.rate)
	r.mu.Unlock()

	a, err := speech.Resample(speech.Audio{Samples: speech.MixDown(raw, c.channels), SampleRate: c.rate}, speech.WhisperRate)
	if err != nil {
		return speech.Audio{}, err
	}
	if c.err == nil {
		if err := deniedPermission(runtime.GOOS, c.device, a); err != nil {
			return a, err
		}
	}
	return a, c.err
}

// CapturedSince returns the running recording's mono samples from frame
// from onwards, at the device's rate (Stop resamples to 16 kHz; these are
// not), so a stream can transcribe while capture goes on. It is empty when
// idle or when nothing new has arrived.
func (r *Recorder) CapturedSince(from int) speech.Audio {
	r.mu.Lock()
	c := r.cur
	r.mu.Unlock()
	if c == nil {
		return speech.Audio{}
	}
	c.mu.Lock()
	var mono []float32
	if start := max(0, from) * c.channels; start < len(c.buf) {
		mono = speech.MixDown(c.buf[start:len(c.buf)-(len(c.buf)-start)%c.channels], c.channels)
	}
	c.mu.Unlock()
	return speech.Audio{Samples: mono, SampleRate: c.rate}
}

// Stats describes the last recording (or the running one, partly).
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Close stops any running recording, discarding it, and releases PortAudio.
func (r *Recorder) Close() error {
	r.mu.Lock()
	running := r.cur != nil
	r.mu.Unlock()
	if running {
		r.Stop()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inited {
		r.inited = false
		return Terminate()
	}
	return nil
}

var _ interface {
	Start(context.Context) error
	Stop() (speech.Audio, error)
} = (*Recorder)(nil)
