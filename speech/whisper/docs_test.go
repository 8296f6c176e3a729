package whisper

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInstallDocsOneLinePerDistribution: docs/install.md has a line for
// each way of getting whisper.cpp on Linux that make finds (the layouts in
// testdata/distributions), says what `make run` does where there is no
// package, and names the release the Makefile pins.
func TestInstallDocsOneLinePerDistribution(t *testing.T) {
	t.Parallel()
	root := makeRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^WHISPER_RELEASE\s*\?=\s*(\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile pins no WHISPER_RELEASE")
	}
	release := string(m[1])
	doc, err := os.ReadFile(filepath.Join(root, "docs/install.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(string(doc), "\n") {
		if cells := strings.Split(l, "|"); len(cells) == 4 {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	for name, says := range map[string]string{
		"Debian sid, Ubuntu 26.04":       "apt-get install libwhisper-dev",
		"Debian 12 and 13, Ubuntu 24.04": "make whisper",
		"Fedora":                         "dnf install whisper-cpp-devel",
		"Arch":                           "pacman -S whisper",
		"Nix":                            "nixpkgs#whisper-cpp",
		"Homebrew on Linux":              "brew install whisper.cpp",
		"Your own build":                 "~/.local",
	} {
		row, ok := rows[name]
		if !ok {
			t.Errorf("docs/install.md has no line for %s", name)
			continue
		}
		if !strings.Contains(row, says) {
			t.Errorf("the %s line %q does not say %q", name, row, says)
		}
		if name != "Homebrew on Linux" && strings.Contains(row, "brew") {
			t.Errorf("the %s line names brew: %q", name, row)
		}
	}
	for _, s := range []string{"~/.local/share/hark/whisper.cpp-" + release, "(" + release + ", its commit checked)",
		"cmake, a C++ compiler and git", "WHISPER_GIT=", "without voice input"} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("docs/install.md does not say %q", s)
		}
	}
}
