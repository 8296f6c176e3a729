package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// minVersions is the Ollama version from which tool calls of each model
// family arrive parsed while streaming, with the source. Before v0.8.0
// (the incremental, template-driven tool parser: release notes of v0.8.0,
// ollama.com/blog/streaming-tool) a streamed call came back as text; the
// built-in qwen3 parser and the thinking field that Hark relies on for the
// qwen3 family are the ones read in v0.17.4, the version Hark pins.
var minVersions = []struct {
	family, version, source string
}{
	{"qwen3", "0.17.4", "built-in qwen3 parser and thinking field as read in ollama v0.17.4 (model/parsers/qwen3.go)"},
	{"qwen2", "0.8.0", "template tool parser, ollama v0.8.0 release"},
	{"llama", "0.8.0", "template tool parser, ollama v0.8.0 release"},
	{"mistral", "0.8.0", "template tool parser, ollama v0.8.0 release"},
}

// Check is Preflight with warnings: problems that do not stop a request but
// make it worse — an Ollama older than the version that parses this
// family's tool calls reliably, a model whose own context is shorter than
// contextLength, a model that only thinks.
func Check(ctx context.Context, c Checker, host, modelName string, contextLength int) (warnings []string, _ error) {
	version, err := c.Version(ctx)
	if err != nil {
		return nil, classify(ctx, err, host, modelName)
	}
	show, err := showModel(ctx, c, host, modelName)
	if err != nil {
		return nil, err
	}
	family := show.Details.Family
	for _, mv := range minVersions {
		if (family == mv.family || slices.Contains(show.Details.Families, mv.family)) && versionLess(version, mv.version) {
			warnings = append(warnings, fmt.Sprintf("Ollama %s is older than %s, the first version that parses %s tool calls reliably (%s); update Ollama", version, mv.version, mv.family, mv.source))
			break
		}
	}
	if contextLength <= 0 {
		contextLength = DefaultContextLength
	}
	if max := modelContextLength(show); max > 0 && max < contextLength {
		warnings = append(warnings, fmt.Sprintf("model %q handles at most %d tokens of context, less than contextLength %d; set contextLength to %d or less", modelName, max, contextLength, max))
	}
	if thinksOnly(modelName, show) {
		warnings = append(warnings, fmt.Sprintf("model %q always thinks before it answers (think:false does not stop it, ollama#12022), which makes every request slower; %s calls tools without thinking", modelName, DefaultModel))
	}
	return warnings, nil
}

// Preflight finds the common problems before a request is sent, with the
// same errors Run would return: Ollama not running, the model not pulled,
// the model unable to call tools.
func Preflight(ctx context.Context, c Checker, host, modelName string) error {
	_, err := Check(ctx, c, host, modelName, 0)
	return err
}

func showModel(ctx context.Context, c Checker, host, modelName string) (*api.ShowResponse, error) {
	show, err := c.Show(ctx, &api.ShowRequest{Model: modelName})
	if err != nil {
		e := classify(ctx, err, host, modelName)
		if e.Kind == ErrModelNotFound {
			if list, lerr := c.List(ctx); lerr == nil && len(list.Models) > 0 {
				names := make([]string, 0, len(list.Models))
				for _, m := range list.Models {
					names = append(names, m.Name)
				}
				e.msg += " (installed: " + strings.Join(names, ", ") + ")"
			}
		}
		return nil, e
	}
	// Older servers report no capabilities; only a list without "tools"
	// proves the model cannot call them.
	if len(show.Capabilities) > 0 && !slices.Contains(show.Capabilities, model.CapabilityTools) {
		return nil, classify(ctx, api.StatusError{StatusCode: 400, ErrorMessage: fmt.Sprintf("%s does not support tools", modelName)}, host, modelName)
	}
	return show, nil
}

// modelContextLength reads "<architecture>.context_length" from model_info.
func modelContextLength(show *api.ShowResponse) int {
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if f, ok := v.(float64); ok {
				return int(f)
			}
		}
	}
	return 0
}

// thinksOnly spots a thinking model without a non-thinking mode: a qwen3
// build that is neither an instruct variant nor one whose template honours
// think:false.
func thinksOnly(name string, show *api.ShowResponse) bool {
	if !slices.Contains(show.Capabilities, model.CapabilityThinking) {
		return false
	}
	if strings.Contains(show.Modelfile, "qwen3-thinking") || strings.Contains(strings.ToLower(name), "thinking") {
		return true
	}
	// The qwen3:4b tag and its quantisations point at the 2507 thinking
	// build (ollama#12022, #12438); instruct tags do not think.
	return show.Details.Family == "qwen3" && !strings.Contains(strings.ToLower(name), "instruct")
}

// versionLess compares dotted versions ("0.17.4", "0.9.1-rc0"); an
// unparsable version is never called old.
func versionLess(a, b string) bool {
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	if !oka || !okb {
		return false
	}
	return slices.Compare(pa, pb) < 0
}

func parseVersion(s string) ([]int, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	out := make([]int, 3)
	if len(parts) == 0 || len(parts) > 3 {
		return nil, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
