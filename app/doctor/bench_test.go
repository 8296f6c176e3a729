package doctor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/settings"
)

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
		WhisperModel("base.en", modelFileIn(paths.Models)),
		Ollama(client, host, "linux"),
		OllamaModel(client, host, "qwen3:4b", "linux"),
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
