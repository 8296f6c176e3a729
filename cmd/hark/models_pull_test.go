package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent/ollamatest"
)

// hark models pull has Ollama download the model with the whisper
// download's bar on a terminal, Ollama's steps as lines, and a failure
// that says what to do.
func TestModelsPull(t *testing.T) {
	srv, home := askEnv(t)
	srv.Offer(ollamatest.Pull{Model: ollamatest.Qwen3("qwen3:8b"), Layers: []int64{50 << 20, 1 << 10}})

	r := runAgentCLI(t, "", true, "models", "pull", "qwen3:8b")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !srv.Installed("qwen3:8b") {
		t.Error("the model is not installed")
	}
	for _, want := range []string{"qwen3:8b: pulling manifest\n", "\rqwen3:8b [", "100.0% 50.0/50.0 MiB", "MiB/s", "qwen3:8b: verifying sha256 digest\n", "qwen3:8b: success\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "qwen3:8b: pulled into Ollama at ") || !strings.Contains(r.stdout, `Set "ollamaModel": "qwen3:8b"`) {
		t.Errorf("stdout %q", r.stdout)
	}

	// No name: the ollamaModel setting, which needs no advice to set it;
	// a pull that takes a while says how long it has left.
	srv.Offer(ollamatest.Pull{Model: ollamatest.Qwen3("tiny:1b"), Layers: []int64{20 << 20}, Pace: 2 * time.Millisecond})
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"ollamaModel": "tiny:1b"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runAgentCLI(t, "", true, "models", "pull")
	if r.code != exitOK || !srv.Installed("tiny:1b") {
		t.Fatalf("default model: exit %d, installed %v: %s", r.code, srv.Installed("tiny:1b"), r.stderr)
	}
	if !strings.Contains(r.stderr, " left ") {
		t.Errorf("the bar never said the time left:\n%q", r.stderr)
	}
	if !strings.Contains(r.stdout, "tiny:1b: pulled into Ollama at ") || strings.Contains(r.stdout, "Set ") {
		t.Errorf("default model: stdout %q", r.stdout)
	}

	r = runAgentCLI(t, "", false, "models", "pull", "nosuch:1b")
	if r.code != exitError || !strings.Contains(r.stderr, `no model "nosuch:1b" in the Ollama library`) {
		t.Errorf("unknown model: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runAgentCLI(t, "", false, "models", "pull", "gpt-oss:120b-cloud")
	if r.code != exitError || !strings.Contains(r.stderr, "refuses it") {
		t.Errorf("cloud model: exit %d, stderr %q", r.code, r.stderr)
	}

	// On an OpenAI-compatible runtime Ollama is not the model server, so
	// pull says so and sends Ollama nothing.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"llmRuntime": "openai", "llmModel": "qwen3-4b", "openaiBaseURL": "http://127.0.0.1:1234/v1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Offer(ollamatest.Pull{Model: ollamatest.Qwen3("fresh:1b"), Layers: []int64{1 << 10}})
	r = runAgentCLI(t, "", false, "models", "pull", "fresh:1b")
	if r.code != exitError || !strings.Contains(r.stderr, `llmRuntime is "openai"`) || srv.Installed("fresh:1b") {
		t.Errorf("openai runtime: exit %d, installed %v, stderr %q", r.code, srv.Installed("fresh:1b"), r.stderr)
	}
}

// Ctrl-C reaches commands as the cancelled context main makes with
// signal.NotifyContext. A pull stopped that way ends the bar's line, exits
// with the shell's interrupted code, leaves nothing installed, and says
// that running it again resumes.
func TestModelsPullInterrupted(t *testing.T) {
	srv, _ := askEnv(t)
	srv.Offer(ollamatest.Pull{Model: ollamatest.Qwen3("qwen3:8b"), Layers: []int64{50 << 20}, HoldAt: 20 << 20})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	var errb lockedBuffer
	go func() {
		// Interrupt once the bar has drawn the hold: the server holding
		// the pull does not mean the client has read that far yet.
		for !srv.Held("qwen3:8b") || !strings.Contains(errb.String(), "40.0%") {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	code := dispatch(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, isTerminal: true}, []string{"models", "pull", "qwen3:8b"})
	stderr := errb.String()
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %q", code, exitInterrupted, stderr)
	}
	bar := strings.LastIndex(stderr, "\rqwen3:8b [")
	if bar < 0 || !strings.Contains(stderr[bar:], "40.0%") {
		t.Fatalf("no bar drawn up to the hold:\n%q", stderr)
	}
	if end := strings.IndexByte(stderr[bar:], '\n'); end < 0 || strings.Contains(stderr[bar:bar+end], "hark models:") {
		t.Errorf("the bar's line was not ended before the message:\n%q", stderr)
	}
	if !strings.HasSuffix(stderr, "run `hark models pull qwen3:8b` again to resume\n") || !strings.Contains(stderr, "hark models: interrupted;") {
		t.Errorf("message:\n%q", stderr)
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
	if srv.Installed("qwen3:8b") {
		t.Error("an interrupted pull installed the model")
	}
	for deadline := time.Now().Add(10 * time.Second); srv.PullsAborted() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the client leave")
		}
	}
}
