package doctor

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
)

// fakeOllama is an httptest server speaking the two endpoints the Ollama
// probes use.
func fakeOllama(t testing.TB, models map[string][]string, hang bool) (*api.Client, string) {
	t.Helper()
	// A hanging handler waits for the test to end: the server cannot always
	// tell that the client gave up, and srv.Close waits for handlers.
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

// BenchmarkRun compares doctor's concurrent run with running the same checks
// one after another (the baseline), over real protocols where the check
// talks to something: an httptest Ollama, the file system, a login item.
// Report the ratio concurrent/sequential.
func BenchmarkRun(b *testing.B) {
	client, host := fakeOllama(b, map[string][]string{"qwen3:4b": {"completion", "tools"}}, false)
	root := b.TempDir()
	paths := settings.Paths{
		Settings: filepath.Join(root, "settings.json"), Models: filepath.Join(root, "models"),
		History: filepath.Join(root, "history"), Audit: filepath.Join(root, "audit.jsonl"),
		Logs: filepath.Join(root, "logs"), Runtime: filepath.Join(root, "run"),
	}
	li := bundle.LoginItem{GOOS: "linux", Home: root, Executable: "/bin/hark"}
	checks := []Check{
		Settings(paths.Settings, nil),
		Folders(paths),
		FromProbe("Whisper model", true, func(ctx context.Context) (string, error) { return models.ProbeModel(ctx, "base.en", paths.Models) }),
		FromProbe("Ollama", true, func(ctx context.Context) (string, error) { return agent.ProbeServer(ctx, client, host, "linux") }),
		FromProbe("Ollama model", true, func(ctx context.Context) (string, error) {
			return agent.ProbeModel(ctx, client, host, "qwen3:4b", "linux")
		}),
		LoginItem(li.Status),
	}
	ctx := context.Background()
	b.Run("sequential-baseline", func(b *testing.B) {
		for b.Loop() {
			for _, c := range checks {
				Run(ctx, []Check{c}, time.Second)
			}
		}
	})
	b.Run("concurrent", func(b *testing.B) {
		for b.Loop() {
			Run(ctx, checks, time.Second)
		}
	})
}
