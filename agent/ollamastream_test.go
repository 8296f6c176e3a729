package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
)

// OllamaClient.Chat reads every reply as api.Client.Chat does: the same
// responses, and errors of the same type and value, for the same bytes,
// whatever the status and however long a line.
func TestOllamaClientChatReadsAsAPIClient(t *testing.T) {
	t.Parallel()
	piece := func(s string) string {
		return fmt.Sprintf(`{"model":"m","message":{"role":"assistant","content":%q},"done":false}`, s)
	}
	final := `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"command","arguments":{"command":"ls"}}}]},"done":true,"done_reason":"stop","eval_count":3}`
	long := piece(strings.Repeat("x", 3<<20)) // far past the first buffer, within the limit
	tooLong := piece(strings.Repeat("y", 9<<20))
	cases := []struct {
		name   string
		status int
		body   string
		stopAt int // fn fails on this response (1-based); 0: never
	}{
		{"a stream", 200, piece("Hel") + "\n" + piece("lo") + "\n" + final + "\n", 0},
		{"no newline at the end", 200, piece("a") + "\n" + final, 0},
		{"an empty reply", 200, "", 0},
		{"the model's error after words", 200, piece("a") + "\n" + `{"error":"error parsing tool call: raw='{'"}` + "\n", 0},
		{"a line that is not JSON", 200, piece("a") + "\nnot json\n", 0},
		{"a line that is JSON but no response", 200, `{"message":"x"}` + "\n", 0},
		{"the server's error", 500, `{"error":"llama-server chat error"}`, 0},
		{"a server error that is not JSON", 502, "Bad Gateway\n", 0},
		{"a missing model", 404, `{"error":"model \"x\" not found, try pulling it first"}`, 0},
		{"sign in", 401, `{"error":"unauthorized","signin_url":"https://ollama.com/connect?x"}`, 0},
		{"a long line", 200, long + "\n" + final + "\n", 0},
		{"a line past the limit", 200, piece("a") + "\n" + tooLong + "\n", 0},
		{"the caller stops", 200, piece("a") + "\n" + piece("b") + "\n" + final + "\n", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var wrong []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/chat" || r.Method != http.MethodPost || r.Header.Get("Accept") != "application/x-ndjson" ||
					!strings.HasPrefix(r.Header.Get("User-Agent"), "ollama/") {
					mu.Lock()
					wrong = append(wrong, fmt.Sprintf("request %s %s %v", r.Method, r.URL.Path, r.Header))
					mu.Unlock()
				}
				w.Header().Set("Content-Type", "application/x-ndjson")
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			u, err := url.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			stop := errors.New("stop")
			read := func(c ChatClient) ([]api.ChatResponse, error) {
				var rs []api.ChatResponse
				err := c.Chat(context.Background(), &api.ChatRequest{Model: "m"}, func(r api.ChatResponse) error {
					rs = append(rs, r)
					if len(rs) == tc.stopAt {
						return stop
					}
					return nil
				})
				return rs, err
			}
			wantR, wantErr := read(api.NewClient(u, &http.Client{}))
			gotR, gotErr := read(NewOllamaClient(u))
			mu.Lock()
			if len(wrong) > 0 {
				t.Errorf("not the request api.Client sends: %v", wrong)
			}
			mu.Unlock()
			if !reflect.DeepEqual(gotR, wantR) {
				t.Errorf("responses differ:\n got %d: %.300v\nwant %d: %.300v", len(gotR), gotR, len(wantR), wantR)
			}
			if !reflect.DeepEqual(gotErr, wantErr) {
				t.Errorf("error %T %.200v, want %T %.200v", gotErr, gotErr, wantErr, wantErr)
			}
		})
	}
}
