package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
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
// caller's context is what stops it.
func NewOllamaClient(host *url.URL) *api.Client {
	return api.NewClient(host, &http.Client{})
}

// Checker is the part of *api.Client that Preflight uses.
type Checker interface {
	Version(ctx context.Context) (string, error)
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
	List(ctx context.Context) (*api.ListResponse, error)
}

// Preflight finds the common problems before a request is sent, with the
// same errors Run would return: Ollama not running, the model not pulled,
// the model unable to call tools.
func Preflight(ctx context.Context, c Checker, host, modelName string) error {
	if _, err := c.Version(ctx); err != nil {
		return classify(ctx, err, host, modelName)
	}
	show, err := c.Show(ctx, &api.ShowRequest{Model: modelName})
	if err != nil {
		e := classify(ctx, err, host, modelName)
		if errors.Is(e, ErrModelNotFound) {
			if list, lerr := c.List(ctx); lerr == nil && len(list.Models) > 0 {
				names := make([]string, 0, len(list.Models))
				for _, m := range list.Models {
					names = append(names, m.Name)
				}
				e.msg += " (installed: " + strings.Join(names, ", ") + ")"
			}
		}
		return e
	}
	// Older servers report no capabilities; only a list without "tools"
	// proves the model cannot call them.
	if len(show.Capabilities) > 0 && !slices.Contains(show.Capabilities, model.CapabilityTools) {
		return classify(ctx, api.StatusError{StatusCode: 400, ErrorMessage: fmt.Sprintf("%s does not support tools", modelName)}, host, modelName)
	}
	return nil
}
