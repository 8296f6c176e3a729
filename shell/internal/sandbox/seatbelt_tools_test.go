package sandbox

import (
	"strings"
	"testing"
)

// seatbeltTools are the common read-only tools the Mac check runs inside
// the profile, each with the system services it reaches (none: it needs
// only what the profile already allows, file reads, sysctl and I/O Kit
// properties). The Mac check (docs/macos.md) has a step for each.
var seatbeltTools = map[string][]string{
	"ps":              nil, // setuid, starts outside the sandbox
	"top -l 1":        nil, // setuid, starts outside the sandbox
	"pgrep":           {"com.apple.sysmond"},
	"pkill":           {"com.apple.sysmond"},
	"df":              nil, // getfsstat
	"du":              nil, // file metadata
	"git status":      nil, // its index refresh is best effort and skipped when it cannot write
	"system_profiler": nil, // I/O Kit properties
}

// Every service a listed tool needs is allowed, by a global-name rule
// under mach-lookup, and listed with its reason; nothing else is opened.
func TestSeatbeltLetsReadOnlyToolsReachTheirServices(t *testing.T) {
	t.Parallel()
	for tool, services := range seatbeltTools {
		for _, s := range services {
			if !strings.Contains(seatbeltProfile, "(global-name \""+s+"\")") {
				t.Errorf("%s needs %s, which the profile does not allow", tool, s)
			}
			why, ok := seatbeltMachServices[s]
			if !ok || !strings.Contains(why, strings.Fields(tool)[0]) {
				t.Errorf("%s: service %s is not listed with it as the reason (%q)", tool, s, why)
			}
		}
	}
	if errs := checkSeatbeltProfile(seatbeltProfile); len(errs) != 0 {
		t.Errorf("profile breaks its rules: %v", errs)
	}
}
