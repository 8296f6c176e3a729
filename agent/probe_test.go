package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/shell"
)

// probeOllama is an httptest server speaking the two endpoints the probes
// use; hang makes both wait until the client gives up.
func probeOllama(t testing.TB, models map[string][]string, hang bool) (*api.Client, string) {
	t.Helper()
	stop := make(chan struct{})
	wait := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, r *http.Request) {
		if hang {
			wait(r)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"version": "0.17.4"})
	})
	mux.HandleFunc("/api/show", func(w http.ResponseWriter, r *http.Request) {
		if hang {
			wait(r)
			return
		}
		var req api.ShowRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		caps, ok := models[req.Model]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "model '" + req.Model + "' not found"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"capabilities": caps, "model_info": map[string]any{}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs before srv.Close
	u, _ := url.Parse(srv.URL)
	return api.NewClient(u, srv.Client()), srv.URL
}

// probeWant is what a probe should say: in its detail (or error), in its
// fix, and whether a problem is only a warning.
type probeWant struct {
	ok      bool
	detail  string
	fix     string
	limited bool
}

func (w probeWant) check(t *testing.T, detail string, err error) {
	t.Helper()
	if w.ok {
		if err != nil || !strings.Contains(detail, w.detail) {
			t.Errorf("got %q, %v; want OK with %q", detail, err, w.detail)
		}
		return
	}
	var pe *shell.ProbeError
	if !errors.As(err, &pe) {
		t.Fatalf("got %q, %v; want a problem", detail, err)
	}
	if !strings.Contains(pe.Error(), w.detail) || !strings.Contains(pe.Fix(), w.fix) || pe.Fix() == "" || pe.Limited() != w.limited {
		t.Errorf("problem %q, fix %q, limited %v; want %q, %q, %v", pe.Error(), pe.Fix(), pe.Limited(), w.detail, w.fix, w.limited)
	}
}

func TestProbes(t *testing.T) {
	t.Parallel()
	models := map[string][]string{
		"qwen3:4b":  {"completion", "tools", "thinking"},
		"gemma3:1b": {"completion"},
		"old:1b":    nil,
	}
	client, host := probeOllama(t, models, false)
	downSrv := httptest.NewServer(http.NotFoundHandler())
	downURL, _ := url.Parse(downSrv.URL)
	downSrv.Close() // a closed port: connection refused at once
	down := api.NewClient(downURL, http.DefaultClient)
	ctx := context.Background()
	cases := []struct {
		name  string
		probe func() (string, error)
		want  probeWant
	}{
		{"answers", func() (string, error) { return ProbeServer(ctx, client, host, "linux") }, probeWant{ok: true, detail: "version 0.17.4 at " + host}},
		{"down", func() (string, error) { return ProbeServer(ctx, down, downSrv.URL, "linux") }, probeWant{detail: "not answering at " + downSrv.URL, fix: "ollama serve"}},
		{"down on macOS", func() (string, error) { return ProbeServer(ctx, down, downSrv.URL, "darwin") }, probeWant{detail: "not answering", fix: "open the Ollama app"}},
		{"model with tools", func() (string, error) { return ProbeModel(ctx, client, host, "qwen3:4b", "linux", false) }, probeWant{ok: true, detail: "supports tools"}},
		{"model not pulled", func() (string, error) { return ProbeModel(ctx, client, host, "llama3.2:3b", "linux", false) }, probeWant{detail: "not pulled", fix: "ollama pull llama3.2:3b"}},
		{"model without tools", func() (string, error) { return ProbeModel(ctx, client, host, "gemma3:1b", "linux", false) }, probeWant{detail: "cannot call tools (it offers: completion)", fix: `"ollamaModel"`}},
		{"old server", func() (string, error) { return ProbeModel(ctx, client, host, "old:1b", "linux", false) }, probeWant{detail: "does not report capabilities", fix: "update Ollama", limited: true}},
		{"model with server down", func() (string, error) { return ProbeModel(ctx, down, downSrv.URL, "qwen3:4b", "linux", false) }, probeWant{detail: "cannot check qwen3:4b until Ollama answers at " + downSrv.URL, fix: "ollama pull qwen3:4b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, err := c.probe()
			c.want.check(t, d, err)
		})
	}
}

// A server that accepts and never answers is a problem as soon as the
// context ends, and says it hung.
func TestProbesHangingServer(t *testing.T) {
	t.Parallel()
	client, host := probeOllama(t, nil, true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := ProbeServer(ctx, client, host, "linux")
	probeWant{detail: "no answer in time", fix: "ollama serve"}.check(t, "", err)
	_, err = ProbeModel(ctx, client, host, "qwen3:4b", "linux", false)
	probeWant{detail: "did not answer in time", fix: "restart it"}.check(t, "", err)
}

// Doctor names the version and why the floor is 0.12.6, calls a source
// build unknown rather than old, names a host that is not this machine,
// and says where a cloud model would send everything.
func TestProbesVersionHostAndCloud(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server := func(t *testing.T, version string) (*OllamaClient, string) {
		srv := ollamatest.New(t, ollamatest.Qwen3(DefaultModel), ollamatest.Cloud("gpt-oss:120b-cloud"))
		srv.SetVersion(version)
		u, _ := url.Parse(srv.URL)
		return NewOllamaClient(u), srv.URL
	}
	cases := []struct {
		name    string
		version string
		probe   func(c *OllamaClient, host string) (string, error)
		want    probeWant
	}{
		{"current", "0.33.0", func(c *OllamaClient, host string) (string, error) { return ProbeServer(ctx, c, host, "linux") },
			probeWant{ok: true, detail: " (new enough: 0.12.6 or later)"}},
		{"too old", "0.12.4", func(c *OllamaClient, host string) (string, error) { return ProbeServer(ctx, c, host, "linux") },
			probeWant{detail: "Ollama 0.12.4 at", fix: "update Ollama"}},
		{"source build", "0.0.0", func(c *OllamaClient, host string) (string, error) { return ProbeServer(ctx, c, host, "linux") },
			probeWant{ok: true, detail: " (unknown: a source build"}},
		{"elsewhere", "0.33.0", func(c *OllamaClient, _ string) (string, error) {
			return ProbeServer(ctx, c, "http://192.168.1.20:11434", "linux")
		}, probeWant{detail: "requests go to 192.168.1.20", fix: "127.0.0.1:11434", limited: true}},
		{"localhost is here", "0.33.0", func(c *OllamaClient, _ string) (string, error) {
			return ProbeServer(ctx, c, "http://localhost:11434", "linux")
		}, probeWant{ok: true, detail: "version 0.33.0"}},
		{"cloud stub", "0.33.0", func(c *OllamaClient, host string) (string, error) {
			return ProbeModel(ctx, c, host, "gpt-oss:120b-cloud", "linux", false)
		}, probeWant{detail: "sends what you say and every command's output to ollama.com", fix: `"allowCloudModels": true`}},
		{"cloud tag", "0.33.0", func(c *OllamaClient, host string) (string, error) {
			return ProbeModel(ctx, c, host, "qwen3:cloud", "linux", false)
		}, probeWant{detail: "to ollama.com", fix: `"allowCloudModels": true`}},
		{"cloud allowed", "0.33.0", func(c *OllamaClient, host string) (string, error) {
			return ProbeModel(ctx, c, host, "gpt-oss:120b-cloud", "linux", true)
		}, probeWant{detail: "allowCloudModels is on", fix: "local model", limited: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			client, host := server(t, c.version)
			d, err := c.probe(client, host)
			c.want.check(t, d, err)
		})
	}
}
