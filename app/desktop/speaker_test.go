package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
)

func TestFindSpeaker(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "piper", "en_US-amy.onnx")
	os.MkdirAll(filepath.Dir(model), 0o700)
	os.WriteFile(model, nil, 0o600)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name, goos string
		have       []string
		env        map[string]string
		kind       string // "" : none found
	}{
		{"mac", "darwin", []string{"say"}, nil, "say"},
		{"speech-dispatcher first", "linux", []string{"spd-say", "espeak-ng"}, nil, "spd-say"},
		{"espeak-ng", "linux", []string{"espeak-ng", "piper", "aplay"}, nil, "espeak-ng"},
		{"piper with a voice", "linux", []string{"piper", "aplay"}, map[string]string{"XDG_DATA_HOME": dir}, "piper"},
		{"piper without a voice", "linux", []string{"piper", "aplay"}, map[string]string{"HOME": t.TempDir()}, ""},
		{"nothing", "linux", nil, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			look := func(n string) (string, error) {
				for _, h := range c.have {
					if h == n {
						return "/usr/bin/" + n, nil
					}
				}
				return "", errors.New("not found")
			}
			s, err := FindSpeaker(c.goos, "de", look, env(c.env))
			if c.kind == "" {
				if err == nil || !strings.Contains(err.Error(), "\"speak\": false") {
					t.Fatalf("found %+v, err %v", s, err)
				}
				return
			}
			if err != nil || s.Kind != c.kind || s.Describe() == "" {
				t.Fatalf("got %+v, %v; want %s", s, err, c.kind)
			}
			if c.kind == "piper" && s.PiperModel != model {
				t.Errorf("piper model %q", s.PiperModel)
			}
		})
	}
}

// TestSpeakerStopsTheWholeGroup: a stopped Speak returns at once and
// leaves nothing of the program running, children included.
func TestSpeakerStopsTheWholeGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	prog := filepath.Join(dir, "fake-say")
	script := "#!/bin/sh\nsleep 60 &\necho $! > " + pidFile + "\nwait\n"
	exectest.WriteScript(t, prog, script)
	s := &Speaker{Program: prog, Kind: "say"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Speak(ctx, "a long answer") }()
	var pid int
	for i := 0; i < 500 && pid == 0; i++ {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the fake speech program never started")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Speak returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Speak did not return after its context ended")
	}
	// The child was in the group: gone, or a zombie about to be reaped.
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil || isZombie(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the speech program's child %d still runs", pid)
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func TestSpeakerReportsFailure(t *testing.T) {
	t.Parallel()
	s := &Speaker{Program: "/bin/false", Kind: "espeak-ng"}
	if err := s.Speak(context.Background(), "hello"); err == nil || !strings.Contains(err.Error(), "espeak-ng") {
		t.Fatalf("err %v", err)
	}
	if err := s.Speak(context.Background(), "  "); err != nil {
		t.Fatalf("empty text: %v", err)
	}
}
