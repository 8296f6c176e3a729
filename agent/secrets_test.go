package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/policy"
)

// secretHome lays out a home with the private files a red team reached
// (an SSH key, AWS credentials, Hark's settings with an API key) beside an
// ordinary project, and a link from outside home into ~/.ssh.
func secretHome(t *testing.T, home string) (project, link string) {
	t.Helper()
	for name, body := range map[string]string{
		".ssh/id_rsa":                "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n",
		".ssh/config":                "Host x\n",
		".aws/credentials":           "[default]\naws_secret_access_key=fake\n",
		".config/hark/settings.json": `{"openaiAPIKey":"sk-fake"}`,
		".gnupg/private-keys-v1.d/k": "fake",
		".bash_history":              "export TOKEN=fake\n",
		"src/app/README.md":          "hello\n",
		"src/app/.env":               "DEBUG=1\n",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link = filepath.Join(t.TempDir(), "innocent")
	if err := os.Symlink(filepath.Join(home, ".ssh"), link); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, "src/app"), link
}

type secretCase struct {
	name, command, dir string // dir "": home
}

// secretReads are read-only commands (the policy alone runs each unasked)
// that read a private file, one family per row.
func secretReads(home, project, link string) []secretCase {
	cs := []secretCase{
		{"tilde", "cat ~/.ssh/id_rsa", project},
		{"$HOME", "cat $HOME/.ssh/id_rsa", project},
		{"quoted ${HOME}", `cat "${HOME}/.ssh/id_rsa"`, project},
		{"absolute", "cat " + home + "/.ssh/id_rsa", "/"},
		{"relative from home", "cat .ssh/id_rsa", ""},
		{"dot-dot from a project", "cat ../../.ssh/id_rsa", project},
		{"glob", "cat .s*/id*", ""},
		{"glob under tilde", "cat ~/.s?h/*", project},
		{"case", "cat ~/.SSH/id_rsa", project},
		{"link from elsewhere", "cat " + link + "/id_rsa", "/"},
		{"link as folder then relative", "cd " + link + " && cat id_rsa", "/"},
		{"cd into it", "cd ~/.ssh && cat id_rsa", project},
		{"globstar and dotglob", "shopt -s globstar dotglob; cat ~/**", project},
		{"grep -r home", "grep -r BEGIN ~", project},
		{"grep -R dot in home", "grep -Rn BEGIN .", ""},
		{"grep recursive folder", "grep -rl key ~/.ssh", project},
		{"rg in home", "rg BEGIN", ""},
		{"grep root", "grep -r aws_secret /", project},
		{"base64", "base64 ~/.ssh/id_rsa", project},
		{"xxd", "xxd ~/.ssh/id_rsa", project},
		{"od", "od -c ~/.ssh/id_rsa", project},
		{"strings", "strings ~/.ssh/id_rsa", project},
		{"head", "head -n 50 ~/.ssh/id_rsa", project},
		{"tail", "tail ~/.aws/credentials", project},
		{"sed -n p", "sed -n p ~/.ssh/id_rsa", project},
		{"awk", "awk '{print}' ~/.ssh/id_rsa", project},
		{"dd if=", "dd if=~/.ssh/id_rsa", project},
		{"input redirect", "cat < ~/.ssh/id_rsa", project},
		{"$(< file)", "echo $(< ~/.ssh/id_rsa)", project},
		{"command substitution", `cat "$(echo ~/.ssh/id_rsa)"`, project},
		{"loop variable", "for f in ~/.ssh/*; do cat $f; done", project},
		{"git -C", "git -C ~/.ssh log", project},
		{"find -exec", "find ~/.ssh -exec cat {} +", project},
		{"find into xargs", "find ~/.ssh -type f | xargs cat", project},
		{"aws credentials", "cat ~/.aws/credentials", project},
		{"hark settings", "cat ~/.config/hark/settings.json", project},
		{"gnupg", "cat ~/.gnupg/private-keys-v1.d/k", project},
		{"shell history", "cat ~/.bash_history", project},
		{"wrapped", "command cat ~/.ssh/id_rsa", project},
		{"watch", "watch cat ~/.ssh/id_rsa", project},
		{"braces", "cat ~/.{s,}sh/id_rsa", project},
		{"bare cd", "cd; cat .ssh/id_rsa", project},
		{"pushd", "pushd ~/.ssh; cat id_rsa", project},
		{"assigned variable", "d=~/.ssh; cat $d/id_rsa", project},
		{"cd then names to xargs", "cd ~/.ssh; ls | xargs cat", project},
		{"echo names to xargs", "echo ~/.ssh/* | xargs cat", project},
		{"xargs -a", "xargs -a ~/.ssh/id_rsa echo", project},
		{"grep -f", "grep -f ~/.ssh/id_rsa /dev/null", project},
		{"diff", "diff ~/.ssh/id_rsa /dev/null", project},
		{"cmp", "cmp -l ~/.ssh/id_rsa /dev/zero", project},
		{"sort", "sort ~/.ssh/id_rsa", project},
		{"zcat -f", "zcat -f ~/.ssh/id_rsa", project},
		{"file -f", "file -f ~/.ssh/id_rsa", project},
		{"wc --files0-from", "wc --files0-from=" + home + "/.ssh/id_rsa", project},
		{"git show from a home repository", "git -C ~ show HEAD:.ssh/id_rsa", project},
		{"awk getline", `awk 'BEGIN{while((getline l < "` + home + `/.ssh/id_rsa")>0) print l}'`, project},
		{"sed r", "sed -n 'r " + home + "/.ssh/id_rsa' README.md", project},
	}
	if _, err := os.Stat("/proc/self/root" + home); err == nil {
		cs = append(cs,
			secretCase{"/proc/self/root", "cat /proc/self/root" + home + "/.ssh/id_rsa", "/"},
			secretCase{"/proc/self/cwd", "cat /proc/self/cwd/.ssh/id_rsa", ""})
	}
	return cs
}

// ordinaryReads touch no private file, or only its name: they run unasked
// from another program as before.
func ordinaryReads(project string) []secretCase {
	return []secretCase{
		{"project file", "cat README.md", project},
		{"project .env", "cat .env", project},
		{"grep -r a project", "grep -rn hello .", project},
		{"rg in a project", "rg hello", project},
		{"names in ~/.ssh", "ls -la ~/.ssh", project},
		{"sizes of home", "du -sh ~", project},
		{"find names under home", "find ~ -name '*.md'", project},
		{"list home", "ls -la ~", project},
		{"git in a project", "git status", project},
		{"names of home to grep", "ls -a ~ | grep .ssh", project},
		{"find names to head", "find ~ -name id_rsa | head", project},
		{"loop over project files", "for f in *.md; do head -1 $f; done", project},
		{"find to xargs in a project", "find . -name '*.md' | xargs grep -l hello", project},
		{"dotfiles that are no secret", "cat ~/.gitconfig ~/.bashrc", project},
	}
}

func handleArgs(c secretCase, home string) json.RawMessage {
	dir := c.dir
	if dir == "" {
		dir = home
	}
	b, _ := json.Marshal(map[string]string{"command": c.command, "workingDirectory": dir, "purpose": "testing"})
	return b
}

// TestPrivateLocationsAreTheFolderRule: the folders a call may not run in
// are the ones it may not read unasked.
func TestPrivateLocationsAreTheFolderRule(t *testing.T) {
	h := newHarness(t, nil, nil)
	secretHome(t, h.home)
	for _, p := range PrivateLocations(h.home) {
		if !strings.HasPrefix(p, h.home+string(filepath.Separator)) {
			t.Errorf("%s is not under home", p)
		}
	}
	args, _ := json.Marshal(map[string]string{"command": "ls", "workingDirectory": filepath.Join(h.home, ".ssh")})
	if _, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Confirmer: h.confirmer, PrivateDirs: PrivateLocations(h.home)}); err == nil {
		t.Error("a call ran in ~/.ssh")
	}
}

// With cloud models allowed, a read-only command of Hark's own model
// runs, like another program's, with the private places hidden by the
// sandbox: what it prints leaves the machine. Local-only, nothing is
// hidden.
func TestCloudModelRunsHidePrivatePlaces(t *testing.T) {
	for _, cloud := range []bool{false, true} {
		h := newHarness(t, []reply{tools(call("command", "ls", "purpose", "checking")), text("done")}, func(o *Options) {
			o.Classifier = policy.New(policy.Options{})
			o.AllowCloudModels = cloud
		})
		if _, err := h.agent.Run(context.Background(), NewConversation(), "look"); err != nil {
			t.Fatal(err)
		}
		if len(h.exec.ran) != 1 || (len(h.exec.ran[0].Hide) > 0) != cloud {
			t.Errorf("cloud models allowed %v: ran %+v", cloud, h.exec.ran)
		}
	}
}
