package shell

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
)

// The classifier lives in package policy; these names keep callers of
// package shell compiling.
type (
	// Tier is the policy's verdict on a command.
	Tier = policy.Tier
	// Reason explains one offending part of a command.
	Reason = policy.Reason
	// Verdict is the policy's classification of a whole command line.
	Verdict = policy.Verdict
	// Policy classifies commands; see policy.Policy.
	Policy = policy.Policy
	// PolicyOptions configures a Policy; see policy.Options.
	PolicyOptions = policy.Options
	// Category says what kind of harm a Reason is about (policy.Delete,
	// policy.Network …).
	Category = policy.Category
)

// The tiers.
const (
	Safe      = policy.Safe
	Confirm   = policy.Confirm
	Forbidden = policy.Forbidden
)

// NewPolicy returns the default policy, which assumes safe-tier commands
// run inside the sandbox.
func NewPolicy() *Policy { return policy.New(policy.Options{}) }

// NewPolicyWith returns a policy configured by o.
func NewPolicyWith(o PolicyOptions) *Policy { return policy.New(o) }

// NewPolicyFor returns the policy for commands run with the given sandbox
// mode on this machine: when safe-tier commands would run unconfined
// (SandboxOff, or no sandbox on this OS), the classifier must hold on its
// own, so programs that run code from their configuration ask
// (PolicyOptions.NoSandbox).
func NewPolicyFor(mode SandboxMode) *Policy {
	available, _ := SandboxStatus()
	home, _ := os.UserHomeDir()
	return NewPolicyWith(PolicyOptions{
		NoSandbox:    mode == SandboxOff || !available,
		Seatbelt:     runtime.GOOS == "darwin",
		RepoPrograms: repoPrograms(home),
		Home:         home,
		Homes:        userHomes("/etc/passwd", home),
		Resolve:      resolveLinks,
	})
}

// resolveLinks is the path p reaches on this machine once its links are
// followed, as the kernel walks it; p itself when that cannot be told.
func resolveLinks(p string) string {
	if r, why := (plan.Env{}).Resolve("/", p); why == "" && r != "" {
		return r
	}
	return p
}

// userHomes are the home folders the user database names (real users'
// ones: those outside the system's own folders), besides home.
func userHomes(passwd, home string) []string {
	b, err := os.ReadFile(passwd)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) < 7 || strings.HasPrefix(line, "#") {
			continue
		}
		h := filepath.Clean(f[5])
		switch {
		case !filepath.IsAbs(h), h == "/", h == filepath.Clean(home), h == "/nonexistent", h == "/var/empty":
			continue
		case strings.HasPrefix(h, "/bin"), strings.HasPrefix(h, "/usr"), strings.HasPrefix(h, "/dev"), strings.HasPrefix(h, "/proc"), strings.HasPrefix(h, "/sys"), strings.HasPrefix(h, "/run"):
			continue // a service's folder, protected as a system root or not a home at all
		}
		out = append(out, h)
	}
	return out
}
