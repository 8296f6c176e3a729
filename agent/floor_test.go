package agent

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent/ollamatest"
)

// TestVersionFloorParsing: how every form of a version Ollama may report
// is judged against the 0.12.6 floor. A source build's 0.0.0 and an
// unreadable or empty version are unknown: used, with a warning.
func TestVersionFloorParsing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v            string
		old, unknown bool
	}{
		{"0.12.5", true, false},
		{"0.12.5-rc1", true, false},
		{"v0.12.5", true, false},
		{" 0.12.5\n", true, false},
		{"0.12.4", true, false},
		{"0.12", true, false},
		{"0.9.10", true, false}, // 9 < 12, not "9.10" > "12.6" as text
		{"0.8.0", true, false},
		{"0.12.6", false, false},
		{"0.12.6-rc0", false, false}, // a pre-release counts as its release
		{"0.12.10", false, false},    // 10 > 6, not "10" < "6" as text
		{"0.13.0", false, false},
		{"v0.33.0+dirty", false, false},
		{"1.0.0", false, false},
		{"0.0.0", false, true},
		{"", false, true},
		{"unknown", false, true},
		{"0.12.x", false, true},
	} {
		if got := VersionTooOld(c.v); got != c.old {
			t.Errorf("VersionTooOld(%q) = %v, want %v", c.v, got, c.old)
		}
		if got := VersionUnknown(c.v); got != c.unknown {
			t.Errorf("VersionUnknown(%q) = %v, want %v", c.v, got, c.unknown)
		}
	}
}

// TestOllamaBelowTheFloorIsRefused: an Ollama below 0.12.6 (no truncate
// field: it silently cuts an overflowing prompt) is refused by the
// start-up check and by every request, with the version found and how to
// update, and no chat reaches it. At the floor and on a source build the
// request goes.
func TestOllamaBelowTheFloorIsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version string
		refused bool
	}{{"0.12.5", true}, {"0.12.5-rc1", true}, {"0.9.10", true}, {"0.12.6", false}, {"0.12.10", false}, {"0.0.0", false}} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, ollamatest.Qwen3(DefaultModel), nil, ollamatest.Reply{Text: "hi"})
			s.srv.SetVersion(c.version)
			u, _ := url.Parse(s.srv.URL)
			_, cerr := Check(context.Background(), NewOllamaClient(u), u.String(), DefaultModel, 8192, false)
			_, rerr := s.agent.Run(context.Background(), NewConversation(), "say hi")
			for what, err := range map[string]error{"check": cerr, "request": rerr} {
				if !c.refused {
					if err != nil {
						t.Errorf("%s: %v", what, err)
					}
					continue
				}
				if !errors.Is(err, ErrOllamaTooOld) || !strings.Contains(err.Error(), "Ollama "+c.version+" ") ||
					!strings.Contains(err.Error(), "0.12.6") || !strings.Contains(err.Error(), "https://ollama.com/download") {
					t.Errorf("%s: err %v, want the version found, the floor and how to update", what, err)
				}
			}
			if c.refused && len(s.srv.Requests()) != 0 {
				t.Errorf("%d chats reached an Ollama below the floor", len(s.srv.Requests()))
			}
		})
	}
}
