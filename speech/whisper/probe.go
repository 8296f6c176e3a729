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
