package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hinshun/vt10x"
	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/agent"
	"github.com/hark-sh/hark/agent/ollamatest"
	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/visible"
)

// These tests read Hark's prompts and listings the way a person does: off
// the screen of a terminal emulator that obeys escape sequences, carriage
// returns and backspaces. Comparing bytes would not show what a cursor
// move or an erase did to the lines before it.

// screen is what a terminal shows after out was written to it. The tty
// turns each newline into CR LF (onlcr), so the emulator gets that. The
// terminal is wide and tall enough that nothing Hark prints wraps or
// scrolls away, and trailing blanks are trimmed from each row.
func screen(out string) []string {
	term := vt10x.New(vt10x.WithSize(600, 200))
	term.Write([]byte(strings.ReplaceAll(out, "\n", "\r\n")))
	rows := strings.Split(term.String(), "\n")
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " \x00")
	}
	for len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}

// rowWith is the index of the first row containing s, or -1.
func rowWith(rows []string, s string) int {
	for i, r := range rows {
		if strings.Contains(r, s) {
			return i
		}
	}
	return -1
}

// hiddenFamily is the attack sequences a command, a name or an output
// could carry: each would, printed raw, move, erase or hide what the user
// reads.
var hiddenFamily = []struct{ name, seq string }{
	{"CSI A cursor up", "\x1b[1A"},
	{"CSI B cursor down", "\x1b[5B"},
	{"CSI C cursor forward", "\x1b[40C"},
	{"CSI D cursor back", "\x1b[99D"},
	{"CSI H home", "\x1b[H"},
	{"CSI H position", "\x1b[1;1H"},
	{"CSI f position", "\x1b[2;1f"},
	{"CSI 2J clear screen", "\x1b[2J\x1b[H"},
	{"CSI J erase below", "\x1b[1;1H\x1b[J"},
	{"CSI K erase line", "\r\x1b[K"},
	{"CSI 2K erase line", "\x1b[2K\r"},
	{"CSI r scroll region", "\x1b[1;1r"},
	{"OSC title BEL", "\x1b]0;innocent\x07"},
	{"OSC title ST", "\x1b]0;innocent\x1b\\"},
	{"alternate screen", "\x1b[?1049h"},
	{"carriage return", "\r"},
	{"backspaces", strings.Repeat("\b", 40)},
	{"DEL", "\x7f\x7f"},
	{"C1 NEL and RI", "\u0085\u008d"},
	{"C1 CSI", "\u009b2J\u009bH"},
	{"C1 OSC and ST", "\u009d0;innocent\u009c"},
	{"every C1", func() string {
		var b strings.Builder
		for r := rune(0x80); r <= 0x9f; r++ {
			b.WriteRune(r)
		}
		return b.String()
	}()},
	{"LRE", "\u202a"}, {"RLE", "\u202b"}, {"PDF", "\u202c"}, {"LRO", "\u202d"}, {"RLO", "\u202e"},
	{"LRI", "\u2066"}, {"RLI", "\u2067"}, {"FSI", "\u2068"}, {"PDI", "\u2069"},
	{"ZWSP", "\u200b"}, {"ZWNJ", "\u200c"}, {"ZWJ", "\u200d"}, {"LRM", "\u200e"}, {"RLM", "\u200f"},
	{"word joiner", "\u2060"}, {"BOM", "\ufeff"},
}

// disguised is the red team's command: a deletion followed by a comment
// argument whose hidden characters would paint a harmless command over it.
func disguised(seq string) string {
	return "rm -rf ~/Documents; : '" + seq + "Command: ls -la ~/Documents'"
}

// The emulator obeys the attack when it is printed raw, so the tests below
// would see it if Hark printed a command as it is.
func TestTerminalEmulatorObeysTheAttack(t *testing.T) {
	rows := screen("Command: " + disguised("\x1b[2J\x1b[H") + "\nRun this? [N]o (safe choice) / [y]es ")
	if rowWith(rows, "rm -rf") >= 0 || rowWith(rows, "Command: ls -la ~/Documents") < 0 {
		t.Fatalf("the raw attack did not hide the deletion; screen:\n%s", strings.Join(rows, "\n"))
	}
}

// checkApproval checks a prompt's screen: the whole command is on one row,
// its hidden characters as code points, and the warning comes before the
// question.
func checkApproval(t *testing.T, rows []string, shown, question string) {
	t.Helper()
	cmdRow, warnRow, askRow := rowWith(rows, shown), rowWith(rows, "this command contains hidden characters"), rowWith(rows, question)
	switch {
	case cmdRow < 0:
		t.Errorf("the screen lacks the command %q", shown)
	case warnRow < 0:
		t.Errorf("no hidden-characters warning")
	case askRow < 0:
		t.Errorf("no question %q", question)
	case warnRow > askRow:
		t.Errorf("the warning (row %d) comes after the question (row %d)", warnRow, askRow)
	default:
		return
	}
	t.Logf("screen:\n%s", strings.Join(rows, "\n"))
}

func TestExecPromptShowsHiddenCharacters(t *testing.T) {
	execHome(t)
	t.Setenv("XDG_DATA_HOME", "")
	docs := filepath.Join(os.Getenv("HOME"), "Documents")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "thesis.txt"), []byte("years of work"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range hiddenFamily {
		t.Run(c.name, func(t *testing.T) {
			command := disguised(c.seq)
			var tty bytes.Buffer
			e := &env{stdin: strings.NewReader("n\n"), stdout: &tty, stderr: &tty, isTerminal: true}
			if code := dispatch(context.Background(), e, []string{"exec", "--", command}); code != exitOK {
				t.Fatalf("exit %d\n%s", code, tty.String())
			}
			rows := screen(tty.String())
			checkApproval(t, rows, "Command: "+visible.Text(command), "Run this? [N]o (safe choice) / [y]es")
			if rowWith(rows, `"executed":false`) < 0 {
				t.Errorf("the declined command ran, or no result was printed")
			}
			if _, err := os.Stat(filepath.Join(docs, "thesis.txt")); err != nil {
				t.Fatalf("a declined command touched ~/Documents: %v", err)
			}
		})
	}
}

// A clean command asks without the warning, and a multi-line one cannot
// start a row that passes for Hark's own.
func TestExecPromptWithoutHiddenCharacters(t *testing.T) {
	execHome(t)
	for _, command := range []string{"mkdir -p ~/new", "mkdir -p ~/a\nCommand: ls"} {
		var tty bytes.Buffer
		e := &env{stdin: strings.NewReader("n\n"), stdout: &tty, stderr: &tty, isTerminal: true}
		if code := dispatch(context.Background(), e, []string{"exec", "--", command}); code != exitOK {
			t.Fatalf("exit %d\n%s", code, tty.String())
		}
		rows := screen(tty.String())
		if rowWith(rows, "hidden characters") >= 0 {
			t.Errorf("%q: warned about hidden characters:\n%s", command, strings.Join(rows, "\n"))
		}
		for _, r := range rows {
			if strings.HasPrefix(r, "Command: ls") {
				t.Errorf("%q: a line of the command passes for Hark's:\n%s", command, strings.Join(rows, "\n"))
			}
		}
		if rowWith(rows, "Run this? [N]o (safe choice) / [y]es") < 0 {
			t.Errorf("%q: no question:\n%s", command, strings.Join(rows, "\n"))
		}
	}
}

// hark ask shows the command as the model proposed it, then the approval.
func TestAskApprovalShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	for _, c := range hiddenFamily {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			command := disguised(c.seq)
			var tty bytes.Buffer
			p := &printer{w: &tty, atLineStart: true, color: true}
			p.event(agent.Event{Kind: agent.EventProposed, Call: &agent.Call{Command: command, Purpose: "executing", Tier: shell.Confirm,
				WorkingDirectory: "/home/u", Reasons: []shell.Reason{{Command: command, Why: "rm deletes files" + c.seq}}}})
			e := &env{stdin: strings.NewReader("n\n"), stdout: &tty, stderr: &tty, isTerminal: true}
			d, err := newTerminalConfirmer(e).Confirm(context.Background(), agent.Pending{ID: "p1", Command: command, Tier: shell.Confirm,
				Rule: "your rule 2 asks" + c.seq, NoProposal: "none"})
			if err != nil || d.Approved {
				t.Fatalf("Confirm = %+v, %v", d, err)
			}
			rows := screen(tty.String())
			checkApproval(t, rows, "$ "+visible.Text(command), "Run this? [N]o (safe choice) / [y]es")
			for _, want := range []string{"why: rm deletes files" + visible.Line(c.seq), "your rule 2 asks" + visible.Line(c.seq)} {
				if rowWith(rows, want) < 0 {
					t.Errorf("the screen lacks %q:\n%s", want, strings.Join(rows, "\n"))
				}
			}
		})
	}
}

// The whole hark ask, with the model proposing the disguised command.
func TestAskCLIShowsHiddenCharacters(t *testing.T) {
	command := disguised("\x1b[2J\x1b[H")
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", command, "purpose", "executing")}},
		ollamatest.Reply{Text: "Not done.\x1b[2J\x1b[HAll files were tidied."},
	)
	t.Setenv("HOME", t.TempDir())
	var tty bytes.Buffer
	e := &env{stdin: strings.NewReader("n\n"), stdout: &tty, stderr: &tty, isTerminal: true}
	if code := dispatch(context.Background(), e, []string{"ask", "--new", "tidy up"}); code != exitOK {
		t.Fatalf("exit %d\n%s", code, tty.String())
	}
	rows := screen(tty.String())
	question := "Run this? [N]o (safe choice) / [y]es"
	if rowWith(rows, "Move to Trash instead?") >= 0 {
		question = "Move to Trash instead?"
	}
	checkApproval(t, rows, "$ "+visible.Text(command), question)
	if rowWith(rows, "Not done.⟨U+001B⟩[2J⟨U+001B⟩[HAll files were tidied.") < 0 {
		t.Errorf("the model's answer is not shown as it is:\n%s", strings.Join(rows, "\n"))
	}
}

// evilName is a file name that, printed raw, clears the screen and
// writes a line of its own.
const evilName = "notes\x1b[2J\x1b[H\rnothing here\u202etxt.exe\nsecond"

func TestUndoListingShowsHiddenCharacters(t *testing.T) {
	execHome(t)
	home := os.Getenv("HOME")
	t.Setenv("XDG_DATA_HOME", "")
	target := filepath.Join(home, evilName)
	if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := settings.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	bin := newTrash(paths)
	if bin == nil {
		t.Fatal("no Trash")
	}
	command := "rm ~/'" + evilName + "'"
	if _, err := bin.Trash(context.Background(), command, []string{target}); err != nil {
		t.Fatal(err)
	}
	var tty bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &tty, stderr: &tty}
	if code := dispatch(context.Background(), e, []string{"undo", "-n"}); code != exitOK {
		t.Fatalf("exit %d\n%s", code, tty.String())
	}
	rows := screen(tty.String())
	for _, want := range []string{"for `" + visible.Line(command) + "`", "  " + visible.Line(target)} {
		if rowWith(rows, want) < 0 {
			t.Errorf("the screen lacks %q:\n%s", want, strings.Join(rows, "\n"))
		}
	}
	if len(rows) != 2 {
		t.Errorf("one item shows as %d rows:\n%s", len(rows)-1, strings.Join(rows, "\n"))
	}
}

// seedHidden runs one hark ask whose request, proposed command and answer
// all hold an escape sequence, so the history and the audit log do.
func seedHidden(t *testing.T) (request, command string) {
	t.Helper()
	request = "tidy\x1b[2J\x1b[H up\u202e"
	command = disguised("\x1b[2J\x1b[H\r")
	askEnv(t,
		ollamatest.Reply{Calls: []api.ToolCall{ollamatest.Call("command", command, "purpose", "executing")}},
		ollamatest.Reply{Text: "Denied.\x1b]0;title\x07"},
	)
	t.Setenv("HOME", t.TempDir())
	if r := runAgentCLI(t, "n\n", true, "ask", "--new", request); r.code != exitOK {
		t.Fatalf("seed: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return request, command
}

// listing runs a hark subcommand and returns its screen.
func listing(t *testing.T, args ...string) []string {
	t.Helper()
	var tty bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &tty, stderr: &tty}
	if code := dispatch(context.Background(), e, args); code != exitOK {
		t.Fatalf("%v: exit %d\n%s", args, code, tty.String())
	}
	return screen(tty.String())
}

func wantRows(t *testing.T, rows []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if rowWith(rows, w) < 0 {
			t.Errorf("the screen lacks %q:\n%s", w, strings.Join(rows, "\n"))
		}
	}
}

func TestAuditListingShowsHiddenCharacters(t *testing.T) {
	_, command := seedHidden(t)
	rows := listing(t, "audit")
	wantRows(t, rows, visible.Line(command))
	if len(rows) != 2 {
		t.Errorf("one decision shows as %d rows:\n%s", len(rows)-1, strings.Join(rows, "\n"))
	}
	// The JSON form escapes the characters instead, and keeps the value.
	var tty bytes.Buffer
	if code := dispatch(context.Background(), &env{stdout: &tty, stderr: &tty}, []string{"audit", "--json"}); code != exitOK {
		t.Fatal(tty.String())
	}
	if visible.Hidden(strings.TrimSuffix(tty.String(), "\n")) {
		t.Errorf("audit --json prints raw hidden characters: %q", tty.String())
	}
	var en agent.AuditEntry
	if err := json.Unmarshal(tty.Bytes(), &en); err != nil || en.Command != command {
		t.Errorf("audit --json command = %q, %v; want %q", en.Command, err, command)
	}
}

func TestHistoryListingShowsHiddenCharacters(t *testing.T) {
	request, command := seedHidden(t)
	wantRows(t, listing(t, "history", "list"), visible.Line(request))
	rows := listing(t, "history", "show", "latest")
	wantRows(t, rows, visible.Text(request), visible.Text(command), "Denied.⟨U+001B⟩]0;title⟨U+0007⟩")
}

func TestRulesListingShowsHiddenCharacters(t *testing.T) {
	e, out, errb, st, home := rulesEnv(t)
	pol := shell.NewPolicy()
	match := "rm x\x1b[2J\x1b[H\u202e"
	if code := rulesCommand(e, st, pol, home, []string{"add", "never", "rm", "--match", match, "--no-match", "ls"}); code != exitOK {
		t.Fatalf("add: %d %s", code, errb)
	}
	out.Reset()
	if code := rulesCommand(e, st, pol, home, []string{"list"}); code != exitOK {
		t.Fatalf("list: %d %s", code, errb)
	}
	wantRows(t, screen(out.String()), "1. never run rm", "matches: "+visible.Line(match))
	out.Reset()
	command := disguised("\x1b[1A\x1b[2K")
	if code := rulesCommand(e, st, pol, home, []string{"check", "--", command}); code != exitOK {
		t.Fatalf("check: %d %s", code, errb)
	}
	wantRows(t, screen(out.String()), visible.Line(command), "policy: confirm")
}

// hark exec's JSON result: the output field shows a name's hidden
// characters as code points and keeps newlines and tabs, and the JSON
// escapes whatever else is left (here in the command) instead of printing
// it raw.
func TestExecResultShowsHiddenCharacters(t *testing.T) {
	execHome(t)
	dir := t.TempDir()
	name := "a\tb\u202ec\u200bd\x1b[2Je"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	command := "ls -1 " + dir + " #\u200b"
	r := runExecCLI(t, "", false, "--yes", "--", command)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// ls names the file with its characters (a tab, not a ? when stdout is
	// no terminal); the capture has dropped the escape sequence itself.
	if want := "a\tb⟨U+202E⟩c⟨U+200B⟩d"; !strings.Contains(r.result.Output, want) || !strings.Contains(r.result.Output, "\nplain\n") {
		t.Errorf("output = %q, want it to hold %q and keep its newlines", r.result.Output, want)
	}
	if visible.Hidden(strings.TrimSuffix(r.stdout, "\n")) {
		t.Errorf("exec prints raw hidden characters: %q", r.stdout)
	}
	if r.result.Command != command {
		t.Errorf("command = %q, want %q unchanged", r.result.Command, command)
	}
}

func TestSafeJSONKeepsValues(t *testing.T) {
	t.Parallel()
	in := map[string]string{"s": "a\x7fb\u009bc\u202ed\U000e0100e\n\tf\x1bg"}
	b, _ := json.Marshal(in)
	got := safeJSON(b)
	if visible.Hidden(string(got)) {
		t.Errorf("safeJSON left hidden characters: %q", got)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["s"] != in["s"] {
		t.Errorf("safeJSON changed the value: %q → %q (%v)", in["s"], back["s"], err)
	}
}
