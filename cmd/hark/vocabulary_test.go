package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/app/settings"
)

// With the shipped settings' words and an ordinary home, the vocabulary
// still names the repository's branches and the programs the user
// installed: the settings' words do not crowd them out.
func TestMachineVocabularyWithDefaultSettings(t *testing.T) {
	root := t.TempDir()
	home, brew, repo := filepath.Join(root, "home"), filepath.Join(root, "homebrew", "bin"), filepath.Join(root, "home", "src", "app")
	for _, d := range []string{"Applications", "Desktop", "Documents", "Downloads", "Library", "Movies", "Music", "Pictures", "Public", "Sites", "go", "Projects", "Dropbox", "src"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	heads := filepath.Join(repo, ".git", "refs", "heads")
	if err := os.MkdirAll(heads, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(heads, fmt.Sprintf("feature-%d", i)), []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(brew, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"kubectl", "jq", "rg"} {
		if err := os.WriteFile(filepath.Join(brew, p), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", brew+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	t.Chdir(repo)
	words := settings.Defaults().InitialPrompt
	v := machineVocabulary(words)
	t.Logf("%d bytes: %s", len(v), v)
	if !strings.HasPrefix(v, strings.TrimSuffix(words, ".")) {
		t.Errorf("the settings' words do not come first")
	}
	for _, w := range []string{"feature-", "kubectl", "Applications"} {
		if !strings.Contains(v, w) {
			t.Errorf("the vocabulary lacks %q", w)
		}
	}
}
