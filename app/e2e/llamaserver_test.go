//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hark-sh/hark/agent/openai/openaitest"
	"github.com/hark-sh/hark/app/e2e/harness"
)

// The real llama.cpp llama-server, run from the Debian sid root that
// .ci/sid-root.sh makes (llama.cpp-tools, python3-gguf), with a tiny
// random-weight model written at test time by ../shared/tinygguf: its
// words are nonsense, but the server, its chat template rendered with
// Jinja, its tool-call grammar and parser, its errors and its stream are
// the real ones. The server listens on 127.0.0.1 only.

// needRoot is the sid root, or a skip (a fatal error in CI) saying why it
// cannot be used.
func needRoot(t *testing.T) string {
	t.Helper()
	root := os.Getenv("HARK_CI_ROOT")
	if root == "" {
		root = "/var/lib/hark-ci/sid"
	}
	switch {
	case !present(filepath.Join(root, ".hark-ready")):
		skipOrFail(t, "no Debian sid root with llama-server and libwhisper at "+root+" (make it with .ci/sid-root.sh, as root; .ci/run does)")
	case os.Geteuid() != 0:
		skipOrFail(t, "the sid root is entered with chroot, which needs root")
	}
	return root
}

// shared is a file of the workspace's ../shared folder (beside the
// repository), or the file env names; a skip (a fatal error in CI) when
// it is missing.
func shared(t *testing.T, env, rel string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p, _ = filepath.Abs(filepath.Join("..", "..", "..", "shared", rel))
	}
	if !present(p) {
		skipOrFail(t, "no "+p+" (set "+env+")")
	}
	return p
}

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// sidRoot is the root and the tiny-model maker.
func sidRoot(t *testing.T) (root, script string) {
	t.Helper()
	return needRoot(t), shared(t, "HARK_TINYGGUF", "tinygguf/make_tiny_gguf.py")
}

func present(p string) bool { _, err := os.Stat(p); return err == nil }

// llama is one running llama-server.
type llama struct {
	URL   string // http://127.0.0.1:PORT
	Build string // build_info from /props
	Ctx   int
	log   *syncBuffer
}

// startLlama writes a tiny model with make_tiny_gguf.py's arguments args
// and serves it with a context of ctx tokens, one slot, one thread.
func startLlama(t *testing.T, ctx int, args ...string) *llama {
	t.Helper()
	root, script := sidRoot(t)
	dir, err := os.MkdirTemp(filepath.Join(root, "tmp"), "hark-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "make_tiny_gguf.py"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	inner := "/tmp/" + filepath.Base(dir)
	env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "HOME=" + inner}
	mk := exec.Command("chroot", append([]string{root, "python3", inner + "/make_tiny_gguf.py", inner + "/model.gguf"}, args...)...)
	mk.Env = env
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("making the model: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("chroot", root, "llama-server", "-m", inner+"/model.gguf", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"-c", strconv.Itoa(ctx), "-np", "1", "-t", "1", "--seed", "1", "--no-webui")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); pw.Close(); close(exited) }()
	s := &llama{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Ctx: ctx, log: &syncBuffer{}}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		if t.Failed() {
			t.Logf("--- llama-server ---\n%s", tail(s.log.String(), 4000))
		}
	})
	// Ready when it says it listens; a server that exits first ends the
	// scan with the pipe.
	ready := false
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		fmt.Fprintln(s.log, sc.Text())
		if strings.Contains(sc.Text(), "listening on") {
			ready = true
			break
		}
	}
	go func() {
		for sc.Scan() {
			fmt.Fprintln(s.log, sc.Text())
		}
	}()
	if !ready {
		<-exited
		t.Fatalf("llama-server stopped before it listened:\n%s", s.log.String())
	}
	var props struct {
		Build string `json:"build_info"`
	}
	if err := getJSON(s.URL+"/props", &props); err != nil {
		t.Fatal(err)
	}
	s.Build = props.Build
	return s
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// The models: plain answers in words; calls opens a tool call at once
// (the grammar then keeps its JSON to the schema) with short strings,
// often several in one reply.
var (
	plainModel = []string{"--template", "qwen2.5"}
	callsModel = []string{"--template", "qwen2.5", "--after", `\n`, "<tool_call>", "14", "--after", "<tool_call>", `\n`, "20",
		"--bias", `"=2`, "--after", "</tool_call>", "<|im_end|>", "20"}
	// thinks: Qwen3's thinking template opens <think>; a few words of
	// reasoning, then a call.
	thinksModel = []string{"--template", "qwen3-thinking", "--bias", "</think>=1.5", "--after", "</think>", "<tool_call>", "20",
		"--after", "<tool_call>", `\n`, "20", "--bias", `"=2`, "--after", "</tool_call>", "<|im_end|>", "20"}
)

// tap stands between Hark and llama-server: it passes everything on and
// keeps each chat request, and can cut a reply, lie about the context or
// send a recorded request in place of Hark's first chat.
type tap struct {
	*httptest.Server
	up string

	mu       sync.Mutex
	chats    [][]byte // the chat requests, the start-up probe included
	replies  [][]byte // what came back for each
	cutAfter int      // >0: close the connection after this many data events
	propsCtx int      // >0: /props says this n_ctx
	first    []byte   // sent in place of the first chat after the probe
}

func newTap(t *testing.T, up *llama) *tap {
	tp := &tap{up: up.URL}
	tp.Server = httptest.NewServer(http.HandlerFunc(tp.serve))
	t.Cleanup(tp.Close)
	return tp
}

func (tp *tap) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	tp.mu.Lock()
	isChat := r.URL.Path == "/v1/chat/completions"
	if isChat {
		if tp.first != nil && !bytes.Contains(body, []byte(`"name":"ping"`)) {
			body, tp.first = tp.first, nil
		}
		tp.chats = append(tp.chats, body)
	}
	cut, lie := tp.cutAfter, tp.propsCtx
	tp.mu.Unlock()
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, tp.up+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := upstream.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if r.URL.Path == "/props" && lie > 0 {
		var p map[string]any
		json.NewDecoder(resp.Body).Decode(&p)
		if g, ok := p["default_generation_settings"].(map[string]any); ok {
			g["n_ctx"] = lie
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	var got bytes.Buffer
	defer func() {
		if isChat {
			tp.mu.Lock()
			tp.replies = append(tp.replies, got.Bytes())
			tp.mu.Unlock()
		}
	}()
	br := bufio.NewReader(resp.Body)
	events := 0
	for {
		line, err := br.ReadBytes('\n')
		got.Write(line)
		w.Write(line)
		w.(http.Flusher).Flush()
		if bytes.HasPrefix(line, []byte("data: ")) {
			events++
			if cut > 0 && events >= cut && isChat && !bytes.Contains(body, []byte(`"name":"ping"`)) {
				// The server dies mid-reply: the connection closes.
				if conn, _, herr := w.(http.Hijacker).Hijack(); herr == nil {
					conn.Close()
				}
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// upstream is the tap's own way to the server: a connection per request,
// so that the tap adds no connection reuse of its own to what it shows.
var upstream = &http.Transport{DisableKeepAlives: true}

func (tp *tap) requests() (chats, replies [][]byte) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([][]byte(nil), tp.chats...), append([][]byte(nil), tp.replies...)
}

// harkRun runs one hark command in a fresh home with these settings and
// its own temporary folder, and says what it printed, how it exited, and
// what it left in that folder.
func harkRun(t *testing.T, settingsJSON string, args ...string) (out string, code int, left []string) {
	t.Helper()
	home, tmp := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, harkBin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "HARK_HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "NO_COLOR=1"}
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("hark %v: %v", args, err)
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	return string(b), code, left
}

func openaiSettings(url string, extra string) string {
	return fmt.Sprintf(`{"llmRuntime": "openai", "openaiBaseURL": %q, "llmModel": "tiny"%s}`, url+"/v1", extra)
}

// never are words no message about llama-server may hold: another
// runtime's name, the advice that was wrong on both counts, the refusal
// of Hark's old tool schema.
var never = []string{"Ollama", "up to date", "properties must be an object", "restart llama-server and", "restarting llama-server"}

func checkWords(t *testing.T, what, out string) {
	t.Helper()
	for _, w := range never {
		if strings.Contains(out, w) {
			t.Errorf("%s says %q:\n%s", what, w, out)
		}
	}
}

func TestLlamaServer(t *testing.T) {
	plain := startLlama(t, 4096, plainModel...)
	calls := startLlama(t, 4096, callsModel...)
	thinks := startLlama(t, 4096, thinksModel...)
	t.Logf("llama-server %s", plain.Build)

	t.Run("recordings", func(t *testing.T) { checkRecordings(t, plain, calls, thinks) })

	t.Run("doctor finds the server and the model", func(t *testing.T) {
		out, _, _ := harkRun(t, openaiSettings(calls.URL, ""), "doctor")
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "llama-server at") {
				line = l
			}
		}
		if !strings.Contains(line, "✓ Model server") || !strings.Contains(line, "serves tiny, which calls tools") || !strings.Contains(line, "context 4096") {
			t.Errorf("doctor's llama-server line %q in:\n%s", line, out)
		}
		checkWords(t, "doctor", out)
	})

	t.Run("a model that answers in words", func(t *testing.T) {
		// The random model without steering never calls the probe's tool:
		// the check says so, in llama-server's terms (no --jinja: it is on).
		out, code, _ := harkRun(t, openaiSettings(plain.URL, ""), "ask", "--new", "hi")
		checkWords(t, "ask", out)
		if code == 0 || !strings.Contains(out, "cannot call tools") || strings.Contains(out, "--jinja") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})

	t.Run("ask gets past the check", func(t *testing.T) {
		tp := newTap(t, calls)
		out, code, left := harkRun(t, openaiSettings(tp.URL, `, "numPredict": 128, "maxTurns": 3`), "ask", "--new", "what is in tmp?")
		checkWords(t, "ask", out)
		chats, _ := tp.requests()
		if len(chats) < 2 {
			t.Fatalf("exit %d after %d chats; the request never reached the model:\n%s", code, len(chats), out)
		}
		if len(left) > 0 {
			t.Errorf("left in $TMPDIR: %q", left)
		}
	})

	t.Run("tool calls judged, malformed ones refused with a reason", func(t *testing.T) {
		// The recorded request makes this server reply with several calls,
		// some with empty commands; it goes in place of Hark's first chat.
		several := openaitest.Recorded("several-calls")
		tp := newTap(t, calls)
		tp.first = several.Request
		out, code, _ := harkRun(t, openaiSettings(tp.URL, `, "numPredict": 256, "maxTurns": 2`), "ask", "--new", "list tmp")
		checkWords(t, "ask", out)
		chats, _ := tp.requests()
		if len(chats) < 3 {
			t.Fatalf("exit %d: no tool result went back to the model:\n%s", code, out)
		}
		results := toolResults(t, chats[2:3])
		if len(results) != several.Calls {
			t.Errorf("%d results for the %d calls of one reply", len(results), several.Calls)
		}
		malformed := 0
		for _, r := range results {
			// Every call is answered: run, or refused by the policy or the
			// argument check, with the reason in the result.
			msg, _ := r["error"].(string)
			tier, _ := r["tier"].(string)
			if strings.Contains(msg, "Invalid call") {
				malformed++
			}
			if tier == "" && !strings.Contains(msg, "Invalid call") && !strings.Contains(msg, "Not run") {
				t.Errorf("a result neither judged nor refused with a reason: %v", r)
			}
		}
		// The recorded reply's first call has an empty command.
		if malformed == 0 {
			t.Errorf("no call was refused as malformed: %v", results)
		}
	})

	t.Run("reasoning is never the answer", func(t *testing.T) {
		// The recorded request makes this server reason before its call.
		tp := newTap(t, thinks)
		tp.first = openaitest.Recorded("reasoning").Request
		out, _, _ := harkRun(t, openaiSettings(tp.URL, `, "numPredict": 256, "maxTurns": 3`), "ask", "--new", "list tmp")
		checkWords(t, "ask", out)
		_, replies := tp.requests()
		if len(replies) < 2 {
			t.Fatalf("no reply after the probe:\n%s", out)
		}
		for _, r := range replies[1:] {
			text := streamed(r, "reasoning_content")
			for _, piece := range strings.FieldsFunc(text, func(c rune) bool { return c == '\uFFFD' || c == '"' || c == ' ' }) {
				if len(piece) >= 3 && strings.Contains(out, piece) {
					t.Errorf("reasoning %q was shown:\n%s", piece, out)
				}
			}
		}
		if text := streamed(replies[1], "reasoning_content"); strings.TrimSpace(text) == "" {
			t.Errorf("the substituted reply held no reasoning to check against")
		}
	})

	t.Run("a parse failure is the model's", func(t *testing.T) {
		// The recorded request makes this server's parser fail; it goes
		// in place of Hark's first chat, so Hark reads the real failure.
		tp := newTap(t, calls)
		tp.first = openaitest.Recorded("parse-failure").Request
		out, _, _ := harkRun(t, openaiSettings(tp.URL, `, "numPredict": 256, "maxTurns": 3`), "ask", "--new", "list tmp")
		checkWords(t, "ask", out)
		chats, replies := tp.requests()
		if len(replies) < 2 || !strings.Contains(string(replies[1]), "peg-native") {
			t.Fatalf("the server did not fail to parse the substituted reply:\n%q", replies)
		}
		if len(chats) < 3 || !strings.Contains(string(chats[2]), "llama-server could not read your tool call") {
			t.Errorf("no corrective turn naming llama-server:\n%s", out)
		}
	})

	t.Run("the server refuses an overflow", func(t *testing.T) {
		tp := newTap(t, calls)
		tp.propsCtx = 65536 // Hark's own budget lets it through
		out, code, _ := harkRun(t, openaiSettings(tp.URL, ""), "ask", "--new", strings.Repeat("count these words ", 3000))
		checkWords(t, "ask", out)
		if code == 0 || !strings.Contains(out, "refused it rather than cut the instructions") || !strings.Contains(out, "-c") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})

	t.Run("Hark's budget refuses an overflow", func(t *testing.T) {
		tp := newTap(t, calls)
		out, code, _ := harkRun(t, openaiSettings(tp.URL, `, "contextLength": 65536`), "ask", "--new", strings.Repeat("count these words ", 3000))
		checkWords(t, "ask", out)
		if code == 0 || !strings.Contains(out, "llama-server set when it loaded the model") || !strings.Contains(out, "-c") || strings.Contains(out, "raise contextLength") {
			t.Errorf("exit %d:\n%s", code, out)
		}
		if chats, _ := tp.requests(); len(chats) != 1 {
			t.Errorf("%d chats; only the start-up probe should have been sent", len(chats))
		}
	})

	t.Run("a stream cut midway", func(t *testing.T) {
		tp := newTap(t, calls)
		tp.cutAfter = 3
		out, code, _ := harkRun(t, openaiSettings(tp.URL, `, "numPredict": 128`), "ask", "--new", "hi")
		checkWords(t, "ask", out)
		if code == 0 || !strings.Contains(out, "stopped before it was complete") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})

	t.Run("a failed start-up check leaves nothing behind", func(t *testing.T) {
		tp := newTap(t, calls)
		// A tool schema llama-server refuses would fail the check the same
		// way; a closed port fails it fastest.
		tp.Close()
		out, code, left := harkRun(t, openaiSettings(tp.URL, ""), "ask", "--new", "hi")
		if code == 0 || !strings.Contains(out, "llama-server") && !strings.Contains(out, "not running") {
			t.Errorf("exit %d:\n%s", code, out)
		}
		if len(left) > 0 {
			t.Errorf("left in $TMPDIR: %q", left)
		}
	})

	t.Run("a request through the app", func(t *testing.T) {
		d := newDesktop(t, false, true)
		tp := newTap(t, calls)
		h := launchHarkWith(t, d, openaiSettings(tp.URL, `, "numPredict": 128, "maxTurns": 3, "confirmTimeout": "60s", "previewTimeout": "10s"`))
		h.menu = harness.MenuOf(t, d.bus, h.cmd.Process.Pid)
		h.menu.WaitFor(t, 30*time.Second, "Quit")
		// Whatever the random model proposes that needs approval is
		// denied from its notification, as a person would.
		done := make(chan struct{})
		go func() {
			denied := map[uint32]bool{}
			for {
				select {
				case <-done:
					return
				case <-time.After(100 * time.Millisecond):
				}
				for _, n := range d.notes.All() {
					if key := n.ActionKey("Deny (safe choice)"); key != "" && !denied[n.ID] {
						denied[n.ID] = true
						d.notes.Invoke(n.ID, key)
					}
				}
			}
		}()
		out, code := h.send(true, "hi")
		close(done)
		checkWords(t, "hark send", out)
		if chats, _ := tp.requests(); len(chats) < 2 {
			t.Errorf("exit %d, %d chats; the app's request never reached the model:\n%s", code, len(chats), out)
		}
		t.Logf("hark send (exit %d): %s", code, out)
	})
}

// streamed is the text of one field of the deltas in an SSE reply.
func streamed(sse []byte, field string) string {
	var b strings.Builder
	for _, line := range strings.Split(string(sse), "\n") {
		p, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta map[string]any `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(p), &ch) != nil {
			continue
		}
		for _, c := range ch.Choices {
			if s, ok := c.Delta[field].(string); ok {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// toolResults are the tool messages Hark sent back, decoded.
func toolResults(t *testing.T, chats [][]byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	seen := map[string]bool{}
	for _, c := range chats {
		var req struct {
			Messages []struct {
				Role, Content string
				ToolCallID    string `json:"tool_call_id"`
			}
		}
		if err := json.Unmarshal(c, &req); err != nil {
			continue
		}
		for _, m := range req.Messages {
			if m.Role != "tool" || seen[m.ToolCallID+m.Content] {
				continue
			}
			seen[m.ToolCallID+m.Content] = true
			var v map[string]any
			if err := json.Unmarshal([]byte(m.Content), &v); err != nil {
				t.Errorf("a tool result is not JSON: %s", m.Content)
				continue
			}
			out = append(out, v)
		}
	}
	return out
}

// The exchanges the stand-in (agent/openai/openaitest) is checked
// against: each request goes to the real server and its answer must be
// the recorded one; HARK_E2E_RECORD=1 writes them anew.
type recordCase struct {
	name   string
	server *llama
	body   string
	model  bool // the failure is the model's output
}

func checkRecordings(t *testing.T, plain, calls, thinks *llama) {
	tool := func(params string) string {
		return `{"model":"tiny","messages":[{"role":"user","content":"Call the ping tool now."}],"stream":true,"max_tokens":8,` +
			`"tools":[{"type":"function","function":{"name":"ping","description":"Answers pong.","parameters":` + params + `}}]}`
	}
	cases := []recordCase{
		{name: "properties-null", server: plain, body: tool(`{"type":"object","properties":null}`)},
		{name: "properties-empty", server: plain, body: tool(`{"type":"object","properties":{}}`)},
		{name: "properties-absent", server: plain, body: tool(`{"type":"object"}`)},
		{name: "overflow", server: plain, body: `{"model":"tiny","stream":true,"max_tokens":8,"messages":[{"role":"user","content":"` + strings.Repeat("many words ", 3000) + `"}]}`},
		{name: "parse-failure", server: calls, model: true, body: `{"model":"tiny","stream":true,"max_tokens":300,"seed":2,"messages":[{"role":"user","content":"Call ping"}],` +
			`"tools":[{"type":"function","function":{"name":"execute_terminal_command","description":"d","parameters":{"type":"object","properties":{"command":{"type":"string"},"purpose":{"type":"string"},"workingDirectory":{"type":"string"}},"required":["command","purpose"]}}}]}`},
	}
	hark := `"tools":[{"type":"function","function":{"name":"execute_terminal_command","description":"d","parameters":{"type":"object","properties":{"command":{"type":"string"},"purpose":{"type":"string"},"workingDirectory":{"type":"string"}},"required":["command","purpose"]}}}]`
	cases = append(cases,
		recordCase{name: "several-calls", server: calls, body: `{"model":"tiny","stream":true,"max_tokens":300,"seed":9,"messages":[{"role":"user","content":"Call ping"}],` + hark + `}`},
		recordCase{name: "reasoning", server: thinks, body: `{"model":"tiny","stream":true,"max_tokens":300,"seed":5,"messages":[{"role":"user","content":"Call ping"}],` + hark + `}`})
	record := os.Getenv("HARK_E2E_RECORD") == "1"
	dir := filepath.Join("..", "..", filepath.FromSlash(openaitest.RecordingsDir))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := exchange(t, c)
			b, _ := json.MarshalIndent(got, "", "  ")
			file := filepath.Join(dir, c.name+".json")
			if record {
				if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := openaitest.Recorded(c.name)
			// What counts is what the server says, not its build number: a
			// newer sid build that answers alike passes, and is named.
			if got.Build != want.Build {
				t.Logf("llama-server %s, recorded with %s", got.Build, want.Build)
			}
			if got.Status != want.Status || got.InStream != want.InStream || normal(got.Error) != normal(want.Error) ||
				got.Calls != want.Calls || got.Reasoning != want.Reasoning {
				t.Errorf("llama-server %s no longer answers as recorded with %s in %s (HARK_E2E_RECORD=1 records it anew; then check the stand-in and docs/models.md):\ngot  %s", got.Build, want.Build, file, b)
			}
		})
	}
}

// exchange sends one recorded case to the real server.
func exchange(t *testing.T, c recordCase) openaitest.Recording {
	t.Helper()
	// One connection per exchange: llama-server closes a connection after
	// some answers, and a POST is not retried on a closed one.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Post(c.server.URL+"/v1/chat/completions", "application/json", strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := openaitest.Recording{Name: c.name, Build: c.server.Build, Context: c.server.Ctx, Request: json.RawMessage(c.body), Status: resp.StatusCode, ModelOutput: c.model}
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if resp.StatusCode != http.StatusOK {
		if json.Unmarshal(body, &e) == nil {
			r.Error = e.Error
		}
		return r
	}
	for _, line := range strings.Split(string(body), "\n") {
		if p, ok := strings.CutPrefix(line, "data: "); ok && strings.HasPrefix(p, `{"error"`) && json.Unmarshal([]byte(p), &e) == nil {
			r.Error, r.InStream = e.Error, true
		}
	}
	if r.Error == nil {
		r.Calls = len(regexp.MustCompile(`"id":"[A-Za-z0-9]{32}"`).FindAllString(string(body), -1))
		r.Reasoning = streamed(body, "reasoning_content")
	}
	return r
}

var digits = regexp.MustCompile(`[0-9]+`)

// normal is an error object with its numbers left out (token counts).
func normal(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return digits.ReplaceAllString(string(b), "N")
}
