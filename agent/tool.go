package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
)

// toolSchema describes execute_terminal_command. The descriptions are
// written for small models: short, concrete, and saying what to do instead
// of what not to do.
func toolSchema() api.Tool {
	props := api.NewToolPropertiesMap()
	props.Set("command", api.ToolProperty{
		Type:        api.PropertyType{"string"},
		Description: "One shell command line to run, e.g. `du -sh /Users/me/Downloads/* | sort -h | tail -5`. Use absolute paths, never ~. Never use sudo.",
	})
	props.Set("workingDirectory", api.ToolProperty{
		Type:        api.PropertyType{"string"},
		Description: "Absolute path of the folder to run the command in. Leave it out to use the user's home folder.",
	})
	props.Set("purpose", api.ToolProperty{
		Type:        api.PropertyType{"string"},
		Enum:        []any{PurposeChecking, PurposeExecuting, PurposeVerifying},
		Description: "Optional. Why you run it: \"checking\" to look before changing anything, \"executing\" to make the change the user asked for, \"verifying\" to confirm the change worked.",
	})
	return api.Tool{
		Type: "function",
		Function: api.ToolFunction{
			Name:        ToolName,
			Description: "Run one command in a fresh shell with no input and get back JSON with exitCode, output, error and truncated. Read-only commands run at once; commands that change something wait for the user's approval and may be denied.",
			Parameters: api.ToolFunctionParameters{
				Type:       "object",
				Required:   []string{"command"},
				Properties: props,
			},
		},
	}
}

// toolArgs are the validated arguments of one call.
type toolArgs struct {
	Command          string
	WorkingDirectory string // absolute
	Purpose          string
	// Pin holds the folder open from the moment it was checked, so the
	// command runs in the folder the user approved or not at all.
	Pin *shell.DirPin
}

// validateCall checks one tool call and explains any problem in words the
// model can act on.
func validateCall(tc api.ToolCall, home string) (toolArgs, error) {
	if tc.Function.Name != ToolName {
		return toolArgs{}, fmt.Errorf("unknown tool %q: the only tool is %s", tc.Function.Name, ToolName)
	}
	args := tc.Function.Arguments
	var a toolArgs
	cmd, ok := args.Get("command")
	switch s, isString := cmd.(string); {
	case !ok || cmd == nil:
		return a, fmt.Errorf("missing argument \"command\": give the shell command to run as a string")
	case !isString:
		return a, fmt.Errorf("argument \"command\" must be a string, not %s", jsonType(cmd))
	case strings.TrimSpace(s) == "":
		return a, fmt.Errorf("argument \"command\" is empty: give the shell command to run")
	default:
		a.Command = s
	}
	a.WorkingDirectory = home
	if wd, ok := args.Get("workingDirectory"); ok && wd != nil {
		s, isString := wd.(string)
		if !isString {
			return a, fmt.Errorf("argument \"workingDirectory\" must be a string (an absolute folder path), not %s", jsonType(wd))
		}
		if s = strings.TrimSpace(s); s != "" {
			a.WorkingDirectory = resolveDir(s, home)
		}
	}
	// The purpose is only a label for the user: the verdict never depends
	// on it, so a missing or odd one must not void the call (and with it
	// every other call of the reply). Small models capitalise or pad the
	// enum; anything unrecognised becomes the default.
	a.Purpose = PurposeDefault
	if v, _ := args.Get("purpose"); v != nil {
		p, _ := v.(string)
		switch norm := strings.ToLower(strings.TrimSpace(p)); norm {
		case PurposeChecking, PurposeExecuting, PurposeVerifying:
			a.Purpose = norm
		}
	}
	return a, nil
}

// ResolveDir is the folder a command given dir runs in, as Handle reads
// it, so that a tool judging a command without running it (hark check)
// judges the same folder Handle would.
func ResolveDir(dir, home string) string { return resolveDir(dir, home) }

// resolveDir expands ~ and makes a relative folder absolute under home, the
// same way the runner does, so the user approves the folder that is used.
// Symlinks are resolved, so that the policy judges, and the approval
// shows, where the command really runs: a link to home, or /proc/self/cwd
// while Hark sits in home, is home, where `rm -rf *` is refused. A folder
// in home stays written under home as given, even if home is a link.
func resolveDir(dir, home string) string {
	switch {
	case dir == "~":
		return home
	case strings.HasPrefix(dir, "~/"):
		dir = filepath.Join(home, dir[2:])
	case filepath.IsAbs(dir):
		dir = filepath.Clean(dir)
	default:
		dir = filepath.Join(home, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dir // missing: the runner says so
	}
	if home != "" {
		if realHome, err := filepath.EvalSymlinks(home); err == nil {
			if rel, err := filepath.Rel(realHome, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.Join(home, rel)
			}
		}
	}
	return real
}

func jsonType(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64, int, int64, float32:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}
