package loopback

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type fakeResolver map[string][]string

func (f fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []net.IPAddr
	for _, s := range ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	return out, nil
}

// A server judged local by its name may only ever be reached on loopback:
// a name that resolves elsewhere (an /etc/hosts line, a DNS answer for
// something under .localhost) is refused before any byte is sent, and of
// several answers only the loopback ones are dialled, in order.
func TestAddrs(t *testing.T) {
	t.Parallel()
	r := fakeResolver{
		"localhost":          {"::1", "127.0.0.1"},
		"lan.localhost":      {"192.168.1.20"},
		"mixed.localhost":    {"10.0.0.5", "127.0.0.1"},
		"rebound.localhost":  {"203.0.113.9"},
		"v4mapped.localhost": {"::ffff:127.0.0.1"},
	}
	for _, tc := range []struct {
		addr, want, err string
	}{
		{"127.0.0.1:1234", "127.0.0.1:1234", ""},
		{"[::1]:8080", "[::1]:8080", ""},
		{"localhost:1234", "[::1]:1234 127.0.0.1:1234", ""},
		{"mixed.localhost:1234", "127.0.0.1:1234", ""},
		{"v4mapped.localhost:1234", "127.0.0.1:1234", ""},
		{"lan.localhost:1234", "", "192.168.1.20, not this machine"},
		{"rebound.localhost:1337", "", "203.0.113.9"},
		{"192.168.1.20:1234", "", "not this machine"},
		{"nowhere.localhost:1234", "", "no such host"},
	} {
		got, err := Addrs(context.Background(), r, tc.addr)
		switch {
		case tc.err == "" && (err != nil || strings.Join(got, " ") != tc.want):
			t.Errorf("%s: got %q, %v; want %q", tc.addr, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: got %q, %v; want an error with %q", tc.addr, got, err, tc.err)
		}
	}
}

func TestIs(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "::ffff:127.0.0.1": true, "0:0:0:0:0:0:0:1": true,
		"localhost": true, "LOCALHOST": true, "lm.localhost": true,
		// Spellings a resolver may take for loopback are not judged local
		// by name: they then need allowCloudModels, which is the safe side.
		"127.1": false, "0x7f.1": false, "2130706433": false, "localhost.": false, "::1%lo": false,
		"0.0.0.0": false, "192.168.1.20": false, "localhost.evil.com": false, "127.0.0.1.nip.io": false,
	} {
		if got := Is(h); got != want {
			t.Errorf("Is(%q) = %v, want %v", h, got, want)
		}
	}
}

// The transport sends nothing through HTTP_PROXY, which would carry the
// request to the proxy's host, also for a name under .localhost, which
// Go's proxy rules do not exempt.
func TestTransportIgnoresProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("local")) }))
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
	for _, host := range []string{"localhost", "127.0.0.1"} {
		resp, err := (&http.Client{Transport: Transport()}).Get("http://" + host + ":" + port + "/")
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		resp.Body.Close()
	}
}
