package openai_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/openai"
)

// A kept-alive connection the server closes just as the next request goes
// out (llama-server drops idle ones after a few seconds) ends before any
// answer: the request goes again on a new connection, instead of failing
// as a reply cut off by a crash.
func TestClosedKeepAliveIsRetried(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	const reply = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var mu sync.Mutex
	conns := 0
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns++
			first := conns == 1
			mu.Unlock()
			go func(c net.Conn, first bool) {
				defer c.Close()
				br := bufio.NewReader(c)
				for n := 1; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if first && n == 2 {
						return // closed as the second request arrives
					}
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(reply), reply)
				}
			}(c, first)
		}
	}()
	c, err := openai.New(openai.Options{BaseURL: "http://" + ln.Addr().String() + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		var got strings.Builder
		err := c.Chat(context.Background(), &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(r api.ChatResponse) error {
			got.WriteString(r.Message.Content)
			return nil
		})
		if err != nil || got.String() != "hi" {
			t.Fatalf("chat %d: %q, %v", i, got.String(), err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != 2 {
		t.Errorf("%d connections; the second chat should have reused the first, then opened one", conns)
	}
}
