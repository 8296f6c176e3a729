package main

import (
	"path/filepath"
	"testing"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/whisper"
)

// What the menu downloads is put in place without a restart: a whisper
// model becomes the model, the voice activity model the VAD, and a model
// where the first one looked changes nothing (whisper loads it itself).
func TestSwitchingTranscriberUses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "ggml-base.en.bin")
	s, err := newSwitchingTranscriber(whisper.Options{ModelPath: base})
	if err != nil {
		t.Fatal(err)
	}
	first := s.cur
	m, _ := models.Lookup(models.Catalog, "base.en")
	if err := s.use(m, base); err != nil || s.cur != first {
		t.Fatalf("the setting's own model rebuilt the transcriber (%v)", err)
	}
	small, _ := models.Lookup(models.Catalog, "small.en")
	if err := s.use(small, filepath.Join(dir, small.File())); err != nil || s.cur == first || s.opts.ModelPath != filepath.Join(dir, small.File()) {
		t.Fatalf("another model: %+v (%v)", s.opts, err)
	}
	vad := models.VADCatalog[0]
	if err := s.use(vad, filepath.Join(dir, vad.File())); err != nil || s.opts.VADModelPath != filepath.Join(dir, vad.File()) || s.opts.ModelPath != filepath.Join(dir, small.File()) {
		t.Fatalf("the VAD model: %+v (%v)", s.opts, err)
	}
	sm := speechModels(settings.Defaults(), settings.Paths{Models: dir}, s)
	if sm == nil || sm.Downloader.Dir != dir || sm.Downloader.BaseURL != settings.Defaults().ModelBaseURL || sm.Use == nil {
		t.Errorf("speechModels: %+v", sm)
	}
	if speechModels(settings.Defaults(), settings.Paths{Models: dir}, nil) != nil {
		t.Error("the menu offers speech models to a Hark that cannot use them")
	}
}
