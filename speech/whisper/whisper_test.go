package whisper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       Options
		wantLang string
		wantThr  int
		wantErr  string
	}{
		{name: "empty language is English", in: Options{ModelPath: "m.bin"}, wantLang: "en", wantThr: DefaultThreads()},
		{name: "language is normalised", in: Options{ModelPath: "m.bin", Language: " DE "}, wantLang: "de", wantThr: DefaultThreads()},
		{name: "threads kept", in: Options{ModelPath: "m.bin", Threads: 3}, wantLang: "en", wantThr: 3},
		{name: "threads capped", in: Options{ModelPath: "m.bin", Threads: 64}, wantLang: "en", wantThr: MaxThreads},
		{name: "negative threads", in: Options{ModelPath: "m.bin", Threads: -1}, wantErr: "not a thread count"},
		{name: "no model", in: Options{ModelPath: "  "}, wantErr: "hark models download"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.in.withDefaults()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("withDefaults() error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("withDefaults() error = %v", err)
			}
			if got.Language != tc.wantLang || got.Threads != tc.wantThr {
				t.Errorf("withDefaults() = language %q, threads %d; want %q, %d", got.Language, got.Threads, tc.wantLang, tc.wantThr)
			}
		})
	}
}

func TestDefaultThreadsIsBounded(t *testing.T) {
	t.Parallel()
	if n := DefaultThreads(); n < 1 || n > MaxThreads {
		t.Fatalf("DefaultThreads() = %d, want 1..%d", n, MaxThreads)
	}
	for in, want := range map[int]int{-2: 1, 0: 1, 1: 1, 8: 8, 9: 8, 128: 8} {
		if got := clampThreads(in); got != want {
			t.Errorf("clampThreads(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestLanguageChoice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		lang         string
		multilingual bool
		want         string
		wantErr      string
	}{
		{name: "english model, english", lang: "en", want: "en"},
		{name: "english model, auto means english", lang: "auto", want: "en"},
		{name: "english model refuses german", lang: "de", wantErr: `only knows English, but the language is set to "de"`},
		{name: "multilingual, german", lang: "de", multilingual: true, want: "de"},
		{name: "multilingual, auto", lang: "auto", multilingual: true, want: "auto"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := languageChoice(tc.lang, tc.multilingual, "/models/ggml-base.en.bin")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "ggml-base.en.bin") {
					t.Fatalf("languageChoice() error = %v, want one containing %q and the model name", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("languageChoice() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCheckModelFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "ggml-small.en.bin")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, wantErr string
	}{
		{name: "present", path: file},
		{name: "missing names the download", path: filepath.Join(dir, "ggml-tiny.bin"), wantErr: "hark models download tiny"},
		{name: "folder", path: dir, wantErr: "is a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkModelFile(tc.path)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("checkModelFile() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("checkModelFile() = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestFittedAudioCtx(t *testing.T) {
	t.Parallel()
	sec := func(s float64) int { return int(s * 16000) }
	for _, tc := range []struct {
		name    string
		samples int
		want    int
	}{
		{"a short tail gets the floor", sec(0.5), minFittedSeconds * 50},
		{"a chunk gets its length and a second", sec(6), 350},
		{"a partial position rounds up", sec(6) + 1, 351},
		{"never beyond whisper's window", sec(45), 1500},
	} {
		if got := fittedAudioCtx(tc.samples); got != tc.want {
			t.Errorf("%s: fittedAudioCtx(%d) = %d, want %d", tc.name, tc.samples, got, tc.want)
		}
	}
}
