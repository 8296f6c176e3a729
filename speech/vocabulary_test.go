package speech

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildVocabulary(t *testing.T) {
	t.Parallel()
	known := map[string]bool{"rg": true, "git": true, "docker": true}
	got := BuildVocabulary(VocabularySources{
		Settings: "Homebrew, brew  zsh, git",
		Folders: func() []string {
			return []string{"Projects", ".cache", "Downloads", "x" + strings.Repeat("y", 40), "2024"}
		},
		Programs: func() []string { return []string{"rg", "zzz-unknown", "git", "docker"} },
		Known:    func(p string) bool { return known[p] },
		Branches: func() []string { return []string{"main", "feature/login"} },
	})
	want := "Homebrew, brew, zsh, git, Downloads, Projects, docker, rg, feature/login, main."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if BuildVocabulary(VocabularySources{}) != "" {
		t.Error("no sources should give no prompt")
	}
}

// However many names a machine has, the prompt stays within the cap and
// the settings' own words come first.
func TestBuildVocabularyCapped(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 500 {
		many = append(many, "folder"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26)))
	}
	got := BuildVocabulary(VocabularySources{Settings: "kubectl", Folders: func() []string { return many }})
	if len(got) > MaxVocabulary || !strings.HasPrefix(got, "kubectl, ") || !strings.HasSuffix(got, ".") {
		t.Errorf("%d bytes: %q", len(got), got)
	}
}

// MachineVocabulary reads a real home, PATH and repository.
func TestMachineVocabulary(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, bin, repo := filepath.Join(root, "home"), filepath.Join(root, "bin"), filepath.Join(root, "home", "code")
	for _, d := range []string{filepath.Join(home, "Music"), bin, filepath.Join(repo, ".git", "refs", "heads", "fix"), filepath.Join(repo, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, content := range map[string]string{
		filepath.Join(bin, "jq"):                                    "",
		filepath.Join(bin, "weirdtool"):                             "",
		filepath.Join(repo, ".git", "refs", "heads", "fix", "typo"): "0000\n",
		filepath.Join(repo, ".git", "packed-refs"):                  "# pack-refs\n1111 refs/heads/release-2\n2222 refs/tags/v1\n",
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := MachineVocabulary("brew", home, bin, filepath.Join(repo, "sub"), func(p string) bool { return p == "jq" })
	for _, w := range []string{"brew", "Music", "code", "jq", "fix/typo", "release-2"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	for _, w := range []string{"weirdtool", "v1"} {
		if strings.Contains(got, w) {
			t.Errorf("%q has %q", got, w)
		}
	}
}
