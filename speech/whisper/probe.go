package whisper

import (
	"context"
	"runtime"

	"github.com/hark-sh/hark/speech"
)

// ProbeBuild is speech recognition's line in `hark doctor`: this binary was
// built with whisper.cpp (the whisper build tag).
func ProbeBuild(context.Context) (string, error) { return probeBuild(Available(), runtime.GOOS) }

func probeBuild(available bool, goos string) (string, error) {
	if available {
		return "built with whisper.cpp", nil
	}
	fix := "install libwhisper (build whisper.cpp with cmake and `cmake --install`), then `make build` adds the whisper tag by itself"
	if goos == "darwin" {
		fix = "brew install whisper-cpp, then `make build` adds the whisper tag by itself"
	}
	return "", &speech.ProbeError{Problem: "this build has no whisper.cpp (voice input is off; `hark send` still works)", Next: fix}
}

// noBackendText is the message of a whisper.cpp whose ggml found no CPU
// plug-in at run time; on Linux it names no Homebrew command.
func noBackendText(goos string) string {
	reinstall := "reinstall the package that installed ggml"
	if goos == "darwin" {
		reinstall = "reinstall ggml (`brew reinstall ggml`)"
	}
	return "whisper: ggml has no CPU backend: its backends are plug-ins (GGML_BACKEND_DL) " +
		"and none could be loaded from the folder ggml was built with; " + reinstall +
		" or set GGML_BACKEND_PATH to the libggml-cpu plug-in, then restart Hark"
}
