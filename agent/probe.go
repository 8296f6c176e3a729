package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent/internal/loopback"
	"github.com/hark-sh/hark/shell"
)

// ProbeClient is the part of Ollama's client the probes use; *api.Client
// has it.
type ProbeClient interface {
	Version(ctx context.Context) (string, error)
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

// ProbeServer is Ollama's line in `hark doctor`: the server answers at host,
// which version it is and whether that is new enough, and whether host is
// this machine (when it is not, every request goes there). goos picks the
// fix (how Ollama is started there).
func ProbeServer(ctx context.Context, c ProbeClient, host, goos string) (string, error) {
	v, err := c.Version(ctx)
	if err != nil {
		return "", serverDown(host, goos, err)
	}
	where := ""
	if h := hostName(host); h != "" && !loopback.Is(h) {
		where = fmt.Sprintf("; %s is not this machine: requests go to %s, with what you say and every command's output", h, h)
	}
	switch {
	case VersionTooOld(v):
		return "", &shell.ProbeError{Problem: fmt.Sprintf("Ollama %s at %s is older than %s: %s%s", v, host, MinVersion, MinVersionWhy, where),
			Next: UpdateOllama}
	case where != "":
		return "", &shell.ProbeError{Problem: fmt.Sprintf("version %s at %s%s%s", v, host, versionNote(v), where),
			Next: "set \"ollamaHost\" (or OLLAMA_HOST) to 127.0.0.1:11434 to keep everything on this machine", Minor: true}
	}
	return fmt.Sprintf("version %s at %s%s", v, host, versionNote(v)), nil
}

// versionNote says why the version matters, and when it tells nothing.
func versionNote(v string) string {
	if VersionUnknown(v) {
		return fmt.Sprintf(" (unknown: a source build, so Hark cannot tell whether it is %s or later)", MinVersion)
	}
	// Why older ones fail is said only to someone who has one.
	return fmt.Sprintf(" (new enough: %s or later)", MinVersion)
}

// hostName is the host part of an Ollama address.
func hostName(host string) string {
	if u, err := url.Parse(host); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

func serverDown(host, goos string, err error) error {
	start := "start it with `ollama serve` (or `systemctl start ollama`); install it from https://ollama.com/download if missing"
	if goos == "darwin" {
		start = "open the Ollama app or run `ollama serve`; install it with `brew install ollama` if missing"
	}
	detail := fmt.Sprintf("not answering at %s", host)
	if errors.Is(err, context.DeadlineExceeded) {
		detail += " (no answer in time)"
	} else {
		detail += " (" + shortError(err) + ")"
	}
	return &shell.ProbeError{Problem: detail, Next: start + "; set \"ollamaHost\" or OLLAMA_HOST if it runs elsewhere"}
}

// shortError drops the URL the HTTP client repeats in every error.
func shortError(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}

// ProbeModel is the model's line in `hark doctor`: it is pulled, it can
// call tools, which Hark's one tool needs, and it runs on this machine
// (a cloud model is a problem unless allowCloud, and named even then).
func ProbeModel(ctx context.Context, c ProbeClient, host, model, goos string, allowCloud bool) (string, error) {
	if remote := RemoteHost(model, nil); remote != "" {
		return cloudProbe(model, remote, allowCloud)
	}
	show, err := c.Show(ctx, &api.ShowRequest{Model: model})
	var status api.StatusError
	switch {
	case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
		return "", &shell.ProbeError{Problem: fmt.Sprintf("%s is not pulled", model), Next: fmt.Sprintf("ollama pull %s", model)}
	case err != nil && ctx.Err() != nil:
		return "", &shell.ProbeError{Problem: fmt.Sprintf("Ollama at %s did not answer in time about %s", host, model),
			Next: "Ollama is hanging: restart it (quit and reopen the app, or stop and rerun `ollama serve`)"}
	case err != nil:
		if _, verr := c.Version(ctx); verr != nil {
			return "", &shell.ProbeError{Problem: fmt.Sprintf("cannot check %s until Ollama answers at %s", model, host),
				Next: fmt.Sprintf("start Ollama (see the line above), then `ollama pull %s` if it is not pulled yet", model)}
		}
		return "", &shell.ProbeError{Problem: fmt.Sprintf("cannot read %s: %s", model, shortError(err)), Next: fmt.Sprintf("ollama pull %s", model)}
	}
	if remote := RemoteHost(model, show); remote != "" {
		return cloudProbe(model, remote, allowCloud)
	}
	if len(show.Capabilities) == 0 {
		return "", &shell.ProbeError{Problem: fmt.Sprintf("%s is pulled, but this Ollama does not report capabilities", model),
			Next: "update Ollama so Hark can confirm the model supports tools", Minor: true}
	}
	caps := make([]string, len(show.Capabilities))
	for i, c := range show.Capabilities {
		caps[i] = string(c)
	}
	if !slices.Contains(caps, "tools") {
		return "", &shell.ProbeError{Problem: fmt.Sprintf("%s cannot call tools (it offers: %s)", model, strings.Join(caps, ", ")),
			Next: fmt.Sprintf("set \"ollamaModel\" to a tool-capable model such as %s, then `ollama pull %s`", DefaultModel, DefaultModel)}
	}
	return fmt.Sprintf("%s is pulled and supports tools", model), nil
}

func cloudProbe(model, remote string, allowCloud bool) (string, error) {
	what := fmt.Sprintf("%s is served by %s, not this machine: using it sends what you say and every command's output to %s", model, remote, remote)
	if allowCloud {
		return "", &shell.ProbeError{Problem: what + " (allowCloudModels is on)", Next: "set \"ollamaModel\" to a local model to keep everything here", Minor: true}
	}
	return "", &shell.ProbeError{Problem: what + "; Hark refuses it",
		Next: fmt.Sprintf("set \"ollamaModel\" to a local model such as %s (`ollama pull %s`), or set \"allowCloudModels\": true if you accept that", DefaultModel, DefaultModel)}
}
