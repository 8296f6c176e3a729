package policy_test

import (
	"fmt"

	"github.com/hark-sh/hark/shell/policy"
)

// Each command gets a tier; anything that is not safe says why, part by part.
func ExamplePolicy_Classify() {
	p := policy.New(policy.Options{})
	for _, cmd := range []string{
		"ls -la | grep go",
		"rm -rf build",
		"sudo reboot",
	} {
		v := p.Classify(cmd)
		fmt.Printf("%s: %s\n", cmd, v.Tier)
		for _, r := range v.Reasons {
			fmt.Printf("  %s (%s)\n", r.Why, r.Category)
		}
	}
	// Output:
	// ls -la | grep go: safe
	// rm -rf build: confirm
	//   rm: deletes files (delete)
	// sudo reboot: forbidden
	//   sudo: privilege escalation is never run (privilege)
	//   sudo reboot: shutting down or restarting the machine is never run (system)
}
