package shell

import "testing"

// Without a sandbox for safe-tier commands, git and its like ask; the
// default policy keeps them safe.
func TestNewPolicyFor(t *testing.T) {
	t.Parallel()
	if v := NewPolicy().Classify("git status"); v.Tier != Safe {
		t.Fatalf("default policy: git status is %s: %v", v.Tier, v.Reasons)
	}
	if v := NewPolicyFor(SandboxOff).Classify("git status"); v.Tier != Confirm {
		t.Errorf("sandbox off: git status is %s, want confirm", v.Tier)
	}
	available, _ := SandboxStatus()
	want := Safe
	if !available {
		want = Confirm
	}
	for _, mode := range []SandboxMode{SandboxAuto, SandboxReadOnly} {
		if v := NewPolicyFor(mode).Classify("git status"); v.Tier != want {
			t.Errorf("mode %s with sandbox available=%v: git status is %s, want %s", mode, available, v.Tier, want)
		}
	}
	if v := NewPolicyFor(SandboxOff).Classify("ls -la"); v.Tier != Safe {
		t.Errorf("sandbox off: ls -la is %s, want safe", v.Tier)
	}
}
