//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestOllamaBelowTheFloor: an Ollama that reports 0.12.5 (no truncate
// field: it would cut a long conversation silently) is refused — the menu
// says it is too old, a request is not sent to it, and hark doctor names
// the version and how to update.
func TestOllamaBelowTheFloor(t *testing.T) {
	d := newDesktop(t, true, true)
	d.ollama.SetVersion("0.12.5")
	h := startHark(t, d)
	h.menu.WaitFor(t, 30*time.Second, "⚠ Ollama is too old")
	out, _ := h.send(true, "say hello")
	if strings.Contains(out, "hello from the fake model") || !strings.Contains(out, "Ollama 0.12.5") || !strings.Contains(out, "ollama.com/download") {
		t.Errorf("hark send --wait to an Ollama 0.12.5: %q; want a refusal with the version and how to update", out)
	}
	doc, _ := h.run("doctor")
	if !strings.Contains(doc, "0.12.5") || !strings.Contains(doc, "older than 0.12.6") || !strings.Contains(doc, "ollama.com/download") {
		t.Errorf("hark doctor:\n%s", doc)
	}
	h.quit()
}
