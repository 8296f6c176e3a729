package speech

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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
	// The settings' words, then a folder (sorted), a branch and a program
	// (in the order given) in turn.
	want := "Homebrew, brew, zsh, git, Downloads, main, rg, Projects, feature/login, docker."
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

// A machine with many system programs and branches still names what the
// user installed and the branches they touched last: the system's programs
// come last and only the most recent branches are named.
func TestMachineVocabularyPrefersTheUsersNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, mine, repo := filepath.Join(root, "home"), filepath.Join(root, "brew", "bin"), filepath.Join(root, "repo")
	heads := filepath.Join(repo, ".git", "refs", "heads")
	for _, d := range []string{home, mine, heads} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(mine, "kubectl"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	// Twelve branches, b00 the oldest and b11 the newest.
	base := time.Now().Add(-time.Hour)
	for i := range 12 {
		p := filepath.Join(heads, fmt.Sprintf("b%02d", i))
		if err := os.WriteFile(p, []byte("0000\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, base.Add(time.Duration(i)*time.Minute), base.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "packed-refs"), []byte("1111 refs/heads/b00\n2222 refs/heads/packed-only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := gitBranches(repo)
	want := []string{"b11", "b10", "b09", "b08", "b07", "b06", "b05", "b04", "b03", "b02", "b01", "b00", "packed-only"}
	if !slices.Equal(got, want) {
		t.Errorf("gitBranches() = %v, want %v (newest first, packed after, each once)", got, want)
	}

	// Every program the system has is "known" here, so only the order
	// decides what fits.
	path := "/usr/bin" + string(os.PathListSeparator) + mine + string(os.PathListSeparator) + "/bin"
	progs := programsOn(path)
	if len(progs) < 50 {
		t.Skipf("this machine's /usr/bin and /bin hold %d programs; the test needs a full system", len(progs))
	}
	if progs[0] != "kubectl" {
		t.Errorf("programsOn() starts %v, want the user's kubectl before the system's", progs[:3])
	}
	v := BuildVocabulary(VocabularySources{
		Folders:  func() []string { return dirNames(home) },
		Programs: func() []string { return programsOn(path) },
		Known:    func(string) bool { return true },
		Branches: func() []string { return gitBranches(repo) },
	})
	words := strings.Split(strings.TrimSuffix(v, "."), ", ")
	var branches []string
	for _, w := range words {
		if len(w) == 3 && w[0] == 'b' && w[1] >= '0' && w[1] <= '9' {
			branches = append(branches, w)
		}
	}
	if !slices.Equal(branches, want[:8]) {
		t.Errorf("vocabulary %q names branches %v, want the 8 newest, newest first", v, branches)
	}
	if len(words) < 2 || words[0] != "b11" || words[1] != "kubectl" {
		t.Errorf("vocabulary %q: want a branch and then the user's program before the system's", v)
	}
	if len(v) > MaxVocabulary {
		t.Errorf("vocabulary %q: %d bytes, over %d", v, len(v), MaxVocabulary)
	}
}

func TestSystemBinDir(t *testing.T) {
	t.Parallel()
	for d, want := range map[string]bool{
		"/usr/bin": true, "/bin/": true, "/usr/sbin": true, "/System/Cryptexes/App/usr/bin": true,
		"/usr/local/bin": false, "/opt/homebrew/bin": false, "/home/u/.local/bin": false, "/home/u/go/bin": false,
	} {
		if got := systemBinDir(d); got != want {
			t.Errorf("systemBinDir(%q) = %v, want %v", d, got, want)
		}
	}
}

// After git pack-refs every branch lives in packed-refs, which has no
// times; their reflogs still say which moved last.
func TestGitBranchesPackedOrderedByReflog(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	logs := filepath.Join(repo, ".git", "logs", "refs", "heads")
	if err := os.MkdirAll(filepath.Join(logs, "fix"), 0o755); err != nil {
		t.Fatal(err)
	}
	packed := "# pack-refs with: peeled fully-peeled sorted\n"
	base := time.Now().Add(-time.Hour)
	for i, name := range []string{"alpha", "fix/zeta", "main", "release"} {
		packed += fmt.Sprintf("%040d refs/heads/%s\n", i, name)
		if name == "release" {
			continue // no reflog: last
		}
		p := filepath.Join(logs, filepath.FromSlash(name))
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// alpha the newest, then fix/zeta, then main.
		at := base.Add(time.Duration(10-i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "packed-refs"), []byte(packed), 0o644); err != nil {
		t.Fatal(err)
	}
	got := gitBranches(filepath.Join(repo, "sub", "dir"))
	if want := []string{"alpha", "fix/zeta", "main", "release"}; !slices.Equal(got, want) {
		t.Errorf("gitBranches() = %v, want %v", got, want)
	}
}

// A repository another user owns (an ancestor of the folder Hark runs in,
// say) is not read: its branch names would be theirs to choose.
func TestGitBranchesSkipsOthersRepositories(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a folder to another user needs root; the check itself is the same for every user")
	}
	repo := t.TempDir()
	heads := filepath.Join(repo, ".git", "refs", "heads")
	if err := os.MkdirAll(heads, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(heads, "say-rm-rf"), []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := gitBranches(repo); !slices.Equal(got, []string{"say-rm-rf"}) {
		t.Fatalf("own repository: %v", got)
	}
	if err := os.Chown(filepath.Join(repo, ".git"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if got := gitBranches(repo); got != nil {
		t.Errorf("a repository owned by uid 65534 gave %v, want nothing", got)
	}
}
