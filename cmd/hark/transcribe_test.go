package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/settings"
)

// runTranscribeCmd drives `hark transcribe` through dispatch with buffers.
func runTranscribeCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code = dispatch(context.Background(), e, append([]string{"transcribe"}, args...))
	return code, out.String(), errb.String()
}

func TestTranscribeUsage(t *testing.T) {
	t.Setenv("HARK_HOME", t.TempDir())
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{name: "no file", args: nil, wantCode: exitUsage, wantErr: "Usage: hark transcribe"},
		{name: "two files", args: []string{"a.wav", "b.wav"}, wantCode: exitUsage, wantErr: "Usage: hark transcribe"},
		{name: "unknown flag", args: []string{"--nope", "a.wav"}, wantCode: exitUsage, wantErr: "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runTranscribeCmd(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(stderr, tc.wantErr) || stdout != "" {
				t.Errorf("hark transcribe %q = %d, stdout %q, stderr %q; want %d and %q on stderr", tc.args, code, stdout, stderr, tc.wantCode, tc.wantErr)
			}
		})
	}
	// Help that was asked for is output, not an error.
	if code, stdout, stderr := runTranscribeCmd(t, "-h"); code != exitOK || !strings.Contains(stdout, "-model") || stderr != "" {
		t.Errorf("hark transcribe -h = %d, stdout %q, stderr %q; want 0 and the options on stdout", code, stdout, stderr)
	}
}

func TestResolveModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := settings.Paths{Models: filepath.Join(dir, "models")}
	if err := os.MkdirAll(paths.Models, 0o755); err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(paths.Models, "ggml-base.en.bin")
	own := filepath.Join(dir, "my-model.bin")
	for _, f := range []string{installed, own} {
		if err := os.WriteFile(f, []byte("model"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, model, want, wantErr string
	}{
		{name: "downloaded name", model: "base.en", want: installed},
		{name: "path as is", model: own, want: own},
		{name: "name not downloaded", model: "small", wantErr: "run `hark models download small`"},
		{name: "missing path", model: filepath.Join(dir, "gone.bin"), wantErr: "gone.bin"},
		{name: "unknown name", model: "enormous", wantErr: "known models: "},
		{name: "empty", model: " ", wantErr: "--model NAME"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := resolveModel(tc.model, paths)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("resolveModel(%q) error = %v, want one containing %q", tc.model, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("resolveModel(%q) = %q, %v; want %q", tc.model, got, err, tc.want)
			}
		})
	}
}
