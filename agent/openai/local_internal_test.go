package openai

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Which base URLs are this machine decides whether allowCloudModels is
// needed: only loopback addresses and localhost names are.
func TestRemoteHost(t *testing.T) {
	t.Parallel()
	for raw, remote := range map[string]string{
		"http://127.0.0.1:1234/v1":         "",
		"http://127.8.9.10:1234/v1":        "",
		"http://[::1]:8080/v1":             "",
		"http://localhost:1337/v1":         "",
		"http://LOCALHOST:1337/v1":         "",
		"http://lm.localhost:1234/v1":      "",
		"http://192.168.1.20:1234/v1":      "192.168.1.20",
		"http://10.0.0.2:8080/v1":          "10.0.0.2",
		"http://0.0.0.0:1234/v1":           "0.0.0.0",
		"http://[::ffff:10.0.0.2]:1234/v1": "::ffff:10.0.0.2",
		"http://mac-studio.local:1234/v1":  "mac-studio.local",
		"http://localhost.evil.com/v1":     "localhost.evil.com",
		"http://127.0.0.1.nip.io:1234/v1":  "127.0.0.1.nip.io",
		"http://2130706433:1234/v1":        "2130706433",
		"https://api.example.com/v1":       "api.example.com",
	} {
		c, err := New(Options{BaseURL: raw})
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := c.RemoteHost(); got != remote {
			t.Errorf("%s: RemoteHost %q, want %q", raw, got, remote)
		}
		_, guarded := c.hc.Transport.(*http.Transport)
		if guarded != (remote == "") {
			t.Errorf("%s: loopback-only transport %v, want %v", raw, guarded, remote == "")
		}
	}
}

// A local client sends nothing through HTTP_PROXY, which would carry the
// request, and its key, to the proxy's host.
func TestLocalIgnoresProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
	}))
	defer srv.Close()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the proxy got %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	c, err := New(Options{BaseURL: "http://localhost:" + port + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.Models(context.Background())
	if err != nil || len(ids) != 1 {
		t.Fatalf("ids %v err %v", ids, err)
	}
}
