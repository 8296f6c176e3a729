package desktop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech"
)

// CuePlayer plays Hark's sound cues through the desktop's own sound
// player (afplay on macOS; paplay, pw-play or aplay on Linux), so no audio
// output stream competes with the microphone's input stream. Each cue is
// rendered once into Dir as a WAV file. It satisfies app.CuePlayer.
type CuePlayer struct {
	// Dir holds the rendered cues; created when missing.
	Dir string
	// Player is the program that plays a WAV file given as its one
	// argument; empty: FindCuePlayer's choice, looked up at the first Play.
	Player string
	// Timeout ends a player that has not finished; zero: 3 s.
	Timeout time.Duration

	mu    sync.Mutex
	ready map[speech.Cue]string // rendered files
}

// cuePlayers are the programs tried in order, per OS. paplay and pw-play
// go through the sound server (PulseAudio or PipeWire) that mixes Hark's
// cue with whatever else plays; aplay is the ALSA fallback.
var cuePlayers = map[string][]string{
	"darwin": {"afplay"},
	"linux":  {"paplay", "pw-play", "aplay"},
}

// FindCuePlayer returns the first player program this system has.
func FindCuePlayer(goos string, lookPath func(string) (string, error)) (string, error) {
	for _, name := range cuePlayers[goos] {
		if p, err := lookPath(name); err == nil {
			return p, nil
		}
	}
	if goos == "linux" {
		return "", errors.New("no sound player for the cues (paplay, pw-play or aplay): install pulseaudio-utils or alsa-utils, or set \"soundCues\": false in Settings…")
	}
	return "", fmt.Errorf("no sound player for the cues on %s; set \"soundCues\": false in Settings…", goos)
}

var cueNames = map[speech.Cue]string{speech.CueStart: "start", speech.CueStop: "stop", speech.CueCancel: "cancel"}

// Play plays c and returns when the player is done (or was stopped after
// Timeout). The core calls it on a goroutine of its own.
func (p *CuePlayer) Play(c speech.Cue) error {
	file, player, err := p.prepare(c)
	if err != nil {
		return err
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, player, file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("playing the %s cue with %s: %v %s", cueNames[c], filepath.Base(player), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// prepare finds the player and renders c's file, once each.
func (p *CuePlayer) prepare(c speech.Cue) (file, player string, err error) {
	name, ok := cueNames[c]
	if !ok {
		return "", "", fmt.Errorf("unknown cue %d", int(c))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Player == "" {
		p.Player, err = FindCuePlayer(runtime.GOOS, exec.LookPath)
		if err != nil {
			return "", "", err
		}
	}
	if f, ok := p.ready[c]; ok {
		return f, p.Player, nil
	}
	file = filepath.Join(p.Dir, "cue-"+name+".wav")
	if err := writeCue(file, c.Sound()); err != nil {
		return "", "", fmt.Errorf("writing the %s cue to %s: %v; check that the folder is writable, or set \"soundCues\": false in Settings…", name, p.Dir, err)
	}
	if p.ready == nil {
		p.ready = map[speech.Cue]string{}
	}
	p.ready[c] = file
	return file, p.Player, nil
}

// writeCue writes the cue unless the file already holds exactly it, so a
// cue that changes in a new version replaces the old file, and an
// unchanged one is not rewritten at every start.
func writeCue(path string, a speech.Audio) error {
	var want bytes.Buffer
	if err := speech.WriteWAV(&want, a); err != nil {
		return err
	}
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want.Bytes()) {
		return nil
	}
	return settings.WriteFileAtomic(path, want.Bytes(), 0o644)
}
