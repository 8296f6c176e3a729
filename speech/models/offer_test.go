package models

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The menu's offer: the model the setting names first, then others that
// can hear the language, each saying what it costs.
func TestOffers(t *testing.T) {
	t.Parallel()
	names := func(ms []Model) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name, setting, language, want string
	}{
		{"the default", "base.en", "en", "base.en small.en tiny.en base"},
		{"no language set", "base.en", "", "base.en small.en tiny.en base"},
		{"a larger model set", "medium.en", "en", "medium.en base.en small.en tiny.en"},
		{"another language", "base", "de", "base small tiny"},
		{"an English-only setting for another language", "base.en", "fr", "base small tiny"},
		{"a path, not a name", "/models/mine.bin", "en", "base.en small.en tiny.en base"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(Offers(tc.setting, tc.language, Catalog)); got != tc.want {
				t.Errorf("Offers(%q, %q) = %s, want %s", tc.setting, tc.language, got, tc.want)
			}
		})
	}
}

func TestAbout(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"base.en":        "English only, fits any laptop",
		"base":           "multilingual, fits any laptop",
		"tiny.en-q5_1":   "English only, fits any laptop, least accurate",
		"small.en":       "English only, fits most laptops, 1 GB of memory",
		"medium":         "multilingual, 2 GB of memory, a fast laptop",
		"large-v3-turbo": "multilingual, 4 GB of memory, Apple silicon or a GPU",
		"silero-v5":      "optional: keeps music and typing away from whisper",
	} {
		m, err := Lookup(All(), name)
		if err != nil {
			t.Fatal(err)
		}
		if got := About(m); got != want {
			t.Errorf("About(%s) = %q, want %q", name, got, want)
		}
	}
}

// A download whose host stalls reports how far it got before the stall,
// however soon after the start that was: a menu shows it, and a person
// deciding whether to cancel sees where it stands.
func TestProgressWhereTheHostStalls(t *testing.T) {
	t.Parallel()
	data, m := fakeModel("stall.test", 400_000)
	half := len(data) / 2
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data[:half])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write(data[half:])
	}))
	t.Cleanup(srv.Close)
	var once sync.Once
	goOn := func() { once.Do(func() { close(release) }) }
	t.Cleanup(goOn) // before srv.Close, which waits for the handler
	seen := make(chan Progress, 1024)
	d := &Downloader{BaseURL: srv.URL, Dir: t.TempDir(), Catalog: []Model{m}, Progress: func(p Progress) { seen <- p }}
	done := make(chan error, 1)
	go func() { _, err := d.Download(context.Background(), m.Name); done <- err }()
	timeout := time.After(time.Minute)
	for got := false; !got; {
		select {
		case p := <-seen:
			got = p.Done == int64(half)
		case err := <-done:
			t.Fatalf("the download ended (%v) before the host went on", err)
		case <-timeout:
			t.Fatal("no progress at the point where the host stalled")
		}
	}
	goOn()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
