//go:build whisper && cgo

package whisper

import (
	"context"
	"strings"
	"testing"
)

// With whisper.cpp built in, doctor's lines come from the real library:
// the backends ggml loaded (a CPU one among them) and a timing of the
// built-in clip that ran to its end.
func TestProbesWithWhisper(t *testing.T) {
	model := testModel(t)
	d, err := ProbeBuild(context.Background())
	if err != nil || !strings.Contains(d, "built with whisper.cpp") || !strings.Contains(d, "backends: ") || !strings.Contains(d, "CPU") {
		t.Fatalf("ProbeBuild = %q, %v", d, err)
	}
	t.Log(d)
	d, err = ProbeSpeed(context.Background(), model)
	if err != nil || !strings.HasPrefix(d, "real-time factor ") || !strings.Contains(d, "4.0 s of built-in audio") {
		t.Fatalf("ProbeSpeed = %q, %v", d, err)
	}
	t.Log(d)
}
