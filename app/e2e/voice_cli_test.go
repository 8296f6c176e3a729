//go:build e2e

package e2e

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/e2e/harness"
	"github.com/hark-sh/hark/speech"
)

// TestRecordCommand runs the real `hark devices` and `hark record` against
// the virtual microphone (the null sink's monitor) while speech plays into it:
// the file must be 16 kHz mono 16-bit PCM and hold the speech.
func TestRecordCommand(t *testing.T) {
	pulse := harness.StartPulse(t)
	env := append(os.Environ(), pulse.Env...)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	devices := exec.CommandContext(ctx, harkBin, "devices")
	devices.Env = env
	out, err := devices.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "*") {
		t.Fatalf("hark devices: %v, want a default device marked with *:\n%s", err, out)
	}

	wav := filepath.Join(t.TempDir(), "out.wav")
	var stderr syncBuffer
	rec := exec.CommandContext(ctx, harkBin, "record", "--seconds", "6", "-v", wav)
	rec.Env, rec.Stderr = env, &stderr
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- rec.Wait() }()
	// Play only once the stream is open, so the speech falls inside the six
	// seconds however long the server takes to start delivering.
	harness.Eventually(t, 15*time.Second, "hark record to start", func() error {
		if strings.Contains(stderr.String(), "Recording") {
			return nil
		}
		return errNotYet(stderr.String())
	})
	pulse.Play(t, harness.Speech(t, "Show me the biggest files in my downloads folder."))
	if err := <-done; err != nil {
		t.Fatalf("hark record: %v\n%s", err, stderr.String())
	}

	data, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 44 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		t.Fatalf("not a WAV file (%d bytes)", len(data))
	}
	// The fmt chunk right after the header: PCM, 1 channel, 16000 Hz, 16 bits.
	format, channels := binary.LittleEndian.Uint16(data[20:]), binary.LittleEndian.Uint16(data[22:])
	rate, bits := binary.LittleEndian.Uint32(data[24:]), binary.LittleEndian.Uint16(data[34:])
	if format != 1 || channels != 1 || rate != 16000 || bits != 16 {
		t.Fatalf("format %d, %d channels, %d Hz, %d bits; want PCM mono 16000 Hz 16-bit", format, channels, rate, bits)
	}
	a, err := speech.ReadWAVFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Duration(len(a.Samples)) * time.Second / time.Duration(a.SampleRate); d < 5*time.Second || d > 7*time.Second {
		t.Errorf("recorded %v, asked for 6s", d)
	}
	if _, err := speech.CheckSpeech(a); err != nil {
		t.Errorf("the recording holds no speech: %v", err)
	}
}

type errNotYet string

func (e errNotYet) Error() string { return "not yet; stderr so far: " + string(e) }
