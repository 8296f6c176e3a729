package logs

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/settings"
)

func TestRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "hark.log")
	r, err := OpenRotating(path, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	line := func(i int) []byte { return []byte(fmt.Sprintf("record %02d %s\n", i, strings.Repeat("x", 28))) } // 40 bytes
	for i := 0; i < 10; i++ {
		if _, err := r.Write(line(i)); err != nil {
			t.Fatal(err)
		}
	}
	// 40-byte records, 100-byte limit: two per file. Records 8 and 9 are
	// current, 6 and 7 in .1, 4 and 5 in .2; older ones were dropped.
	want := map[string]string{
		"hark.log":   string(line(8)) + string(line(9)),
		"hark.log.1": string(line(6)) + string(line(7)),
		"hark.log.2": string(line(4)) + string(line(5)),
	}
	for name, w := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != w {
			t.Errorf("%s = %q, want %q", name, got, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "hark.log.3")); !os.IsNotExist(err) {
		t.Errorf("hark.log.3 exists beyond keep=2: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600 (logs are private)", fi.Mode().Perm())
	}
}

func TestRotationEdges(t *testing.T) {
	t.Parallel()
	t.Run("a record larger than the limit still lands whole", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r, err := OpenRotating(filepath.Join(dir, "a.log"), 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		big := strings.Repeat("y", 50)
		for i := 0; i < 2; i++ {
			if _, err := r.Write([]byte(big)); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range []string{"a.log", "a.log.1"} {
			if got, _ := os.ReadFile(filepath.Join(dir, n)); string(got) != big {
				t.Errorf("%s = %q, want one whole record", n, got)
			}
		}
	})
	t.Run("keep zero truncates", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r, err := OpenRotating(filepath.Join(dir, "b.log"), 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Write([]byte("12345678")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Write([]byte("abcdefgh")); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("%d files, want 1", len(entries))
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "b.log")); string(got) != "abcdefgh" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("reopening counts the existing size", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		p := filepath.Join(dir, "c.log")
		if err := os.WriteFile(p, []byte("123456789"), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := OpenRotating(p, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Write([]byte("ab")); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p + ".1"); string(got) != "123456789" {
			t.Errorf(".1 = %q, want the old contents", got)
		}
	})
	t.Run("write after close fails", func(t *testing.T) {
		t.Parallel()
		r, err := OpenRotating(filepath.Join(t.TempDir(), "d.log"), 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if _, err := r.Write([]byte("x")); err == nil {
			t.Error("want an error")
		}
	})
}

func TestSetupWritesLevelledRedactedRecords(t *testing.T) {
	t.Parallel()
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprint("verbose=", verbose), func(t *testing.T) {
			t.Parallel()
			p := settings.Paths{Logs: filepath.Join(t.TempDir(), "logs")}
			log, closer, err := Setup(p, verbose)
			if err != nil {
				t.Fatal(err)
			}
			log.Debug("debug detail")
			log.Info("started", "ollama_token", "hunter2-secret")
			if err := closer.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(File(p))
			if err != nil {
				t.Fatal(err)
			}
			s := string(data)
			if strings.Contains(s, "debug detail") != verbose {
				t.Errorf("debug record present=%v, want %v:\n%s", !verbose, verbose, s)
			}
			if !strings.Contains(s, "msg=started") || strings.Contains(s, "hunter2") {
				t.Errorf("want the info record with its secret redacted:\n%s", s)
			}
		})
	}
}

func TestSetupUnwritableFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := Setup(settings.Paths{Logs: filepath.Join(blocker, "logs")}, false)
	if err == nil || !strings.Contains(err.Error(), "writable") {
		t.Errorf("error %v, want one that says what to check", err)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

func TestRedact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		attr     slog.Attr
		want     string // substring of the record
		mustLose string // must not appear
	}{
		{"secret key", slog.String("apiKey", "abc123"), "apiKey=[redacted]", "abc123"},
		{"snake key", slog.String("api_key", "abc123"), "api_key=[redacted]", "abc123"},
		{"password key", slog.String("password", "pw"), "password=[redacted]", "=pw"},
		{"authorization header", slog.String("Authorization", "Basic Zm9vOmJhcg=="), "Authorization=[redacted]", "Zm9v"},
		{"token count stays", slog.Int("eval_tokens", 42), "eval_tokens=42", ""},
		{"author stays", slog.String("author", "ann"), "author=ann", ""},
		{"command output omitted", slog.String("output", "total 0\nsecret.txt"), `output="[18 bytes omitted]"`, "secret.txt"},
		{"stderr omitted", slog.Any("stderr", []byte("oops")), `stderr="[4 bytes omitted]"`, "oops"},
		{"env assignment in a command", slog.String("command", "GITHUB_TOKEN=ghp_abc curl x"), "GITHUB_TOKEN=[redacted]", "ghp_abc"},
		{"quoted assignment", slog.String("command", `export DB_PASSWORD="s e c"`), "DB_PASSWORD=[redacted]", "s e c"},
		{"query parameter", slog.String("url", "http://h/x?token=zzz&a=1"), "token=[redacted]&a=1", "zzz"},
		{"bearer in an error", slog.Any("err", errors.New("401 with Bearer eyJhbGciOiJI.abc.def")), "Bearer [redacted]", "eyJhbG"},
		{"github token shape", slog.String("note", "use ghp_0123456789abcdefghijABCDEFGHIJ now"), "use [redacted] now", "ghp_0123"},
		{"openai key shape", slog.String("note", "sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA"), "[redacted]", "sk-proj"},
		{"aws key id", slog.String("note", "AKIAABCDEFGHIJKLMNOP"), "[redacted]", "AKIAABCD"},
		{"url password", slog.String("remote", "https://me:s3cr3t@example.com/repo"), "https://me:[redacted]@example.com", "s3cr3t"},
		{"stringer", slog.Any("v", stringer("PASSWORD=x1")), "PASSWORD=[redacted]", "x1"},
		{"plain text untouched", slog.String("command", "ls -la ~/Downloads"), `command="ls -la ~/Downloads"`, ""},
		{"group members", slog.Group("ollama", slog.String("host", "127.0.0.1"), slog.String("token", "t0k")), "ollama.token=[redacted]", "t0k"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			slog.New(NewHandler(&buf, slog.LevelInfo)).Info("m", c.attr)
			got := buf.String()
			if !strings.Contains(got, c.want) {
				t.Errorf("record %q lacks %q", got, c.want)
			}
			if c.mustLose != "" && strings.Contains(got, c.mustLose) {
				t.Errorf("record %q still contains %q", got, c.mustLose)
			}
		})
	}
}

func TestSecretKeyWords(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"token": true, "accessToken": true, "x-auth-token": true, "apiKey": true, "API_KEY": true,
		"SessionID": true, "privateKey": true, "tokens": false, "promptTokens": false, "keyboard": false,
		"monkey": false, "passage": false, "host": false, "model": false,
	}
	for k, want := range cases {
		if got := secretKey(k); got != want {
			t.Errorf("secretKey(%q) = %v, want %v (words %q)", k, got, want, splitWords(k))
		}
	}
}
