package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/policy"
)

// serviceExamples are read-only invocations of each service reader.
var serviceExamples = map[string]string{
	"mdfind":     `mdfind 'kMDItemTextContent == "password*"'`,
	"mdls":       "mdls -name kMDItemWhereFroms notes.txt",
	"log":        "log show --last 1h",
	"defaults":   "defaults read com.example.app",
	"journalctl": "journalctl -n 50",
	"pbpaste":    "pbpaste",
	"docker":     "docker inspect web",
	"podman":     "podman inspect web",
	"systemctl":  "systemctl status ssh",
}

// serviceSpellings write one invocation many ways: absolute paths,
// wrappers, pipelines, after cd, quoting.
func serviceSpellings(prog, inv string) []string {
	rest := strings.TrimPrefix(inv, prog)
	return []string{
		inv,
		"/usr/bin/" + prog + rest,
		"/bin/" + prog + rest,
		"env " + inv,
		"env -i LANG=C " + inv,
		"nice " + inv,
		"nice -n 5 " + inv,
		"timeout 5 " + inv,
		"command " + inv,
		"exec " + inv,
		"echo x | xargs " + inv,
		inv + " | head -5",
		"ls | " + inv,
		"cd /tmp && " + inv,
		"cd / ; " + inv,
		"'" + prog + "'" + rest,
		`"` + prog + `"` + rest,
		`\` + prog + rest,
		prog[:1] + "''" + prog[1:] + rest,
		"sh -c '" + strings.ReplaceAll(inv, "'", `'\''`) + "'",
		"env nice timeout 5 " + inv,
		"true && " + inv,
		"(" + inv + ")",
		"nohup " + inv,
		"time " + inv,
		"watch -n 1 " + inv,
		"stdbuf -oL " + inv,
		"p=" + prog + "; $p" + rest,
		"find . -maxdepth 0 -exec " + inv + " \\;",
		"bash -c " + `"` + strings.ReplaceAll(inv, `"`, `\"`) + `"`,
		"$(which " + prog + ")" + rest,
		"x=$(" + inv + "); echo \"$x\"",
	}
}

// TestServiceReadersAsk: every spelling of a program that asks a system
// service to read for it is put to the user when another program calls
// it, with the service named in the reason; the same program's harmless
// forms and the voice loop's calls run unasked as before.
func TestServiceReadersAsk(t *testing.T) {
	if len(serviceExamples) != len(serviceReaders) {
		t.Fatalf("serviceExamples has %d programs, serviceReaders %d: add an example", len(serviceExamples), len(serviceReaders))
	}
	h := newHarness(t, nil, func(o *Options) { o.Classifier = policy.New(policy.Options{}) })
	p := policy.New(policy.Options{})
	for prog, inv := range serviceExamples {
		for _, command := range serviceSpellings(prog, inv) {
			t.Run(command, func(t *testing.T) {
				// A program named only at run time is the policy's and the
				// gate's "cannot tell"; every other spelling is seen.
				unknown := strings.HasPrefix(command, "$(which")
				if why := serviceRead(command, h.home, h.home); !unknown && !strings.Contains(why, prog) {
					t.Errorf("%q: serviceRead says %q", command, why)
				}
				if v := p.ClassifyIn(command, h.home); v.Tier != policy.Safe {
					return // the policy asks for it anyway
				}
				args, _ := json.Marshal(map[string]string{"command": command, "workingDirectory": h.home, "purpose": "testing"})
				before := len(h.confirmer.asked)
				res, err := h.agent.Handle(context.Background(), CallRequest{Arguments: args, Client: "Claude Desktop", Confirmer: h.confirmer})
				if err != nil {
					t.Fatal(err)
				}
				if res.Executed || len(h.confirmer.asked) != before+1 {
					t.Fatalf("%q ran unasked for another program: %s", command, res.JSON())
				}
				found := false
				for _, r := range h.confirmer.asked[before].Reasons {
					found = found || strings.Contains(r.Why, serviceReaders[prog].why) || unknown && strings.Contains(r.Why, "cannot tell")
				}
				if !found {
					t.Errorf("the approval of %q does not say why: %+v", command, h.confirmer.asked[before].Reasons)
				}
			})
		}
	}
	for _, command := range []string{"defaults domains", "mdutil -s /", "systemctl list-units", "ls /tmp", "echo mdfind-free", "security list-keychains", "lsof -p 1", "command -v mdfind", "man mdfind", "which journalctl"} {
		if why := serviceRead(command, h.home, h.home); why != "" {
			t.Errorf("%q asks: %s", command, why)
		}
	}
}

// TestVoiceServiceReadsAsBefore: the user's own request (local model)
// runs mdfind unasked, as before.
func TestVoiceServiceReadsAsBefore(t *testing.T) {
	h := newHarness(t, []reply{
		tools(call("command", "mdfind budget", "purpose", "testing")),
		text("done"),
	}, func(o *Options) { o.Classifier = policy.New(policy.Options{}) })
	if _, err := h.agent.Run(context.Background(), NewConversation(), "find my budget"); err != nil {
		t.Fatal(err)
	}
	if len(h.confirmer.asked) != 0 {
		t.Errorf("the voice loop asked: %v", h.confirmer.askedCommands())
	}
	if len(h.exec.ran) != 1 {
		t.Errorf("mdfind did not run for the voice loop: %+v", h.exec.ran)
	}
}
