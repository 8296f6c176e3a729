//go:build cgo

package portaudio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The capture tests need a sound card; CI has none, so they make one: a
// private PulseAudio server with a null sink at 16 kHz mono whose monitor is
// the default source, reached by PortAudio through ALSA's pulse plugin. What
// paplay plays into the sink is what the Recorder hears.

// childEnv marks a re-executed test binary that must not start a server.
const childEnv = "HARK_PORTAUDIO_TEST_CHILD"

var (
	pulse      *pulseServer
	pulseError error // why no server is running
)

// errNoPulse means the pulseaudio binary is absent: a skip on a developer
// machine, a failure in CI.
var errNoPulse = errors.New("pulseaudio is not installed (apt install pulseaudio pulseaudio-utils libasound2-plugins espeak-ng sox)")

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(m.Run())
	}
	pulse, pulseError = startPulse()
	if pulse != nil {
		// PortAudio and ALSA read their environment when they initialise,
		// so this happens before any test touches PortAudio.
		pulse.use()
	}
	code := m.Run()
	if pulse != nil {
		pulse.close()
	}
	if err := Terminate(); err != nil {
		fmt.Fprintln(os.Stderr, "Terminate:", err)
	}
	os.Exit(code)
}

// needPulse skips or fails a test that needs the server.
func needPulse(t *testing.T) *pulseServer {
	t.Helper()
	if pulseError == nil {
		return pulse
	}
	if errors.Is(pulseError, errNoPulse) && os.Getenv("CI") != "true" {
		t.Skipf("no capture test: %v", pulseError)
	}
	t.Fatalf("cannot run the capture test: %v", pulseError)
	return nil
}

type pulseServer struct {
	dir       string
	socket    string
	env       []string // KEY=value pointing a client at this server
	cmd       *exec.Cmd
	keepalive *exec.Cmd
	exited    chan struct{}
	log       *os.File
}

// startPulse starts a private server; use points this process at it.
func startPulse() (*pulseServer, error) {
	bin, err := exec.LookPath("pulseaudio")
	if err != nil {
		return nil, errNoPulse
	}
	for _, tool := range []string{"paplay", "pacat", "pactl", "espeak-ng", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s is missing: %w", tool, errNoPulse)
		}
	}
	dir, err := os.MkdirTemp("", "hark-pulse-")
	if err != nil {
		return nil, err
	}
	s := &pulseServer{dir: dir, socket: filepath.Join(dir, "run", "native"), exited: make(chan struct{})}
	fail := func(err error) (*pulseServer, error) {
		s.close()
		return nil, err
	}
	for _, d := range []string{"run", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return fail(err)
		}
	}
	script := fmt.Sprintf(`load-module module-native-protocol-unix socket=%s auth-anonymous=1
load-module module-null-sink sink_name=hark_test rate=16000 channels=1 format=float32le sink_properties=device.description=HarkTestSink
set-default-sink hark_test
set-default-source hark_test.monitor
`, s.socket)
	// ALSA_CONFIG_PATH replaces ALSA's whole configuration, so the file
	// includes the stock one first, then makes PulseAudio the default.
	asound := `</usr/share/alsa/alsa.conf>
pcm.!default { type pulse }
ctl.!default { type pulse }
`
	files := map[string]string{"default.pa": script, "asound.conf": asound, "client.conf": "autospawn = no\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			return fail(err)
		}
	}
	env := map[string]string{
		"XDG_RUNTIME_DIR":    filepath.Join(dir, "run"),
		"HOME":               filepath.Join(dir, "home"),
		"PULSE_SERVER":       "unix:" + s.socket,
		"PULSE_CLIENTCONFIG": filepath.Join(dir, "client.conf"),
		"ALSA_CONFIG_PATH":   filepath.Join(dir, "asound.conf"),
		"PULSE_LATENCY_MSEC": "30",
	}
	for k, v := range env {
		s.env = append(s.env, k+"="+v)
	}
	sort.Strings(s.env)
	// Environment for the tools run here: this server, whatever the
	// process environment points at.
	toolEnv := append(os.Environ(), s.env...)
	s.log, err = os.Create(filepath.Join(dir, "pulseaudio.log"))
	if err != nil {
		return fail(err)
	}
	// As root PulseAudio warns that it is meant for a user session, but runs.
	s.cmd = exec.Command(bin, "-n", "-F", filepath.Join(dir, "default.pa"),
		"--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--disallow-module-loading=no",
		"--use-pid-file=no", "--log-target=stderr")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.Env = toolEnv
	s.cmd.SysProcAttr = serverProcAttr()
	if err := s.cmd.Start(); err != nil {
		return fail(err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()

	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("unix", s.socket); err == nil {
			c.Close()
			break
		}
		select {
		case <-s.exited:
			return fail(fmt.Errorf("pulseaudio exited at start:\n%s", s.logText()))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("pulseaudio did not open %s within 10s:\n%s", s.socket, s.logText()))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info := exec.CommandContext(ctx, "pactl", "info")
	info.Env = toolEnv
	out, err := info.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Default Source: hark_test.monitor") {
		return fail(fmt.Errorf("pulseaudio is not set up as expected (%v):\n%s\n%s", err, out, s.logText()))
	}
	// An idle null sink renders in blocks of up to two seconds, so a new
	// recording would wait that long for its first samples. A silent
	// low-latency player keeps it ticking the way a real device does.
	zero, err := os.Open(os.DevNull)
	if err != nil {
		return fail(err)
	}
	defer zero.Close()
	s.keepalive = exec.Command("pacat", "--playback", "--raw", "--format=float32le", "--rate=16000", "--channels=1", "--latency-msec=20", "/dev/zero")
	s.keepalive.SysProcAttr = serverProcAttr()
	s.keepalive.Stderr = s.log
	s.keepalive.Env = toolEnv
	if err := s.keepalive.Start(); err != nil {
		return fail(fmt.Errorf("pacat: %w", err))
	}
	for {
		sinks := exec.CommandContext(ctx, "pactl", "list", "short", "sinks")
		sinks.Env = toolEnv
		out, err := sinks.Output()
		if err == nil && strings.Contains(string(out), "RUNNING") {
			break
		}
		if err != nil || ctx.Err() != nil {
			return fail(fmt.Errorf("the null sink never started running (%v):\n%s", err, s.logText()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s, nil
}

// use points this process's audio stack at the server.
func (s *pulseServer) use() {
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
}

func (s *pulseServer) logText() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "pulseaudio.log"))
	return string(b)
}

// close stops the server by its process id and waits for it, then removes
// its folder.
func (s *pulseServer) close() {
	if s.keepalive != nil && s.keepalive.Process != nil {
		s.keepalive.Process.Kill()
		s.keepalive.Wait()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(3 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
		}
	}
	if s.log != nil {
		s.log.Close()
	}
	os.RemoveAll(s.dir)
}

// play plays a WAV file into the null sink and returns when it has drained.
func play(t *testing.T, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// The player gets a deep buffer of its own (not the recorder's low
	// latency), so a busy machine cannot starve it into gaps.
	cmd := exec.CommandContext(ctx, "paplay", "--latency-msec=1000", path)
	cmd.Env = playerEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("paplay %s: %v\n%s", path, err, out)
	}
}

// run runs a helper tool with a timeout and fails the test on error.
func run(t *testing.T, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// playerEnv is this process's environment without the low-latency request
// meant for the recorder.
func playerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PULSE_LATENCY_MSEC=") {
			env = append(env, kv)
		}
	}
	return env
}
