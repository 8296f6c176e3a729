package agent

import (
	"context"
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
		{"old ollama for qwen3", "0.9.0", DefaultModel, 8192, []string{"older than 0.17.4"}},
		{"old ollama for llama", "0.7.1", "llama3.1:8b", 8192, []string{"older than 0.8.0"}},
		{"new enough for llama", "0.8.0", "llama3.1:8b", 8192, nil},
		{"model context too short", "0.17.4", "qwen3-small:1b", 8192, []string{"at most 4096 tokens"}},
		{"thinking-only model", "0.17.4", "qwen3:4b", 8192, []string{"always thinks"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t, ollamatest.Qwen3(DefaultModel), ollamatest.Qwen3Thinking("qwen3:4b"), ollamatest.LlamaStyle("llama3.1:8b"), small)
			srv.SetVersion(c.version)
			u, _ := url.Parse(srv.URL)
			warnings, err := Check(context.Background(), NewOllamaClient(u), u.String(), c.model, c.contextLength)
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
