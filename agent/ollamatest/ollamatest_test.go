package ollamatest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func TestPiecesJoinBack(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "<tool_call>\n{\"name\": \"x\"}\n</tool_call>", strings.Repeat("é", 7)} {
		ps := Pieces(s)
		if got := strings.Join(ps, ""); got != s {
			t.Errorf("Pieces(%q) join to %q", s, got)
		}
		for _, p := range ps {
			if p != "" && !isRuneStart(p[0]) {
				t.Errorf("piece %q starts inside a rune", p)
			}
		}
	}
}

// The server drops whole old messages first, keeping system messages and
// the last one (server/prompt.go), and only then cuts to num_keep.
func TestContextTruncationOrder(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("old words ", 800) // about 2000 tokens each
	cases := []struct {
		name       string
		msgs       []api.Message
		numCtx     int
		truncate   *bool
		keepSystem bool
		wantErr    bool
	}{
		{"fits", []api.Message{{Role: "system", Content: "RULES"}, {Role: "user", Content: "hi"}}, 4096, nil, true, false},
		{"old messages dropped, system kept", []api.Message{{Role: "system", Content: "RULES"}, {Role: "user", Content: long}, {Role: "assistant", Content: long}, {Role: "user", Content: "latest"}}, 2048, nil, true, false},
		{"last message alone overflows: runner cut loses the system", []api.Message{{Role: "system", Content: "RULES"}, {Role: "user", Content: long + long + "latest"}}, 2048, nil, false, false},
		{"truncate false refuses", []api.Message{{Role: "system", Content: "RULES"}, {Role: "user", Content: long + long + "latest"}}, 2048, new(bool), false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := New(t, QwenStyle("q")).Script(Reply{Text: "ok"})
			u, _ := url.Parse(srv.URL)
			err := api.NewClient(u, http.DefaultClient).Chat(context.Background(), &api.ChatRequest{
				Model: "q", Messages: c.msgs, Truncate: c.truncate, Options: map[string]any{"num_ctx": c.numCtx},
			}, func(api.ChatResponse) error { return nil })
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v", err, c.wantErr)
			}
			if c.wantErr {
				if !strings.Contains(err.Error(), ErrInputTooLong.Error()) {
					t.Errorf("err %v", err)
				}
				return
			}
			p := srv.Prompts()[0]
			last := c.msgs[len(c.msgs)-1].Content
			tail := last[max(0, len(last)-6):] // the end of the last message always survives
			if strings.Contains(p, "RULES") != c.keepSystem || !strings.Contains(p, tail) {
				t.Errorf("prompt kept system=%v:\n%.300s", strings.Contains(p, "RULES"), p)
			}
			if Tokens(p) > c.numCtx {
				t.Errorf("prompt of %d tokens in a context of %d", Tokens(p), c.numCtx)
			}
		})
	}
}

func TestPreloadAndKeepAlive(t *testing.T) {
	t.Parallel()
	srv := New(t)
	u, _ := url.Parse(srv.URL)
	var reason string
	err := api.NewClient(u, http.DefaultClient).Chat(context.Background(), &api.ChatRequest{Model: "qwen3:4b-instruct-2507-q4_K_M"},
		func(r api.ChatResponse) error { reason = r.DoneReason; return nil })
	if err != nil || reason != "load" || srv.Loads() != 1 || len(srv.Requests()) != 0 {
		t.Errorf("err %v reason %q loads %d requests %d", err, reason, srv.Loads(), len(srv.Requests()))
	}
}
