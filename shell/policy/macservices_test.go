package policy

import "testing"

// Read-only programs that talk to a system service the macOS sandbox
// profile closes (backupd, syspolicyd, opendirectoryd, diagnosticd,
// kernelmanagerd, the NVRAM) would only fail inside it, so under Seatbelt
// they ask and run unsandboxed once approved; without Seatbelt, and with
// their writing forms, nothing changes.
func TestSeatbeltAsksForMoreServicePrograms(t *testing.T) {
	t.Parallel()
	mac := New(Options{Seatbelt: true})
	plain := New(Options{})
	for _, cmd := range []string{"tmutil status", "spctl --status", "dscl . -list /Users", "log stream", "log show --last 1m", "kextstat", "nvram -p"} {
		if v := mac.Classify(cmd); v.Tier != Confirm || !hasReasonText(v, "macOS services") {
			t.Errorf("Seatbelt: %s is %s %v, want confirm for macOS services", cmd, v.Tier, v.Reasons)
		}
		if v := plain.Classify(cmd); v.Tier != Safe {
			t.Errorf("without Seatbelt: %s is %s %v, want safe", cmd, v.Tier, v.Reasons)
		}
	}
	// The writing forms still ask for what they change, not only for the
	// services.
	for _, cmd := range []string{"tmutil disable", "dscl . -create /Users/x", "nvram boot-args=-v"} {
		if v := mac.Classify(cmd); v.Tier == Safe {
			t.Errorf("Seatbelt: %s is safe", cmd)
		}
	}
}
