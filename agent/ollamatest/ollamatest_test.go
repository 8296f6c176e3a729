package ollamatest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

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

func client(t *testing.T, srv *Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// The request that starts a load owns it (server/sched.go): when it goes
// away first, the load is thrown away and the model is not in memory.
func TestLoadDiesWithItsRequest(t *testing.T) {
	t.Parallel()
	srv := New(t, QwenStyle("q"))
	srv.SetLoadDelay(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- client(t, srv).Chat(ctx, &api.ChatRequest{Model: "q"}, func(api.ChatResponse) error { return nil })
	}()
	for !srv.Loading("q") {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled preload succeeded")
	}
	for srv.LoadsAborted() == 0 {
		time.Sleep(time.Millisecond)
	}
	if srv.Loaded("q") || srv.Loads() != 0 {
		t.Errorf("loaded %v, loads %d after the owner left", srv.Loaded("q"), srv.Loads())
	}
}

// The runner ends a stream cleanly, with neither a done line nor an error,
// once one token repeats more than RepeatLimit times; llama-server's native
// path has no such stop and runs into num_predict instead.
func TestRepeatAbort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		b      Behaviour
		m      Model
		done   bool
		reason string
	}{
		{Runner, QwenStyle("q"), false, ""},
		{Runner, Qwen3("q"), false, ""},
		{LlamaServer, Qwen3("q"), false, ""},
		{LlamaServer, QwenStyle("q"), true, "length"},
	} {
		t.Run(c.b.String()+"/"+c.m.Family, func(t *testing.T) {
			t.Parallel()
			// Whitespace variants count as one token, as the runner trims.
			raw := "ok " + strings.Repeat("again\n", 5) + strings.Repeat("again", 60)
			srv := New(t, c.m).SetBehaviour(c.b).Script(Reply{Raw: raw})
			var done bool
			var reason, content string
			err := client(t, srv).Chat(context.Background(), &api.ChatRequest{Model: "q", Messages: []api.Message{{Role: "user", Content: "hi"}}},
				func(r api.ChatResponse) error {
					content += r.Message.Content
					if r.Done {
						done, reason = true, r.DoneReason
					}
					return nil
				})
			if err != nil || done != c.done || reason != c.reason {
				t.Fatalf("err %v done %v reason %q", err, done, reason)
			}
			// 65 were scripted; the stop comes just past the limit.
			if n := strings.Count(content, "again"); n < RepeatLimit || n > 5+RepeatLimit+2 {
				t.Errorf("%d of 65 repeats reached the client", n)
			}
		})
	}
}

// Overflow with truncate false: the runner's text, or llama-server's own
// error body forwarded as the message.
func TestOverflowText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		b    Behaviour
		want string
	}{
		{Runner, "the input length exceeds the context length"},
		{LlamaServer, "exceed_context_size_error"},
	} {
		t.Run(c.b.String(), func(t *testing.T) {
			t.Parallel()
			srv := New(t, QwenStyle("q")).SetBehaviour(c.b).Script(Reply{Text: "ok"})
			f := false
			err := client(t, srv).Chat(context.Background(), &api.ChatRequest{Model: "q", Truncate: &f, Options: map[string]any{"num_ctx": 2048},
				Messages: []api.Message{{Role: "user", Content: strings.Repeat("words ", 4000)}}}, func(api.ChatResponse) error { return nil })
			var se api.StatusError
			if !errors.As(err, &se) || se.StatusCode != 400 || !strings.Contains(se.ErrorMessage, c.want) {
				t.Errorf("err %#v, want 400 with %q", err, c.want)
			}
		})
	}
}

// A parser failure before anything was written is a real 500; after the
// first line it is an error line in the 200 stream.
func TestParserErrorStatus(t *testing.T) {
	t.Parallel()
	bad := "<tool_call>\n{\"name\": \"x\", \"arguments\": {\"a\": \"b\"c}}\n</tool_call>"
	for _, c := range []struct {
		name, raw string
		status    bool
	}{
		{"before any line", bad, true},
		{"after text", "Let me look. " + bad, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := New(t, Qwen3("q")).Script(Reply{Raw: c.raw})
			err := client(t, srv).Chat(context.Background(), &api.ChatRequest{Model: "q", Tools: api.Tools{{Type: "function", Function: api.ToolFunction{Name: "x"}}},
				Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil })
			var se api.StatusError
			if err == nil || errors.As(err, &se) != c.status {
				t.Errorf("err %#v, want a status error: %v", err, c.status)
			}
		})
	}
}

// A cloud model's chat would leave the machine: the server records it.
func TestCloudModels(t *testing.T) {
	t.Parallel()
	srv := New(t, Cloud("gpt-oss:120b-cloud"))
	show, err := client(t, srv).Show(context.Background(), &api.ShowRequest{Model: "gpt-oss:120b-cloud"})
	if err != nil || show.RemoteHost == "" {
		t.Fatalf("show %+v err %v", show, err)
	}
	_ = client(t, srv).Chat(context.Background(), &api.ChatRequest{Model: "other:cloud", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil })
	if len(srv.RemoteRequests()) != 1 || len(srv.Requests()) != 0 {
		t.Errorf("remote %d local %d", len(srv.RemoteRequests()), len(srv.Requests()))
	}
}
