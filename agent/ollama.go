package agent

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/internal/loopback"
)

// DefaultHost is where Ollama listens unless told otherwise.
const DefaultHost = "127.0.0.1:11434"

// ResolveHost picks Ollama's address: OLLAMA_HOST when set (the environment
// wins, as in Ollama's own tools), else the ollamaHost setting, else
// DefaultHost. Forms accepted: "host", "host:port", "scheme://host:port/path".
func ResolveHost(setting string) *url.URL {
	if env := strings.TrimSpace(os.Getenv("OLLAMA_HOST")); env != "" {
		return parseHost(env)
	}
	if s := strings.TrimSpace(setting); s != "" {
		return parseHost(s)
	}
	return parseHost(DefaultHost)
}

func parseHost(s string) *url.URL {
	scheme, rest, ok := strings.Cut(s, "://")
	port := "11434"
	switch {
	case !ok:
		scheme, rest = "http", s
	case scheme == "https":
		port = "443"
	case scheme == "http":
		port = "80"
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host, p = strings.Trim(hostport, "[]"), port
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		// A server bound to every interface is reached on loopback.
		host = "127.0.0.1"
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, p)}
	if path != "" {
		u.Path = "/" + path
	}
	return u
}

// NewOllamaClient returns a client for host. Its HTTP client has no overall
// timeout on purpose: a slow model may take minutes for a reply, and the
// caller's context is what stops it. A host on this machine by its name is
// only ever reached on loopback, never through a proxy.
func NewOllamaClient(host *url.URL) *OllamaClient {
	hc := &http.Client{}
	if loopback.Is(host.Hostname()) {
		hc.Transport = loopback.Transport()
	}
	return &OllamaClient{Client: api.NewClient(host, hc), base: host, http: hc}
}

// Checker is the part of *api.Client that Preflight uses.
type Checker interface {
	Version(ctx context.Context) (string, error)
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
	List(ctx context.Context) (*api.ListResponse, error)
}
