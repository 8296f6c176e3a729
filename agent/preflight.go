package agent

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// MinVersion is the oldest Ollama Hark works with, for every model
// family, and MinVersionWhy says why. Hark sends truncate:false so that an
// overflow is refused instead of silently cutting the system prompt and
// the tools; the field exists only from v0.12.6 (ollama commit 6544e1473,
// #12582), and an older server ignores it. And v0.12.4 refused any think
// value, false included, for a model that cannot think (#12533, fixed in
// v0.12.5), so every request to llama3.1 or qwen2.5 failed there.
const (
	MinVersion    = "0.12.6"
	MinVersionWhy = "before 0.12.6 Ollama ignores truncate:false and silently cuts the instructions off a long conversation, and 0.12.4 refuses every request to a model that cannot think"
)

// VersionUnknown says a version tells nothing about age: a source build
// of Ollama reports 0.0.0 (version/version.go), and a server may report
// something unparsable or nothing. Hark uses such a server (refusing a
// developer's own build would help nobody) and says it cannot tell.
// A pre-release counts as its release ("0.12.6-rc0" is 0.12.6): the
// truncate field was in 0.12.6's first release candidate.
func VersionUnknown(v string) bool {
	p, ok := parseVersion(v)
	return !ok || slices.Equal(p, []int{0, 0, 0})
}

// VersionTooOld says v is a known version older than MinVersion.
func VersionTooOld(v string) bool { return !VersionUnknown(v) && versionLess(v, MinVersion) }

// UpdateOllama is how to get a newer Ollama.
const UpdateOllama = "update Ollama: download it again from https://ollama.com/download (on Linux, `curl -fsSL https://ollama.com/install.sh | sh`), then restart it"

// tooOldError refuses an Ollama older than MinVersion, with the version
// found and where to update, in one sentence a notification shows whole:
// the reasons cut the way to fix it off. TooOldWhy has them.
func tooOldError(host, version string) *Error {
	return &Error{Kind: ErrOllamaTooOld, Host: host, msg: fmt.Sprintf(
		"Ollama %s is too old for Hark (needs %s). Update it: https://ollama.com/download",
		strings.TrimSpace(version), MinVersion)}
}

// TooOld is the error a request to Ollama version at host gets when the
// version is older than MinVersion.
func TooOld(host, version string) error { return tooOldError(host, version) }

// TooOldWhy is the rest of tooOldError, for where there is room to read
// it (Problems…, hark doctor): which Ollama, why the floor, how to update.
func TooOldWhy(host string) string {
	return fmt.Sprintf("The Ollama at %s is older than %s: %s. To %s.", host, MinVersion, MinVersionWhy, UpdateOllama)
}

// Check is Preflight with warnings: problems that do not stop a request but
// make it worse — an Ollama whose version says nothing, a model whose own
// context is shorter than contextLength, a model that only thinks, a cloud
// model the user allowed. A model served from another machine is an error
// unless allowCloud (the allowCloudModels setting) says the user accepts
// that, and so is an Ollama older than MinVersion (ErrOllamaTooOld).
func Check(ctx context.Context, c Checker, host, modelName string, contextLength int, allowCloud bool) (warnings []string, _ error) {
	version, err := c.Version(ctx)
	if err != nil {
		return nil, classify(ctx, err, host, modelName)
	}
	show, err := showModel(ctx, c, host, modelName)
	if err != nil {
		return nil, err
	}
	if remote := RemoteHost(modelName, show); remote != "" {
		if !allowCloud {
			return nil, cloudError(host, modelName, remote)
		}
		warnings = append(warnings, fmt.Sprintf("model %q runs on %s, not this machine: what you say and every command's output go there (allowCloudModels is on)", modelName, remote))
	}
	if VersionTooOld(version) {
		return nil, tooOldError(host, version)
	}
	if VersionUnknown(version) {
		warnings = append(warnings, fmt.Sprintf("Ollama reports version %q, so Hark cannot tell whether it is %s or later (a source build says 0.0.0); if long conversations lose their start, %s", version, MinVersion, UpdateOllama))
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

// CloudHost is where Ollama sends a model whose tag names the cloud.
const CloudHost = "ollama.com"

// IsCloudName says whether a model name's tag sends it to ollama.com:
// "cloud" or anything ending in "-cloud" (gpt-oss:120b-cloud). Since
// v0.33 such a name needs no local stub (internal/modelref).
func IsCloudName(name string) bool {
	_, tag, ok := strings.Cut(name, ":")
	return ok && (tag == "cloud" || strings.HasSuffix(tag, "-cloud"))
}

// RemoteHost is the host that serves modelName when that is not the
// Ollama Hark talks to: show's remote_host (a cloud stub, which Ollama
// forwards every chat to), or ollama.com for a cloud tag. "" for a local
// model; show may be nil.
func RemoteHost(modelName string, show *api.ShowResponse) string {
	if show != nil && show.RemoteHost != "" {
		if u, err := url.Parse(show.RemoteHost); err == nil && u.Hostname() != "" {
			return u.Hostname()
		}
		return show.RemoteHost
	}
	if IsCloudName(modelName) {
		return CloudHost
	}
	return ""
}

func cloudError(host, modelName, remote string) *Error {
	return &Error{Kind: ErrCloudModel, Host: host, Model: modelName, msg: fmt.Sprintf(
		"model %q is not on this machine: Ollama would send what you say and every command's output to %s; pick a local model (ollamaModel in settings, `ollama list`), or set \"allowCloudModels\": true in settings if you accept that",
		modelName, remote)}
}

// serverCloudError refuses an OpenAI-compatible server on another
// machine, with the same promise as for Ollama's cloud models.
func serverCloudError(name, host, modelName, remote string) *Error {
	return &Error{Kind: ErrCloudModel, Host: host, Model: modelName, msg: fmt.Sprintf(
		"%s at %s is not on this machine: Hark would send what you say and every command's output to %s; point openaiBaseURL at a server on this machine (127.0.0.1), or set \"allowCloudModels\": true in settings if you accept that",
		name, host, remote)}
}

// Preflight finds the common problems before a request is sent, with the
// same errors Run would return: Ollama not running, the model not pulled,
// the model unable to call tools.
func Preflight(ctx context.Context, c Checker, host, modelName string, allowCloud bool) error {
	_, err := Check(ctx, c, host, modelName, 0, allowCloud)
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
	s, _, _ = strings.Cut(s, "+")
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
