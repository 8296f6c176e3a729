package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// An Ollama host that is this machine by its name (one under .localhost)
// is never reached through HTTP_PROXY, which would carry what the user
// says to the proxy's host while Hark counts the model as local; Go's
// proxy rules exempt only localhost and loopback addresses. Either the
// name leads to loopback or the request fails; the proxy hears nothing.
func TestOllamaLocalNameBypassesProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"version":"0.12.0"}`))
	}))
	defer srv.Close()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the proxy got %s %s", r.Method, r.URL)
		_, _ = w.Write([]byte(`{"version":"9.9.9"}`))
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, host := range []string{"ollama.localhost", "127.0.0.1"} {
		u, _ := url.Parse("http://" + host + ":" + port)
		v, err := NewOllamaClient(u).Version(context.Background())
		if host == "127.0.0.1" && (err != nil || v != "0.12.0") {
			t.Errorf("%s: version %q, %v; want the local server's", host, v, err)
		}
	}
}
