package desktop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Speaker reads text aloud with the system's own speech program: say on
// macOS; spd-say (speech-dispatcher, the desktop's speech service, with
// the voice the user chose there), espeak-ng or piper on Linux. It
// satisfies app.Speaker: Speak returns when the speech ends, and when its
// context ends it stops the program's whole process group (and tells
// speech-dispatcher to drop the message) before it returns, so the
// microphone that opens next hears nothing of it.
type Speaker struct {
	// Program is the speech program's path; Kind is which one it is
	// ("say", "spd-say", "espeak-ng", "piper"). FindSpeaker fills both.
	Program, Kind string
	// Language is whisper's language ("en", "de", "auto"): the voice
	// speaks it where the program can choose.
	Language string
	// PiperModel is the .onnx voice piper speaks with; PiperPlayer plays
	// its raw output (aplay or paplay).
	PiperModel, PiperPlayer string
	// Timeout ends speech that has not finished; zero: 45 s (answers are
	// cut to about 30 s of speech).
	Timeout time.Duration
}

// speakerOrder are the speech programs tried, per OS.
var speakerOrder = map[string][]string{
	"darwin": {"say"},
	"linux":  {"spd-say", "espeak-ng", "piper"},
}

// FindSpeaker returns the first speech program this system has. piper
// counts only with a voice model: $HARK_PIPER_MODEL, or a *.onnx file in
// the piper folder of the user's data directory.
func FindSpeaker(goos, language string, lookPath func(string) (string, error), getenv func(string) string) (*Speaker, error) {
	for _, name := range speakerOrder[goos] {
		p, err := lookPath(name)
		if err != nil {
			continue
		}
		s := &Speaker{Program: p, Kind: name, Language: language}
		if name == "piper" {
			s.PiperModel = piperModel(getenv)
			for _, pl := range []string{"paplay", "aplay"} {
				if pp, err := lookPath(pl); err == nil {
					s.PiperPlayer = pp
					break
				}
			}
			if s.PiperModel == "" || s.PiperPlayer == "" {
				continue
			}
		}
		return s, nil
	}
	if goos == "linux" {
		return nil, errors.New("no speech program (spd-say, espeak-ng, or piper with a voice): install speech-dispatcher or espeak-ng, or set \"speak\": false in Settings…")
	}
	return nil, fmt.Errorf("no speech program on %s; set \"speak\": false in Settings…", goos)
}

func piperModel(getenv func(string) string) string {
	if m := getenv("HARK_PIPER_MODEL"); m != "" {
		return m
	}
	data := getenv("XDG_DATA_HOME")
	if data == "" {
		if h := getenv("HOME"); h != "" {
			data = filepath.Join(h, ".local", "share")
		}
	}
	if data == "" {
		return ""
	}
	ms, _ := filepath.Glob(filepath.Join(data, "piper", "*.onnx"))
	if len(ms) == 0 {
		return ""
	}
	return ms[0]
}

// Describe names the voice for hark doctor.
func (s *Speaker) Describe() string {
	switch s.Kind {
	case "say":
		return "say (the system voice; change it in System Settings → Accessibility → Spoken Content)"
	case "spd-say":
		return "spd-say (speech-dispatcher's voice, language " + s.lang() + ")"
	case "espeak-ng":
		return "espeak-ng (voice " + s.lang() + ")"
	case "piper":
		return "piper (voice " + filepath.Base(s.PiperModel) + ")"
	}
	return s.Kind
}

func (s *Speaker) lang() string {
	if s.Language == "" || s.Language == "auto" {
		return "en"
	}
	return s.Language
}

// args is the command line that speaks text.
func (s *Speaker) command(ctx context.Context, text string) *exec.Cmd {
	switch s.Kind {
	case "spd-say":
		// -w waits until the message is spoken, so Speak returns then.
		return exec.CommandContext(ctx, s.Program, "-w", "-l", s.lang(), "--", text)
	case "espeak-ng":
		return exec.CommandContext(ctx, s.Program, "-v", s.lang(), "--", text)
	case "piper":
		// piper writes raw 16-bit mono audio; the player plays it. Both
		// are in one process group, which a stop ends together.
		script := `"$1" --model "$2" --output-raw | "$3" ` + rawArgs(s.PiperPlayer)
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script, "sh", s.Program, s.PiperModel, s.PiperPlayer)
		cmd.Stdin = strings.NewReader(text)
		return cmd
	}
	return exec.CommandContext(ctx, s.Program, "--", text)
}

func rawArgs(player string) string {
	if filepath.Base(player) == "paplay" {
		return "--raw --format=s16le --channels=1 --rate=22050"
	}
	return "-q -t raw -f S16_LE -c 1 -r 22050"
}

// Speak says text and returns when it has been said, or — ctx ended —
// once the program is stopped.
func (s *Speaker) Speak(ctx context.Context, text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 45 * time.Second
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := s.command(tctx, text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The whole group: piper's pipeline, or a wrapper's children.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if s.Kind == "spd-say" {
			// spd-say only hands the text to the daemon; the daemon must
			// be told to stop saying it.
			_ = exec.Command(s.Program, "-C").Run()
		}
		return err
	}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("speaking with %s: %v %s", s.Kind, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// ProbeSpeaker is hark doctor's check of speech: which voice is used, or
// why there is none. speakOn says whether the speak setting is on; when
// it is off a missing program is not a problem.
func ProbeSpeaker(goos, language string, speakOn bool) (string, error) {
	s, err := FindSpeaker(goos, language, exec.LookPath, os.Getenv)
	if err != nil {
		if !speakOn {
			return "off (\"speak\": false); no speech program found", nil
		}
		return "", err
	}
	if !speakOn {
		return s.Describe() + "; off — set \"speak\": true to hear approvals and answers", nil
	}
	return s.Describe(), nil
}
