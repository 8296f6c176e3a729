package main

import (
	"context"
	"strings"
	"testing"
)

// A locally signed Hark cannot carry the Time Sensitive entitlement, so a
// Focus holds its approval banners back: doctor says so on macOS, with
// what to do, and nowhere else.
func TestDoctorSaysFocusHidesApprovalsOnMac(t *testing.T) {
	t.Parallel()
	for _, goos := range []string{"linux", "freebsd", "windows"} {
		if cs := focusChecks(goos); len(cs) != 0 {
			t.Errorf("%s: %d Focus lines, want none", goos, len(cs))
		}
	}
	cs := focusChecks("darwin")
	if len(cs) != 1 {
		t.Fatalf("darwin: %d Focus lines, want one", len(cs))
	}
	r := cs[0].Run(context.Background())
	for _, want := range []string{"Focus", "entitlement", "menu-bar icon"} {
		if !strings.Contains(r.Detail+" "+r.Fix, want) {
			t.Errorf("darwin Focus line %q / %q does not mention %q", r.Detail, r.Fix, want)
		}
	}
	if r.Fix == "" || cs[0].Required {
		t.Errorf("the Focus line must say what to do (fix %q) and not fail doctor (required %v)", r.Fix, cs[0].Required)
	}
}
