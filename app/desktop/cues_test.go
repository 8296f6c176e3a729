//go:build unix

package desktop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/exectest"
	"github.com/hark-sh/hark/speech"
)

// fakePlayer writes a shell script that stands in for paplay: it copies
// the file it is given to copy, then runs body.
func fakePlayer(t *testing.T, body string) (player, copied string) {
	t.Helper()
	dir := t.TempDir()
	player, copied = filepath.Join(dir, "paplay"), filepath.Join(dir, "played.wav")
	script := "#!/bin/sh\ncp \"$1\" " + copied + "\n" + body + "\n"
	exectest.WriteScript(t, player, script)
	return player, copied
}

func TestCuePlayerPlaysTheRenderedCue(t *testing.T) {
	t.Parallel()
	player, copied := fakePlayer(t, "exit 0")
	dir := filepath.Join(t.TempDir(), "cache", "cues")
	p := &CuePlayer{Dir: dir, Player: player}
	for _, c := range []speech.Cue{speech.CueStart, speech.CueStop, speech.CueCancel} {
		if err := p.Play(c); err != nil {
			t.Fatalf("Play(%d): %v", c, err)
		}
		got, err := speech.ReadWAVFile(copied)
		if err != nil {
			t.Fatalf("the player got no readable WAV: %v", err)
		}
		want := c.Sound()
		if got.SampleRate != want.SampleRate || len(got.Samples) != len(want.Samples) {
			t.Fatalf("cue %d played as %d Hz × %d samples, want %d Hz × %d", c, got.SampleRate, len(got.Samples), want.SampleRate, len(want.Samples))
		}
		for i := range want.Samples {
			if d := got.Samples[i] - want.Samples[i]; d > 1.0/32768 || d < -1.0/32768 {
				t.Fatalf("cue %d sample %d = %v, want %v", c, i, got.Samples[i], want.Samples[i])
			}
		}
	}
}

func TestCueFilesAreWrittenOnce(t *testing.T) {
	t.Parallel()
	player, _ := fakePlayer(t, "exit 0")
	dir := t.TempDir()
	if err := (&CuePlayer{Dir: dir, Player: player}).Play(speech.CueStart); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "cue-start.wav")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	// A new process (a new player) finds the file as it should be.
	if err := (&CuePlayer{Dir: dir, Player: player}).Play(speech.CueStart); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(file); !st.ModTime().Equal(old) {
		t.Errorf("an unchanged cue file was rewritten (mtime %v, want %v)", st.ModTime(), old)
	}
	// A damaged one is replaced.
	if err := os.WriteFile(file, []byte("not a wav"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (&CuePlayer{Dir: dir, Player: player}).Play(speech.CueStart); err != nil {
		t.Fatal(err)
	}
	if _, err := speech.ReadWAVFile(file); err != nil {
		t.Errorf("a damaged cue file was not replaced: %v", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

func TestCuePlayerFailures(t *testing.T) {
	t.Parallel()
	t.Run("the player fails", func(t *testing.T) {
		t.Parallel()
		player, _ := fakePlayer(t, "echo 'Connection refused' >&2; exit 1")
		err := (&CuePlayer{Dir: t.TempDir(), Player: player}).Play(speech.CueStop)
		if err == nil || !strings.Contains(err.Error(), "stop cue") || !strings.Contains(err.Error(), "Connection refused") {
			t.Errorf("error = %v, want one naming the cue and the player's own words", err)
		}
	})
	t.Run("a stuck player is stopped", func(t *testing.T) {
		t.Parallel()
		player, _ := fakePlayer(t, "exec sleep 60")
		start := time.Now()
		err := (&CuePlayer{Dir: t.TempDir(), Player: player, Timeout: 200 * time.Millisecond}).Play(speech.CueStart)
		if err == nil {
			t.Fatal("a player killed at its timeout reported success")
		}
		if waited := time.Since(start); waited > 30*time.Second {
			t.Errorf("Play returned after %v: the timeout did not stop the player", waited)
		}
	})
	t.Run("no player installed", func(t *testing.T) {
		t.Parallel()
		none := func(string) (string, error) { return "", errors.New("not found") }
		_, err := FindCuePlayer("linux", none)
		if err == nil || !strings.Contains(err.Error(), "pulseaudio-utils") || !strings.Contains(err.Error(), "soundCues") {
			t.Errorf("error = %v, want what to install and how to switch cues off", err)
		}
	})
	t.Run("the sound server's player comes first", func(t *testing.T) {
		t.Parallel()
		have := map[string]bool{"aplay": true, "paplay": true}
		look := func(n string) (string, error) {
			if have[n] {
				return "/usr/bin/" + n, nil
			}
			return "", errors.New("not found")
		}
		if p, err := FindCuePlayer("linux", look); err != nil || p != "/usr/bin/paplay" {
			t.Errorf("FindCuePlayer = %q, %v; want paplay over aplay", p, err)
		}
		if p, err := FindCuePlayer("darwin", func(n string) (string, error) { return "/usr/bin/" + n, nil }); err != nil || p != "/usr/bin/afplay" {
			t.Errorf("FindCuePlayer(darwin) = %q, %v; want afplay", p, err)
		}
	})
}
