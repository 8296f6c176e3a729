package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/doctor"
)

// On an Intel Mac Homebrew builds ggml from source, without Metal, so
// speech runs on the CPU: doctor says so there, warns about a model too
// large for a CPU with the setting to use instead, and says nothing on
// Apple silicon, elsewhere, or in a build without voice input.
func TestDoctorSaysIntelMacsSpeakOnTheCPU(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		goos, goarch string
		whisper      bool
	}{{"darwin", "arm64", true}, {"linux", "amd64", true}, {"darwin", "amd64", false}} {
		if cs := intelChecks(c.goos, c.goarch, c.whisper, "base.en"); len(cs) != 0 {
			t.Errorf("%s/%s whisper=%v: %d Intel lines, want none", c.goos, c.goarch, c.whisper, len(cs))
		}
	}
	for _, c := range []struct {
		model string
		want  doctor.Status
	}{{"base.en", doctor.OK}, {"tiny.en-q5_1", doctor.OK}, {"/Users/me/ggml-custom.bin", doctor.OK}, {"small.en", doctor.Warn}, {"medium", doctor.Warn}} {
		cs := intelChecks("darwin", "amd64", true, c.model)
		if len(cs) != 1 || cs[0].Required {
			t.Fatalf("%s: %d Intel lines (required %v), want one that never fails doctor", c.model, len(cs), len(cs) == 1 && cs[0].Required)
		}
		r := cs[0].Run(context.Background())
		if r.Status != c.want || !strings.Contains(r.Detail, "CPU") || !strings.Contains(r.Detail, "Metal") {
			t.Errorf("%s: %v %q, want status %v naming the CPU and Metal", c.model, r.Status, r.Detail, c.want)
		}
		if r.Status == doctor.Warn && (!strings.Contains(r.Fix, `"whisperModel": "base.en"`) || !strings.Contains(r.Detail, c.model)) {
			t.Errorf("%s: the warning %q / %q must name the model and the setting to use", c.model, r.Detail, r.Fix)
		}
	}
}
