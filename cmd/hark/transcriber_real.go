//go:build !e2e

package main

import (
	"fmt"
	"log/slog"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/speech/models"
	"github.com/hark-sh/hark/speech/whisper"
)

// newTranscriber builds whisper.cpp over the configured model. A build
// without whisper.cpp, or a model that is not downloaded, turns voice input
// off with a status line saying how to fix it; typed and sent requests
// still work.
func newTranscriber(st settings.Settings, paths settings.Paths, _ *slog.Logger) (app.Transcriber, error) {
	if !whisper.Available() {
		return nil, whisper.ErrUnavailable
	}
	path, err := models.Resolve(st.WhisperModel, paths.Models, models.Catalog)
	if err != nil {
		return nil, fmt.Errorf("whisper model: %w", err)
	}
	return whisper.New(whisper.Options{
		ModelPath:     path,
		Language:      st.Language,
		Threads:       st.WhisperThreads,
		InitialPrompt: machineVocabulary(st.InitialPrompt),
		VADModelPath:  models.FindVAD(paths.Models),
	})
}
