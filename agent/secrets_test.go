package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
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

func secretVerdicts(t *testing.T, home string, cs []secretCase) {
	t.Helper()
	p := policy.New(policy.Options{})
	for _, c := range cs {
		// The gate is only worth testing on what the policy lets run: a
		// row the policy already asks about proves nothing here.
		dir := "~"
		if c.dir == "/" {
			dir = "/"
		} else if c.dir != "" {
			dir = "~" + strings.TrimPrefix(c.dir, home)
		}
		if v := p.ClassifyIn(c.command, dir); v.Tier != policy.Safe {
			t.Errorf("%s: the policy calls %q %s (%v); the row tests nothing", c.name, c.command, v.Tier, v.Reasons)
		}
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

// TestOtherProgramsAskToReadSecrets: a read-only command from another
// program (hark mcp, hark exec) that reads the user's keys, credentials,
// history or Hark's settings is put to the user, with a reason naming
// what it reads, and not run when the user says no; one that reads
// ordinary files or only lists names runs unasked as before.
func TestOtherProgramsAskToReadSecrets(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Classifier = policy.New(policy.Options{}) })
	project, link := secretHome(t, h.home)
	reads, ordinary := secretReads(h.home, project, link), ordinaryReads(project)
	secretVerdicts(t, h.home, append(append([]secretCase{}, reads...), ordinary...))
	for _, c := range reads {
		t.Run(c.name, func(t *testing.T) {
			before := len(h.confirmer.asked)
			res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: handleArgs(c, h.home), Client: "Claude Desktop", Confirmer: h.confirmer})
			if err != nil {
				t.Fatal(err)
			}
			if res.Executed {
				t.Errorf("%q ran unasked", c.command)
			}
			if len(h.confirmer.asked) != before+1 {
				t.Fatalf("%q was not put to the user", c.command)
			}
			p := h.confirmer.asked[before]
			found := false
			for _, r := range p.Reasons {
				if r.Category == policy.Privilege && strings.Contains(r.Why, "Claude Desktop") {
					found = true
					t.Logf("%s: %s", c.command, r.Why)
				}
			}
			if !found {
				t.Errorf("the approval of %q gives no reason naming the private read: %+v", c.command, p.Reasons)
			}
			if p.Proposal != nil {
				t.Errorf("the approval of %q offers Always allow", c.command)
			}
		})
	}
	asked := len(h.confirmer.asked)
	for _, c := range ordinary {
		t.Run(c.name, func(t *testing.T) {
			res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: handleArgs(c, h.home), Client: "Claude Desktop", Confirmer: h.confirmer})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Executed {
				t.Errorf("%q did not run: %s", c.command, res.Error)
			}
			// Unasked, it runs with the private files hidden by the sandbox.
			if ran := h.exec.ran; len(ran) == 0 || !slices.Contains(ran[len(ran)-1].Hide, filepath.Join(h.home, ".ssh")) {
				t.Errorf("%q ran without the private files hidden", c.command)
			}
		})
	}
	if len(h.confirmer.asked) != asked {
		t.Errorf("ordinary reads asked the user: %v", h.confirmer.askedCommands()[asked:])
	}
	for _, e := range h.auditEntries(t) {
		if strings.Contains(e.Command, ".ssh/id_rsa") && e.Executed {
			t.Errorf("the audit log records %q as run", e.Command)
		}
	}
}

// TestSecretReadApprovedRunsReadOnly: a yes runs the read in the
// read-only sandbox still (its tier stays safe), and confirmation off
// (hark exec --yes) runs it as the confirm tier would be, unasked.
func TestSecretReadApprovedRunsReadOnly(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Classifier = policy.New(policy.Options{}) })
	project, _ := secretHome(t, h.home)
	h.confirmer.decisions = []Decision{{Approved: true, By: ByMenu}}
	c := secretCase{"tilde", "cat ~/.ssh/id_rsa", project}
	res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: handleArgs(c, h.home), Confirmer: h.confirmer})
	if err != nil || !res.Executed {
		t.Fatalf("approved: executed %v, err %v", res.Executed, err)
	}
	if got := h.exec.ran[0].Verdict.Tier; got != shell.Safe {
		t.Errorf("the approved read ran as %s, want safe (the read-only sandbox)", got)
	}
	if hide := h.exec.ran[0].Hide; len(hide) != 0 {
		t.Errorf("the approved read runs with what it was approved to read hidden: %v", hide)
	}
	res, err = h.agent.Handle(context.Background(), CallRequest{Arguments: handleArgs(c, h.home), Confirmer: h.confirmer, NoConfirm: true})
	if err != nil || !res.Executed || len(h.confirmer.asked) != 1 {
		t.Fatalf("confirmation off: executed %v, err %v, asked %d", res.Executed, err, len(h.confirmer.asked))
	}
	if hide := h.exec.ran[1].Hide; len(hide) != 0 {
		t.Errorf("with confirmation off the read runs with the private files hidden: %v", hide)
	}
	if es := h.auditEntries(t); es[len(es)-1].Decision != DecisionUnconfirmedRun {
		t.Errorf("confirmation off is audited as %s, want %s", es[len(es)-1].Decision, DecisionUnconfirmedRun)
	}
}

// TestVoiceReadsSecretsAsBefore: the local model's calls stay on the
// machine, so the same reads run unasked there; with cloud models allowed
// the output may leave it, and they ask as from another program.
func TestVoiceReadsSecretsAsBefore(t *testing.T) {
	for _, cloud := range []bool{false, true} {
		home := t.TempDir()
		project, link := secretHome(t, home)
		for _, c := range secretReads(home, project, link) {
			dir := c.dir
			if dir == "" {
				dir = home
			}
			h := newHarness(t, []reply{
				tools(call("command", c.command, "purpose", "testing", "workingDirectory", dir)),
				text("done"),
			}, func(o *Options) {
				o.Classifier = policy.New(policy.Options{})
				o.Home = home
				o.AllowCloudModels = cloud
			})
			if _, err := h.agent.Run(context.Background(), NewConversation(), "read it"); err != nil {
				t.Fatal(err)
			}
			ran := len(h.exec.commands()) == 1
			if asked := len(h.confirmer.asked) == 1; asked != cloud || ran == cloud {
				t.Errorf("cloud models allowed %v: %q asked %v, ran %v", cloud, c.command, asked, ran)
			}
		}
	}
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
	if why := privateReads("cat ~/.ssh/id_rsa", h.home, h.home, PrivateLocations(h.home)); !strings.Contains(why, "SSH keys in ~/.ssh") {
		t.Errorf("privateReads = %q, want it to name the SSH keys in ~/.ssh", why)
	}
}

// BenchmarkSecretGate is the gate's cost on an ordinary read from another
// program, against the policy's classification of the same line in the
// same run: report the ratio, not the times.
func BenchmarkSecretGate(b *testing.B) {
	home := b.TempDir()
	for _, d := range []string{".ssh", "src/app"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	project, private := filepath.Join(home, "src/app"), PrivateLocations(home)
	const line = "grep -rn TODO . | head -20 && cat README.md *.go"
	p := policy.New(policy.Options{})
	b.Run("classify", func(b *testing.B) {
		for b.Loop() {
			p.ClassifyIn(line, "~/src/app")
		}
	})
	b.Run("gate", func(b *testing.B) {
		for b.Loop() {
			privateReads(line, project, home, private)
		}
	})
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
