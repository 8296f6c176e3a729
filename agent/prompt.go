package agent

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/template"
	"time"

	"github.com/hark-sh/hark/assets"
)

// Facts are the machine details the system prompt tells the model, so that
// it picks commands that exist here (BSD or GNU flags, zsh or bash).
type Facts struct {
	OS        string // "macOS" or "Linux"
	OSVersion string // e.g. "15.3" or "Debian GNU/Linux 12 (bookworm)"
	MacOS     bool
	Shell     string // the shell commands run in
	Home      string
	Date      string        // e.g. "Monday 30 November 2026"
	Timeout   time.Duration // per command
	OutputCap int           // bytes of stdout and of stderr the model gets back
}

// OutputCapText is OutputCap for people and models ("4 KiB").
func (f Facts) OutputCapText() string {
	if f.OutputCap%1024 == 0 {
		return fmt.Sprintf("%d KiB", f.OutputCap/1024)
	}
	return fmt.Sprintf("%d bytes", f.OutputCap)
}

// MachineFacts gathers Facts for this machine. It never fails: a detail that
// cannot be found is left out rather than blocking a request.
func MachineFacts(home string, now time.Time) Facts {
	f := Facts{Home: home, Date: now.Format(dateLayout), Shell: commandShell()}
	switch runtime.GOOS {
	case "darwin":
		f.OS, f.MacOS = "macOS", true
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "/usr/bin/sw_vers", "-productVersion").Output(); err == nil {
			f.OSVersion = strings.TrimSpace(string(out))
		}
	case "linux":
		f.OS = "Linux"
		if data, err := os.ReadFile("/etc/os-release"); err == nil {
			f.OSVersion = prettyName(data)
		}
	default:
		f.OS = runtime.GOOS
	}
	return f
}

// prettyName reads PRETTY_NAME from an os-release file.
func prettyName(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "PRETTY_NAME" {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// commandShell names the shell the runner uses, by the same rule: zsh on
// macOS; on Linux $SHELL when it is bash or zsh, else bash.
func commandShell() string {
	if runtime.GOOS == "darwin" {
		return "zsh"
	}
	switch b := filepath.Base(os.Getenv("SHELL")); b {
	case "bash", "zsh":
		return b
	}
	return "bash"
}

const dateLayout = "Monday 2 January 2006"

var promptTemplate = template.Must(template.New("system").Option("missingkey=error").Parse(assets.SystemPrompt))

// RenderSystemPrompt fills the embedded system prompt with f.
func RenderSystemPrompt(f Facts) (string, error) {
	var b strings.Builder
	if err := promptTemplate.Execute(&b, f); err != nil {
		return "", fmt.Errorf("agent: system prompt template: %w", err)
	}
	return strings.TrimSpace(b.String()), nil
}
