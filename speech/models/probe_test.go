package models

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/speech"
)

func TestProbeModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ggml-base.en.bin"), make([]byte, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, setting string
		ok            bool
		detail, fix   string
	}{
		{"present", "base.en", true, "base.en (" + filepath.Join(dir, "ggml-base.en.bin") + ", 3 MB)", ""},
		{"missing", "small.en", false, "small.en is missing", "hark models download small.en"},
		{"path missing", "/nope/ggml-x.bin", false, "/nope/ggml-x.bin", "put the model at"},
		{"unknown name", "huge", false, "no model called", "hark models list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			detail, err := ProbeModel(context.Background(), c.setting, dir)
			if c.ok {
				if err != nil || detail != c.detail {
					t.Errorf("got %q, %v; want %q", detail, err, c.detail)
				}
				return
			}
			var pe *speech.ProbeError
			if !errors.As(err, &pe) || !strings.Contains(pe.Error(), c.detail) || !strings.Contains(pe.Fix(), c.fix) || pe.Limited() {
				t.Errorf("got %q, %v; want %q with fix %q", detail, err, c.detail, c.fix)
			}
		})
	}
}
