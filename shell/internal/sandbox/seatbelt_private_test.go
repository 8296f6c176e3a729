package sandbox_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/shell/internal/sandbox"
)

var updatePrivate = flag.Bool("update-private", false, "rewrite testdata/seatbelt_private.txt")

// TestSeatbeltHidesEveryPrivateLocation: with every private location on
// disk, the Seatbelt arguments for another program's run carry each as a
// HIDEn parameter, by its real path, with its refusal in the profile. The
// parameters, home written as ~, are checked against a golden copy, so a
// change to the list shows in review as a diff of what macOS hides.
// Refresh it with `go test ./shell/internal/sandbox -run SeatbeltHidesEvery -update-private`.
func TestSeatbeltHidesEveryPrivateLocation(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	private := agent.PrivateLocations(home)
	for _, p := range private {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args := sandbox.SeatbeltArgs("/tmp/run", private, nil)
	if len(args) < 3 || args[1] != "-p" {
		t.Fatalf("no profile in %q", args)
	}
	profile := args[2]
	params := map[string]string{}
	var lines []string
	for i := 3; i+1 < len(args); i += 2 {
		if args[i] != "-D" {
			t.Fatalf("argument %d is %q, not -D", i, args[i])
		}
		k, v, _ := strings.Cut(args[i+1], "=")
		params[v] = k
		if k != "TMPDIR" {
			lines = append(lines, k+"=~"+strings.TrimPrefix(v, home))
		}
	}
	for _, p := range private {
		k, ok := params[p]
		if !ok {
			t.Errorf("%s is not hidden by Seatbelt", p)
			continue
		}
		if !strings.Contains(profile, fmt.Sprintf("(deny file-read* (subpath (param %q)))", k)) {
			t.Errorf("the profile has no refusal of %s (%s)", k, p)
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "seatbelt_private.txt")
	if *updatePrivate {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update-private to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the hidden paths differ from %s; run with -update-private if the change is intended:\n%s", golden, got)
	}
}
