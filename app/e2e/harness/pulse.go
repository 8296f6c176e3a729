package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Pulse is a private PulseAudio server whose default source is the monitor
// of a null sink: what is played into the sink is what a recorder hears.
type Pulse struct {
	// Env holds the variables a client needs to use this server (through
	// PulseAudio directly or through ALSA's pulse plugin, as PortAudio does).
	Env []string
}

// StartPulse starts the server with a 16 kHz mono null sink and a silent
// low-latency player that keeps the sink running (an idle null sink delivers
// audio in large late blocks).
func StartPulse(t testing.TB) *Pulse {
	t.Helper()
	Need(t, "pulseaudio", "pactl", "pacat", "paplay")
	dir := t.TempDir()
	socket := filepath.Join(dir, "native")
	files := map[string]string{
		"default.pa": fmt.Sprintf("load-module module-native-protocol-unix socket=%s auth-anonymous=1\n"+
			"load-module module-null-sink sink_name=hark_mic rate=16000 channels=1 format=float32le sink_properties=device.description=HarkMic\n"+
			"set-default-sink hark_mic\nset-default-source hark_mic.monitor\n", socket),
		// ALSA_CONFIG_PATH replaces ALSA's configuration: keep the stock
		// one and route the default device to PulseAudio.
		"asound.conf": "</usr/share/alsa/alsa.conf>\npcm.!default { type pulse }\nctl.!default { type pulse }\n",
		"client.conf": "autospawn = no\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	run := filepath.Join(dir, "run")
	os.Mkdir(home, 0o700)
	os.Mkdir(run, 0o700)
	p := &Pulse{Env: []string{
		"PULSE_SERVER=unix:" + socket,
		"PULSE_CLIENTCONFIG=" + filepath.Join(dir, "client.conf"),
		"ALSA_CONFIG_PATH=" + filepath.Join(dir, "asound.conf"),
	}}
	cmd := exec.Command("pulseaudio", "-n", "-F", filepath.Join(dir, "default.pa"),
		"--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no", "--log-target=stderr")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+run)
	Start(t, "pulseaudio", cmd)
	Eventually(t, 15*time.Second, "pulseaudio socket", func() error {
		c, err := net.Dial("unix", socket)
		if err != nil {
			return err
		}
		return c.Close()
	})
	keep := exec.Command("pacat", "--playback", "--raw", "--format=float32le", "--rate=16000", "--channels=1", "--latency-msec=20", "/dev/zero")
	keep.Env = p.env()
	Start(t, "pacat", keep)
	Eventually(t, 15*time.Second, "null sink running", func() error {
		out, err := p.command(context.Background(), "pactl", "list", "short", "sinks").Output()
		if err != nil {
			return err
		}
		if !strings.Contains(string(out), "RUNNING") {
			return fmt.Errorf("sinks: %s", out)
		}
		return nil
	})
	return p
}

func (p *Pulse) env() []string { return append(os.Environ(), p.Env...) }

func (p *Pulse) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = p.env()
	return cmd
}

// Play plays a sound file into the null sink and returns once it drained.
func (p *Pulse) Play(t testing.TB, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := p.command(ctx, "paplay", path).CombinedOutput(); err != nil {
		t.Fatalf("paplay %s: %v\n%s", path, err, out)
	}
}

// Speech renders text to a WAV file with espeak-ng.
func Speech(t testing.TB, text string) string {
	t.Helper()
	Need(t, "espeak-ng")
	path := filepath.Join(t.TempDir(), "speech.wav")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "espeak-ng", "-w", path, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	return path
}
