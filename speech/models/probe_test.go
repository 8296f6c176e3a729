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

// The voice activity model is optional: missing or damaged, the probe
// names the download, and the problem is minor.
func TestProbeVAD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := ProbeVAD(context.Background(), dir)
	var pe *speech.ProbeError
	if !errors.As(err, &pe) || !pe.Minor || !strings.Contains(pe.Problem, "not installed") || pe.Next != "hark models download silero-v5" {
		t.Fatalf("no model: %#v", err)
	}
	// A file with the right name but not the published bytes.
	damaged := filepath.Join(dir, VADCatalog[1].File())
	if err := os.WriteFile(damaged, []byte("not silero"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ProbeVAD(context.Background(), dir)
	if !errors.As(err, &pe) || !pe.Minor || pe.Next != "hark models download silero-v6" || !strings.Contains(pe.Problem, damaged) {
		t.Fatalf("damaged model: %#v", err)
	}
}
