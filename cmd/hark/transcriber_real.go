//go:build !e2e

package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/whisper"
)

// newTranscriber builds whisper.cpp over the configured model. A build
// without whisper.cpp, or a model file of the user's own that is not
// there, turns voice input off with a status line saying how to fix it;
// typed and sent requests still work. A catalog model (or the voice
// activity model) not downloaded yet leaves voice on: the menu offers the
// download (speechModels), and the transcriber switches to it when it
// arrives.
func newTranscriber(st settings.Settings, paths settings.Paths, _ *slog.Logger) (app.Transcriber, error) {
	if !whisper.Available() {
		return nil, whisper.ErrUnavailable
	}
	path, err := models.Path(st.WhisperModel, paths.Models, models.Catalog)
	if err != nil {
		return nil, fmt.Errorf("whisper model: %w", err)
	}
	_, missing := os.Stat(path)
	if _, err := models.Lookup(models.Catalog, st.WhisperModel); err != nil && missing != nil {
		_, err := models.Resolve(st.WhisperModel, paths.Models, models.Catalog)
		return nil, fmt.Errorf("whisper model: %w", err)
	}
	o := whisper.Options{
		ModelPath:     path,
		Language:      st.Language,
		Threads:       st.WhisperThreads,
		InitialPrompt: machineVocabulary(st.InitialPrompt),
		VADModelPath:  models.FindVAD(paths.Models),
	}
	if missing != nil || o.VADModelPath == "" {
		s, err := newSwitchingTranscriber(o)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return whisper.New(o)
}
