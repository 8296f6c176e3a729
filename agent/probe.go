package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
)

// ProbeClient is the part of Ollama's client the probes use; *api.Client
// has it.
type ProbeClient interface {
	Version(ctx context.Context) (string, error)
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

// ProbeServer is Ollama's line in `hark doctor`: the server answers at host,
// and which version it is. goos picks the fix (how Ollama is started there).
func ProbeServer(ctx context.Context, c ProbeClient, host, goos string) (string, error) {
	v, err := c.Version(ctx)
	if err != nil {
		return "", serverDown(host, goos, err)
	}
	return fmt.Sprintf("version %s at %s", v, host), nil
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

// ProbeModel is the model's line in `hark doctor`: it is pulled and can
// call tools, which Hark's one tool needs.
func ProbeModel(ctx context.Context, c ProbeClient, host, model, goos string) (string, error) {
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
