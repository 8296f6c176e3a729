package doctor

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
)

// BenchmarkRun compares doctor's concurrent run with running the same checks
// one after another (the baseline), over real protocols where the check
// talks to something: an httptest Ollama, the file system, a login item.
// Report the ratio concurrent/sequential.
func BenchmarkRun(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.Qwen3("qwen3:4b"))
	host := srv.URL
	u, _ := url.Parse(host)
	client := api.NewClient(u, http.DefaultClient)
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
			return agent.ProbeModel(ctx, client, host, "qwen3:4b", "linux", false)
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
