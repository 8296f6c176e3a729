package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/exectest"
	"github.com/hark-sh/hark/shell/policy"
)

// secretMarks are what the private files of secretHome, readFamilyHome
// and makePrivateEntries hold: none may show in what another program is
// given.
var secretMarks = []string{"BEGIN OPENSSH PRIVATE KEY", "aws_secret_access_key", "sk-fake", "TOKEN=fake", "entry-secret", "NOTES-OUTSIDE"}

// readHome lays out a home for the read tests: the private files, a note
// outside any project, git's settings, a program of the user's own on
// PATH, and the families' links and lists.
func readHome(t *testing.T) (home, project, linkedProject string, cases []secretCase) {
	t.Helper()
	home, project, list, parentLink, linkedProject := readFamilyHome(t)
	makePrivateEntries(t, home, "entry-secret")
	for name, body := range map[string]string{
		"Documents/notes.txt": "NOTES-OUTSIDE\n",
		".gitconfig":          "[user]\n\tname = Tester Person\n",
	} {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(home, ".local/bin"), 0o755)
	exectest.WriteProgram(t, filepath.Join(home, ".local/bin/hello-tool"), []byte("#!/bin/sh\necho hi from the tool\n"), 0o755)
	link := filepath.Join(t.TempDir(), "innocent")
	os.Symlink(filepath.Join(home, ".ssh"), link)
	cases = append(cases, secretReads(home, project, link)...)
	for _, c := range readFamilies(home, project, list, parentLink, linkedProject) {
		// The kernel reads no spelling: of the generated ones, the
		// absolute path, the quoted one and the one after a cd are enough.
		if n := c.name[max(len(c.name)-3, 0):]; n == " #b" || n == " #c" || n == " #d" {
			continue
		}
		cases = append(cases, c)
	}
	cases = append(cases, redTeamReads(home, project)...)
	// Every credential file and every entry of the private list, read by
	// name: one line each, so that one run tries them all.
	all := "cat"
	for _, rel := range credentialFiles {
		all += " ~/'" + rel + "'"
	}
	cases = append(cases, secretCase{"every credential file", all, project})
	all = "cat"
	for _, e := range privateHome {
		rel, _ := filepath.Rel(home, privateEntryFile(home, e))
		all += " ~/'" + rel + "'"
	}
	cases = append(cases, secretCase{"every private entry", all, home}, secretCase{"every private entry from a project", all, project})
	// The rest of home: no private place, but outside the folder.
	for _, c := range []string{
		"cat ../../Documents/notes.txt", "grep -r NOTES ~", "f=$(cat list); cat \"${f%/.ssh/id_rsa}/Documents/notes.txt\"",
		"cd && cat Documents/notes.txt", "find ~ -type f -exec cat {} +", "tar -cf - ~ | strings",
	} {
		cases = append(cases, secretCase{"outside: " + c, c, project})
	}
	return home, project, linkedProject, cases
}

func requireSandbox(t *testing.T) {
	t.Helper()
	if ok, detail := shell.SandboxStatus(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run the sandbox tests, but this kernel offers no Landlock: " + detail)
		}
		t.Skip("this kernel has no Landlock, so there is no sandbox to test: " + detail)
	}
}

func realRunner(home string) *recordingRunner {
	return &recordingRunner{Runner: shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/bash",
		Environ: []string{"PATH=" + filepath.Join(home, ".local/bin") + ":" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})}
}

// TestKernelHoldsWhatOtherProgramsRead: every family of reading a private
// file, or a file of home outside the folder the command works in, that
// the red teams found (by name, option, program text, list file, link,
// glob, '..' after a cd into a link, a recursive search), run for another
// program with the real policy, the real sandbox and nobody to say yes:
// nothing private and nothing from outside the folder reaches what the
// program is given. Nothing predicts the reads: a place the command
// names outside its folder is asked about (and refused here), a private
// one is never offered, and everything else is the kernel's.
func TestKernelHoldsWhatOtherProgramsRead(t *testing.T) {
	requireSandbox(t)
	home, _, _, cases := readHome(t)
	t.Setenv("HOME", home)
	exec := realRunner(home)
	h := newHarness(t, nil, func(o *Options) {
		o.Classifier, o.Executor, o.Home = policy.New(policy.Options{}), exec, home
	})
	ran, asked, policyAsks := 0, 0, 0
	for _, c := range cases {
		dir := c.dir
		if dir == "" {
			dir = home
		}
		if v := policy.New(policy.Options{}).ClassifyIn(c.command, dir); v.Tier != policy.Safe {
			policyAsks++ // asked by the policy already: its card is another test's
			continue
		}
		before := len(h.confirmer.asked)
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: handleArgs(c, home), Client: "Claude Desktop", Confirmer: h.confirmer})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.confirmer.asked) > before {
			asked++
			p := h.confirmer.asked[before]
			for _, m := range []string{".ssh", ".aws", ".config/hark", "entry"} {
				for _, r := range p.Reasons {
					if strings.Contains(r.Why, "reads ") && strings.Contains(r.Why, m+"/") {
						t.Errorf("%s: a private place was offered to be read: %s", c.name, r.Why)
					}
				}
			}
		}
		if res.Executed {
			ran++
		}
		for _, m := range secretMarks {
			if strings.Contains(res.Output, m) || strings.Contains(res.Error, m) {
				t.Errorf("%s: %q in %s gave another program %q:\n%s", c.name, c.command, dir, m, res.JSON())
			}
		}
	}
	t.Logf("%d reads: %d ran held by the kernel, %d asked first (and were refused), %d asked by the policy", len(cases), ran, asked, policyAsks)
	if ran < 150 {
		t.Errorf("only %d of the families ran; the kernel was hardly tested", ran)
	}
}

// TestOutputThatLeavesReadsItsFolder: another program's command reads the
// folder it works in, git's settings, the user's own programs and the
// system; the rest of home only after a yes to a card that names it, and
// never with confirmation off. The voice loop's local model reads home
// as it did.
func TestOutputThatLeavesReadsItsFolder(t *testing.T) {
	requireSandbox(t)
	home, project, _, _ := readHome(t)
	t.Setenv("HOME", home)
	t.Setenv("PATH", filepath.Join(home, ".local/bin")+":"+os.Getenv("PATH"))
	handle := func(h *harness, command string, noConfirm bool) shell.Result {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"command": command, "workingDirectory": project, "purpose": "testing"})
		res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: h.confirmer, NoConfirm: noConfirm})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	h := newHarness(t, nil, func(o *Options) {
		o.Classifier, o.Executor, o.Home = everythingSafe{}, realRunner(home), home
	})
	for cmd, want := range map[string]string{
		"cat README.md":                 "hello\n",
		"git config --global user.name": "Tester Person\n",
		"hello-tool":                    "hi from the tool\n",
		"head -1 /etc/passwd":           "root:",
	} {
		if res := handle(h, cmd, false); !strings.HasPrefix(res.Output, want) {
			t.Errorf("%s: got %s, want output %q", cmd, res.JSON(), want)
		}
	}
	if len(h.confirmer.asked) != 0 {
		t.Errorf("reads inside what it may read asked: %v", h.confirmer.askedCommands())
	}

	// Through a word Hark cannot tell: nobody is asked, the kernel refuses.
	indirect := `f=$(cat list); cat "${f%/.ssh/id_rsa}/Documents/notes.txt"`
	if res := handle(h, indirect, false); strings.Contains(res.Output, "NOTES") || !strings.Contains(res.Output+res.Error, "Permission denied") {
		t.Errorf("the note outside the folder was read: %s", res.JSON())
	}
	// Named: the card says so; no, then yes, then confirmation off.
	named := "cat ~/Documents/notes.txt"
	if res := handle(h, named, false); res.Executed || len(h.confirmer.asked) != 1 {
		t.Fatalf("a named read outside the folder was not asked first: %s", res.JSON())
	}
	why := ""
	for _, r := range h.confirmer.asked[0].Reasons {
		why += r.Why
	}
	if !strings.Contains(why, "reads ~/Documents/notes.txt, outside the folder it works in") || !strings.Contains(why, "Claude Desktop") {
		t.Errorf("the card does not name the place and who gets it: %q", why)
	}
	if p := h.confirmer.asked[0]; p.Proposal != nil {
		t.Error("a read outside the folder offers Always allow")
	}
	h.confirmer.decisions = []Decision{{}, {Approved: true, By: ByMenu}}
	if res := handle(h, named, false); res.Output != "NOTES-OUTSIDE\n" {
		t.Errorf("approved, the named note was not read: %s", res.JSON())
	}
	if res := handle(h, named, true); strings.Contains(res.Output, "NOTES") {
		t.Errorf("with confirmation off the named note was read: %s", res.JSON())
	}

	// The voice loop's local model: its output stays here.
	v := newHarness(t, []reply{tools(call("command", indirect, "purpose", "testing", "workingDirectory", project)), text("done")}, func(o *Options) {
		o.Classifier, o.Executor, o.Home = everythingSafe{}, realRunner(home), home
	})
	if _, err := v.agent.Run(context.Background(), NewConversation(), "read my note"); err != nil {
		t.Fatal(err)
	}
	if ran := v.exec.ran; len(ran) != 0 {
		t.Fatalf("the fake executor ran: %v", ran)
	}
	if res := v.agent.o.Executor.(*recordingRunner).res; len(res) != 1 || res[0].Output != "NOTES-OUTSIDE\n" {
		t.Errorf("the voice loop could not read the user's note: %+v", res)
	}
}
