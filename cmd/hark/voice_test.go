package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/speech/models"
)

// runHark runs a subcommand with HARK_HOME in a temporary folder whose
// settings point model downloads at baseURL.
func runHark(t *testing.T, baseURL string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HARK_HOME", home)
	if baseURL != "" {
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"modelBaseURL": "`+baseURL+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	code = dispatch(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestModelsCommand(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		noStderr bool
	}{
		{name: "list shows the catalog and the folder", args: []string{"models", "list"}, code: exitOK, stdout: "* base.en", noStderr: true},
		{name: "download of a model the server lacks", args: []string{"models", "download", "tiny.en"}, code: exitError, stderr: "404"},
		{name: "download of an unknown name", args: []string{"models", "download", "enormous"}, code: exitError, stderr: "known models: tiny"},
		{name: "download knows the VAD models", args: []string{"models", "download", "silero"}, code: exitError, stderr: "silero-v5"},
		{name: "list offers a VAD model", args: []string{"models", "list"}, code: exitOK, stdout: "Install one with `hark models download silero-v5`", noStderr: true},
		{name: "no subcommand", args: []string{"models"}, code: exitUsage, stderr: "Usage: hark models list"},
		{name: "unknown subcommand", args: []string{"models", "fetch"}, code: exitUsage, stderr: "unknown subcommand"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runHark(t, srv.URL, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) || (tc.noStderr && stderr != "") {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout with %q, stderr with %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
	t.Run("list shows where an installed model is", func(t *testing.T) {
		path, out := listWithModel(t, models.Catalog[0].File())
		if !strings.Contains(out, path) {
			t.Fatalf("list does not show %s:\n%s", path, out)
		}
	})
	t.Run("list marks the VAD model in use", func(t *testing.T) {
		path, out := listWithModel(t, models.VADCatalog[1].File())
		want := "* " + models.VADCatalog[1].Name
		if !strings.Contains(out, want) || !strings.Contains(out, path) || strings.Contains(out, "None installed") {
			t.Fatalf("list does not show %q at %s:\n%s", want, path, out)
		}
	})
}

// listWithModel puts a stand-in model file into a new HARK_HOME and returns
// its path and what `hark models list` prints.
func listWithModel(t *testing.T, file string) (path, out string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HARK_HOME", home)
	path = filepath.Join(home, "models", file)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if code := dispatch(context.Background(), &env{stdout: &buf, stderr: &buf}, []string{"models", "list"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, buf.String())
	}
	return path, buf.String()
}

func TestProgressPrinter(t *testing.T) {
	t.Parallel()
	var plain, term bytes.Buffer
	pp, tp := newProgressPrinter(&plain, false), newProgressPrinter(&term, true)
	for done := int64(0); done <= 100<<20; done += 1 << 20 {
		p := models.Progress{Model: "base.en", Done: done, Total: 100 << 20}
		pp.report(p)
		tp.report(p)
	}
	if n := strings.Count(plain.String(), "\n"); n != 11 {
		t.Errorf("plain output has %d lines, want 11 (0%%…100%%):\n%s", n, plain.String())
	}
	if strings.Contains(plain.String(), "\r") {
		t.Error("plain output redraws with \\r")
	}
	if !strings.Contains(term.String(), "\rbase.en [") || !strings.HasSuffix(term.String(), "\n") {
		t.Errorf("terminal output is not a redrawn bar ending in a newline: %q", term.String()[max(0, term.Len()-120):])
	}
	// Each redraw covers the one before: the last, which has no time
	// left, must not leave the previous one's "0:00 left" showing.
	draws := strings.Split(strings.TrimSuffix(term.String(), "\n"), "\r")
	last, before := draws[len(draws)-1], draws[len(draws)-2]
	if len(last) < len(before) || strings.Contains(last, "left") {
		t.Errorf("the final bar %q does not cover the one before %q", last, before)
	}
}

func TestRecordUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"no file", []string{"record"}},
		{"not a wav file", []string{"record", "out.mp3"}},
		{"two files", []string{"record", "a.wav", "b.wav"}},
		{"negative seconds", []string{"record", "--seconds", "-1", "a.wav"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runHark(t, "", tc.args...)
			if code != exitUsage || stderr == "" {
				t.Fatalf("exit %d, stderr %q; want a usage error", code, stderr)
			}
		})
	}
}
