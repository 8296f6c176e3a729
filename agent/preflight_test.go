package agent

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent/ollamatest"
)

func TestCheckWarnings(t *testing.T) {
	t.Parallel()
	small := ollamatest.Qwen3("qwen3-small:1b")
	small.ContextLength = 4096
	cases := []struct {
		name, version, model string
		contextLength        int
		want                 []string // one warning containing each, in order
	}{
		{"all good", "0.17.4", DefaultModel, 8192, nil},
		{"current", "0.33.0", DefaultModel, 8192, nil},
		{"the floor itself", "0.12.6", "llama3.1:8b", 8192, nil},
		// Below 0.12.6 is an error now (TestOllamaBelowTheFloorIsRefused).
		// A source build says 0.0.0: unknown, not too old, and said so.
		{"source build", "0.0.0", DefaultModel, 8192, []string{"cannot tell whether it is 0.12.6 or later"}},
		{"model context too short", "0.17.4", "qwen3-small:1b", 8192, []string{"at most 4096 tokens"}},
		{"thinking-only model", "0.17.4", "qwen3:4b", 8192, []string{"always thinks"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.Qwen3(DefaultModel), ollamatest.Qwen3Thinking("qwen3:4b"), ollamatest.LlamaStyle("llama3.1:8b"), small)
			srv.SetVersion(c.version)
			u, _ := url.Parse(srv.URL)
			warnings, err := Check(context.Background(), NewOllamaClient(u), u.String(), c.model, c.contextLength, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != len(c.want) {
				t.Fatalf("warnings %q, want %d", warnings, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %q lacks %q", warnings[i], w)
				}
			}
		})
	}
}

func TestVersionLess(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		less bool
	}{
		{"0.7.1", "0.8.0", true}, {"0.8.0", "0.8.0", false}, {"0.17.4", "0.8.0", false},
		{"0.9.1-rc0", "0.9.2", true}, {"v1.0", "0.17.4", false}, {"garbage", "0.8.0", false},
	}
	for _, c := range cases {
		if got := versionLess(c.a, c.b); got != c.less {
			t.Errorf("versionLess(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestVersionUnknown(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"0.0.0": true, "garbage": true, "": true, "0.12.6": false, "0.0.1": false} {
		if got := VersionUnknown(v); got != want {
			t.Errorf("VersionUnknown(%q) = %v", v, got)
		}
	}
	if VersionTooOld("0.0.0") || !VersionTooOld("0.12.5") || VersionTooOld("0.12.6") {
		t.Error("VersionTooOld misjudges the floor or a source build")
	}
}

// A model Ollama serves from elsewhere is refused by name or by its
// remote_host, with what would leave the machine and where; allowed, it
// is a warning that says the same.
func TestCheckCloudModels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ model, host string }{
		{"gpt-oss:120b-cloud", "ollama.com"}, // a stub with remote_host
		{"qwen3:cloud", "ollama.com"},        // a tag alone (v0.33 needs no stub)
	} {
		t.Run(c.model, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.Cloud("gpt-oss:120b-cloud"), ollamatest.Cloud("qwen3:cloud"))
			u, _ := url.Parse(srv.URL)
			_, err := Check(context.Background(), NewOllamaClient(u), u.String(), c.model, 8192, false)
			if !errors.Is(err, ErrCloudModel) || !strings.Contains(err.Error(), "would send what you say and every command's output to "+c.host) ||
				!strings.Contains(err.Error(), `"allowCloudModels": true`) {
				t.Fatalf("err %v", err)
			}
			warnings, err := Check(context.Background(), NewOllamaClient(u), u.String(), c.model, 8192, true)
			if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "runs on "+c.host) {
				t.Fatalf("allowed: warnings %q err %v", warnings, err)
			}
		})
	}
}

// TestDowngradedOllamaIsSeen: a running Hark that has already talked to
// a new enough Ollama refuses a request once Ollama is replaced by one
// below the floor (walk 6, B2-10: it kept answering through 0.12.5 while
// hark doctor said ✗), and takes requests again after the update.
func TestDowngradedOllamaIsSeen(t *testing.T) {
	t.Parallel()
	s := newScenario(t, ollamatest.Qwen3(DefaultModel), nil, ollamatest.Reply{Text: "hi"}, ollamatest.Reply{Text: "hi again"})
	s.srv.SetVersion("0.17.4")
	if _, err := s.agent.Run(context.Background(), NewConversation(), "say hi"); err != nil {
		t.Fatal(err)
	}
	s.srv.SetVersion("0.12.5")
	_, err := s.agent.Run(context.Background(), NewConversation(), "say hi")
	if !errors.Is(err, ErrOllamaTooOld) {
		t.Fatalf("a request to a downgraded Ollama: err %v, want it refused as too old", err)
	}
	if n := len(s.srv.Requests()); n != 1 {
		t.Errorf("%d chats reached Ollama, want only the one before the downgrade", n)
	}
	s.srv.SetVersion("0.17.4")
	if _, err := s.agent.Run(context.Background(), NewConversation(), "say hi"); err != nil {
		t.Errorf("after the update: %v", err)
	}
}

// TestTooOldSaysItShort: the refusal of an old Ollama is one short
// sentence a notification shows whole (walk 6, B2-9: the reasons cut the
// way to fix it off); the reasons are in TooOldWhy, for Problems….
func TestTooOldSaysItShort(t *testing.T) {
	t.Parallel()
	err := tooOldError("http://127.0.0.1:11586", "0.12.5")
	want := "Ollama 0.12.5 is too old for Hark (needs 0.12.6). Update it: https://ollama.com/download"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err.Error(), want)
	}
	why := TooOldWhy("http://127.0.0.1:11586")
	for _, w := range []string{"older than 0.12.6", "truncate:false", "http://127.0.0.1:11586", "https://ollama.com/download", "install.sh"} {
		if !strings.Contains(why, w) {
			t.Errorf("TooOldWhy lacks %q: %s", w, why)
		}
	}
}
