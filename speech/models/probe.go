package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hark-sh/hark/speech"
)

// Path maps the whisperModel setting to the file it means, present or not:
// a path (it has a separator or ends in .bin) as it is, else the catalog
// model's file in dir.
func Path(setting, dir string, catalog []Model) (string, error) {
	if looksLikePath(setting) {
		return setting, nil
	}
	m, err := Lookup(catalog, setting)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, m.File()), nil
}

func looksLikePath(s string) bool {
	return strings.ContainsRune(s, os.PathSeparator) || strings.HasSuffix(s, ".bin")
}

// ProbeModel is the whisper model's line in `hark doctor`: the file the
// setting names is on disk, or the command that downloads it.
func ProbeModel(_ context.Context, setting, dir string) (string, error) {
	path, err := Path(setting, dir, Catalog)
	if err != nil {
		return "", &speech.ProbeError{Problem: fmt.Sprintf("%q: %v", setting, err),
			Next: "set \"whisperModel\" to a name from `hark models list` or a path to a ggml .bin file"}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		fix := fmt.Sprintf("hark models download %s", setting)
		if looksLikePath(setting) {
			fix = fmt.Sprintf("put the model at %s, or set \"whisperModel\" to a catalog name and run `hark models download NAME`", path)
		}
		return "", &speech.ProbeError{Problem: fmt.Sprintf("%s is missing (%s)", setting, path), Next: fix}
	}
	return fmt.Sprintf("%s (%s, %d MB)", setting, path, fi.Size()>>20), nil
}

// ProbeVAD is the voice activity model's line in `hark doctor`. It is
// optional: the loudness gate keeps silence out without it, but only it
// keeps music and typing away from whisper.
func ProbeVAD(_ context.Context, dir string) (string, error) {
	name, path, err := CheckVAD(dir)
	switch {
	case path == "":
		return "", &speech.ProbeError{Problem: "not installed: music and typing can reach whisper, which may invent words for them",
			Next: "hark models download silero-v5", Minor: true}
	case err != nil:
		return "", &speech.ProbeError{Problem: err.Error(), Next: "hark models download " + name, Minor: true}
	}
	return fmt.Sprintf("%s (%s)", name, path), nil
}
