package openai

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DiscoverTimeout bounds each port's answer in `hark doctor`: a server on
// loopback answers /v1/models at once, and a closed port refuses at once.
const DiscoverTimeout = 800 * time.Millisecond

// ProbeLocal is the "Local runtimes" line of `hark doctor`: which
// OpenAI-compatible servers answer on this machine's usual ports, and the
// settings lines that switch Hark to each. Finding none is no problem:
// Ollama is the default.
func ProbeLocal(ctx context.Context, ports []Port) (string, error) {
	found := Discover(ctx, nil, ports, DiscoverTimeout)
	if len(found) == 0 {
		var ps []string
		for _, p := range ports {
			ps = append(ps, fmt.Sprintf("%d (%s)", p.Port, p.Kind))
		}
		return "none answering on " + strings.Join(ps, ", "), nil
	}
	var lines []string
	for _, f := range found {
		what := fmt.Sprintf("%s at %s", f.Kind, f.BaseURL)
		switch {
		case f.NeedsKey:
			what += " (wants an API key)"
		case len(f.Models) > 0:
			what += " serving " + strings.Join(f.Models, ", ")
		}
		lines = append(lines, what+"; to use it, put in settings.json: "+f.SettingsLines())
	}
	return strings.Join(lines, " · "), nil
}
