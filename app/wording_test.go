package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
)

// TestWordsFitWhereTheyAreRead: what Hark writes reads right where it is
// read (walk 6, A-22): a sentence that ends with Settings… has no fourth
// dot; the Problems window, which is what Problems… opens, does not send
// the reader to Problems…; and a row in the Hark menu does not send the
// reader to the Hark menu.
func TestWordsFitWhereTheyAreRead(t *testing.T) {
	t.Parallel()
	a := &App{o: Options{Puller: PullFunc(func(context.Context, string, func(agent.PullProgress)) error { return nil })}, problems: map[string]ProblemInfo{}}
	missing := errors.New(`model "qwen3:8b" is not installed; pull it`)
	for _, text := range []string{a.missingModelText(missing, "qwen3:8b"), (&App{problems: map[string]ProblemInfo{}}).missingModelText(missing, "qwen3:8b")} {
		if strings.Contains(text, "….") {
			t.Errorf("four dots: %q", text)
		}
	}
	a.problems["gpu"] = ProblemInfo{Title: "Model partly on the CPU (45%): answers slower — see Problems…", Detail: "45% of the model is on the CPU."}
	a.problems["ollama"] = ProblemInfo{Title: titleOf(&TitledError{Title: "Ollama is too old — update it (Problems…)", Err: errors.New("old")}), Detail: "old"}
	if r := a.problemReport(); strings.Contains(r, "Problems…") {
		t.Errorf("the Problems window sends the reader to Problems…:\n%s", r)
	}
	if menu := menuText(a.missingModelText(missing, "qwen3:8b")); strings.Contains(menu, "Hark menu") || !strings.Contains(menu, "Download qwen3:8b") {
		t.Errorf("in the menu: %q", menu)
	}
}
