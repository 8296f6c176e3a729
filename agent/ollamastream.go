package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"
)

// OllamaClient is Ollama's own client with one method replaced: Chat
// reads the reply's lines through a buffer that grows to the longest line
// seen, where api.Client allocates and zeroes 8 MB for every request. A
// voice press makes three (the preload and two turns of the loop), and on
// a two-core machine that zeroing and the collections it brings on were
// the largest cost Hark itself added to a press. The reading is
// api.Client's to the letter: the same request, the same limit on a line,
// the same errors for the same bytes, so everything that tells errors by
// where they come from (classify) sees what it saw before.
type OllamaClient struct {
	*api.Client
	base *url.URL
	http *http.Client
}

// chatLineMax is api.Client's limit on one line of a stream (its
// maxBufferSize); a longer line fails as it fails there.
const chatLineMax = 8 << 20

// chatLineStart is where the line buffer starts: a streamed piece is a
// few hundred bytes, a final line with tool calls rarely more than a few
// kilobytes.
const chatLineStart = 16 << 10

// Chat is api.Client.Chat, reading through a growing buffer. Requests
// Ollama must sign (OLLAMA_AUTH, or ollama.com itself) go through
// api.Client unchanged: only it holds the key.
func (c *OllamaClient) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if envconfig.UseAuth() || c.base.Hostname() == "ollama.com" {
		return c.Client.Chat(ctx, req, fn)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/x-ndjson")
	hreq.Header.Set("User-Agent", fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version()))
	resp, err := c.http.Do(hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, chatLineStart), chatLineMax)
	for sc.Scan() {
		line := sc.Bytes()
		var e struct {
			Error     string `json:"error,omitempty"`
			SigninURL string `json:"signin_url,omitempty"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			if resp.StatusCode >= http.StatusBadRequest {
				return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(line)}
			}
			return errors.New(string(line))
		}
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: e.SigninURL}
		case resp.StatusCode >= http.StatusBadRequest:
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: e.Error}
		case e.Error != "":
			return errors.New(e.Error)
		}
		var r api.ChatResponse
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return sc.Err()
}
