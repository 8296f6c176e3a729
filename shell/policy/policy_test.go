package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestPolicyTable(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	seen := map[string]bool{}
	for _, tc := range policyCases {
		if seen[tc.command] {
			t.Errorf("duplicate case %q", tc.command)
		}
		seen[tc.command] = true
		t.Run(tc.category+"/"+tc.command, func(t *testing.T) {
			t.Parallel()
			v := p.Classify(tc.command)
			if v.Tier != tc.tier {
				t.Fatalf("Classify(%q).Tier = %s, want %s; reasons: %v", tc.command, v.Tier, tc.tier, v.Reasons)
			}
			if v.Command != tc.command {
				t.Errorf("Verdict.Command = %q, want the input", v.Command)
			}
			checkVerdictShape(t, v)
			if tc.reason != "" && !hasReason(v, tc.reason) {
				t.Errorf("Classify(%q): no reason contains %q; reasons: %v", tc.command, tc.reason, v.Reasons)
			}
		})
	}
}

// checkVerdictShape asserts what holds for every verdict: safe has no
// reasons, anything else has at least one, and no reason repeats.
func checkVerdictShape(t *testing.T, v Verdict) {
	t.Helper()
	if v.Reasons == nil {
		t.Errorf("Reasons is nil, want an empty slice")
	}
	if (v.Tier == Safe) != (len(v.Reasons) == 0) {
		t.Errorf("tier %s with %d reasons: %v", v.Tier, len(v.Reasons), v.Reasons)
	}
	dup := map[Reason]bool{}
	for _, r := range v.Reasons {
		if dup[r] {
			t.Errorf("reason repeated: %v", r)
		}
		dup[r] = true
		if r.Why == "" {
			t.Errorf("reason without text: %v", r)
		}
		if !categories[r.Category] {
			t.Errorf("reason without a known category: %v", r)
		}
	}
}

func hasReason(v Verdict, sub string) bool {
	for _, r := range v.Reasons {
		if strings.Contains(r.Why, sub) {
			return true
		}
	}
	return false
}

func TestPolicyTableCoversEveryCategory(t *testing.T) {
	t.Parallel()
	count := map[string]int{}
	withReason := 0
	for _, tc := range policyCases {
		count[tc.category]++
		if tc.reason != "" {
			withReason++
		}
	}
	if len(policyCases) < 250 {
		t.Errorf("%d cases, want at least 250", len(policyCases))
	}
	if withReason*2 < len(policyCases) {
		t.Errorf("%d of %d cases check a reason, want at least half", withReason, len(policyCases))
	}
	for _, cat := range []string{"bypass", "readonly-mac", "readonly-linux", "readonly-text", "git", "structure", "redirect",
		"assign", "names", "dynamic", "wrapper", "interpreter", "shell", "write", "delete", "git-write", "package",
		"process", "network", "background", "text", "privilege", "disk", "recursive", "forkbomb", "shutdown", "nested"} {
		if count[cat] < 4 {
			t.Errorf("category %q has %d cases, want at least 4", cat, count[cat])
		}
	}
	// Each family of holes the classifier closed keeps at least three
	// members that must not be safe, so closing it cannot regress to
	// fixing one example.
	notSafe := map[string]int{}
	for _, tc := range policyCases {
		if tc.tier != Safe {
			notSafe[tc.category]++
		}
	}
	for _, family := range []string{"xargs-wrapper", "redefine-name", "builtin-runs", "subscript-name", "set-keyword",
		"env-loads-code", "computed-socket", "abbreviated", "bundled-flag", "git-config-code"} {
		if notSafe[family] < 3 {
			t.Errorf("family %q has %d cases that are not safe, want at least 3", family, notSafe[family])
		}
	}
	t.Logf("%d cases (%d with a reason): %v", len(policyCases), withReason, count)
}

// A harmless unknown program is asked about as unknown, not mistaken for a
// deletion or a disk format because of its name.
func TestUnknownProgramIsNotMistakenForADangerousOne(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for _, cmd := range []string{"formatter --help", "rmdir-helper x", "sudoku", "reboot-notes.sh", "mkfsx"} {
		v := p.Classify(cmd)
		if v.Tier != Confirm {
			t.Errorf("Classify(%q).Tier = %s, want confirm", cmd, v.Tier)
		}
		for _, r := range v.Reasons {
			if !strings.Contains(r.Why, "not a known read-only program") && !strings.Contains(r.Why, "outside the system directories") {
				t.Errorf("Classify(%q): unexpected reason %q", cmd, r.Why)
			}
		}
	}
}

// Reasons come in source order, one per offending part, each once.
func TestReasonsInOrderAndDeduplicated(t *testing.T) {
	t.Parallel()
	v := New(Options{}).Classify("rm a; ls > out; rm a; curl x")
	want := []Reason{
		{Command: "rm a", Why: "rm: deletes files", Category: Delete},
		{Command: "> out", Why: "> out: overwrites a file", Category: Write},
		{Command: "curl x", Why: "curl: uses the network", Category: Network},
	}
	if len(v.Reasons) != len(want) {
		t.Fatalf("reasons = %v, want %v", v.Reasons, want)
	}
	for i := range want {
		if v.Reasons[i] != want[i] {
			t.Errorf("reason %d = %v, want %v", i, v.Reasons[i], want[i])
		}
	}
}

// The worst part decides: forbidden beats confirm beats safe, wherever it sits.
func TestWorstPartWins(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for _, tc := range []struct {
		cmd  string
		want Tier
	}{
		{"ls; rm x; sudo ls; pwd", Forbidden},
		{"sudo ls; rm x", Forbidden},
		{"ls; pwd; rm x", Confirm},
		{"ls | grep x; pwd", Safe},
	} {
		if got := p.Classify(tc.cmd).Tier; got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.cmd, got, tc.want)
		}
	}
}

// Classify is pure and holds no per-call state: concurrent calls agree with
// sequential ones.
func TestClassifyConcurrent(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	want := make([]Tier, len(policyCases))
	for i, tc := range policyCases {
		want[i] = p.Classify(tc.command).Tier
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, tc := range policyCases {
				if got := p.Classify(tc.command).Tier; got != want[i] {
					t.Errorf("concurrent Classify(%q) = %s, want %s", tc.command, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
}

func TestSedScriptScanner(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		writes bool
	}{
		{"p", false},
		{"1,5p", false},
		{"s/a/b/g", false},
		{"s|a|b|2p", false},
		{"/x/d; s/a\\/b/c/", false},
		{"$!N;P;D", false},
		{"/start/,/end/{s/a/b/;p}", false},
		{"1i\\\nhello", false},
		{"y/abc/xyz/", false},
		{":a;N;$!ba;s/\\n/ /g", false},
		{"w out", true},
		{"1W out", true},
		{"s/a/b/w out", true},
		{"s/a/b/gw out", true},
		{"e ls", true},
		{"s/a/b/e", true},
		{"1e", true},
		{"s/a/b", true}, // unterminated: cannot be read, so not read-only
		{"k", true},     // unknown command
		{"/x/{w y\n}", true},
	} {
		if got := sedScriptWrites(tc.script) != ""; got != tc.writes {
			t.Errorf("sedScriptWrites(%q) = %v, want %v", tc.script, got, tc.writes)
		}
	}
}

// A long command with many distinct parts is classified in time linear in
// its length (no quadratic de-duplication or re-walking); this only checks
// that it completes and counts every part.
func TestLongCommand(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "rm f%d; ", i)
	}
	v := New(Options{}).Classify(b.String())
	if v.Tier != Confirm || len(v.Reasons) != 5000 {
		t.Fatalf("tier %s with %d reasons, want confirm with 5000", v.Tier, len(v.Reasons))
	}
}

// A word of many zsh subscripts is scanned in bounded steps, and the one
// that evaluates text is still found.
func TestManySubscriptsInOneWord(t *testing.T) {
	t.Parallel()
	cmd := "x='b[$(rm y)]'; echo " + strings.Repeat("$a[", 20000) + "x]"
	if v := New(Options{}).Classify(cmd); v.Tier != Confirm || !hasReason(v, "zsh evaluates the subscript") {
		t.Fatalf("tier %s, reasons %v; want confirm naming the subscript", v.Tier, v.Reasons)
	}
}

// ClassifyIn knows where the command runs: a glob or "." then names that
// directory. It never makes a verdict milder than Classify's.
func TestClassifyIn(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for _, tc := range []struct {
		cmd, dir string
		want     Tier
	}{
		{"rm -rf *", "~", Forbidden},
		{"rm -rf .", "/", Forbidden},
		{"rm -rf *", "/Users/me", Forbidden},
		{"find . -delete", "~", Forbidden},
		{"find . -name '*.bak' -exec rm {} +", "~", Confirm},
		{"find . -name '*.bak' -exec rm -rf {} +", "~", Forbidden},
		{"find . -delete -name '*.bak'", "~", Forbidden},
		{"rm -rf .[!.]*", "~", Forbidden},
		{"chmod -R 777 .", "/usr", Forbidden},
		{"rm -rf *", "~/src/project", Confirm},
		{"rm -rf *", "/tmp/build", Confirm},
		{"rm -rf *", "", Confirm},
		{"ls -la", "/", Safe},
		{"cd /tmp && rm -rf *", "~", Confirm},
		{"sudo ls", "/tmp", Forbidden},
	} {
		if got := p.ClassifyIn(tc.cmd, tc.dir).Tier; got != tc.want {
			t.Errorf("ClassifyIn(%q, %q) = %s, want %s", tc.cmd, tc.dir, got, tc.want)
		}
		if rank(p.ClassifyIn(tc.cmd, tc.dir).Tier) < rank(p.Classify(tc.cmd).Tier) {
			t.Errorf("ClassifyIn(%q, %q) is milder than Classify", tc.cmd, tc.dir)
		}
	}
}

// Deeply nested input asks with a reason instead of being classified level
// by level, and the complete lines before it are still classified.
func TestDeepNesting(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for name, cmd := range nestedInputs(100 << 10) {
		v := p.Classify(cmd)
		if v.Tier != Confirm || !hasReason(v, "are not classified") {
			t.Errorf("%s: tier %s, reasons %.200v; want confirm for nesting", name, v.Tier, v.Reasons)
		}
		if len(v.Reasons) > 4 {
			t.Errorf("%s: %d reasons, want a few", name, len(v.Reasons))
		}
		if w := p.Classify("sudo ls\n" + cmd); w.Tier != Forbidden {
			t.Errorf("%s: a forbidden line before deep nesting gave %s", name, w.Tier)
		}
	}
	// Within the bracket bound the tree bound applies.
	mid := "echo " + strings.Repeat("$(echo ", 100) + "x" + strings.Repeat(")", 100)
	if v := p.Classify(mid); v.Tier != Confirm || !hasReason(v, "commands nested more than 64 levels") {
		t.Errorf("100 levels: tier %s, reasons %.200v", v.Tier, v.Reasons)
	}
	shallow := "echo " + strings.Repeat("$(echo ", 20) + "x" + strings.Repeat(")", 20)
	if v := p.Classify(shallow); v.Tier != Safe {
		t.Errorf("20 levels: tier %s, reasons %v; want safe", v.Tier, v.Reasons)
	}
}

// Without a sandbox, read-only invocations of programs that run code from
// their configuration ask; everything else keeps its verdict, and the
// default policy is unchanged.
func TestNoSandbox(t *testing.T) {
	t.Parallel()
	def, bare := New(Options{}), New(Options{NoSandbox: true})
	for _, tc := range []struct {
		cmd    string
		config bool // safe by default, asks without a sandbox
	}{
		{"git status", true},
		{"git -C ~/src/x log --oneline", true},
		{"python3 --version", true},
		{"python3.12 -V", true},
		{"node -v", true},
		{"bash --version", true},
		{"yarn --version", true},
		{"cargo -vV", true},
		{"brew list", true},
		{"npm ls", true},
		{"pip list", true},
		{"go version", true},
		{"docker ps", true},
		{"ls | xargs git status", false}, // asks anyway: arguments arrive at run time
		{"ls -la", false},
		{"grep -r x .", false},
		{"find . -name '*.go'", false},
		{"csrutil status", false},
	} {
		d, b := def.Classify(tc.cmd), bare.Classify(tc.cmd)
		switch {
		case tc.config && d.Tier != Safe:
			t.Errorf("default Classify(%q) = %s, want safe; %v", tc.cmd, d.Tier, d.Reasons)
		case tc.config && (b.Tier != Confirm || !hasReason(b, noSandboxReason)):
			t.Errorf("NoSandbox Classify(%q) = %s %v, want confirm: %s", tc.cmd, b.Tier, b.Reasons, noSandboxReason)
		case !tc.config && (b.Tier != d.Tier || hasReason(b, noSandboxReason)):
			t.Errorf("NoSandbox Classify(%q) = %s %v, want the default %s", tc.cmd, b.Tier, b.Reasons, d.Tier)
		}
	}
	// Never milder, on every case of the table.
	for _, tc := range policyCases {
		if d, b := def.Classify(tc.command), bare.Classify(tc.command); rank(b.Tier) < rank(d.Tier) {
			t.Errorf("NoSandbox Classify(%q) = %s, milder than %s", tc.command, b.Tier, d.Tier)
		}
	}
}

var categories = map[Category]bool{Delete: true, Write: true, Network: true, Code: true, Privilege: true, Disk: true,
	Process: true, Package: true, System: true, Parse: true, Unknown: true}

// The category says what kind of harm a reason is about, whichever check
// produced it.
func TestReasonCategories(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for _, tc := range []struct {
		cmd  string
		want Category
	}{
		{"rm x", Delete},
		{"find . -name x -delete", Delete},
		{"git clean -fdx", Delete},
		{"cp a b", Write},
		{"echo x > f", Write},
		{"sed -i s/a/b/ f", Write},
		{"curl x", Network},
		{"git push", Network},
		{"cat < /dev/tcp/1.1.1.1/80", Network},
		{"python3 -c 'print(1)'", Code},
		{"bash -c ls", Code},
		{"PERL5LIB=x ls", Code},
		{"xargs nice", Code},
		{"sudo ls", Privilege},
		{"mkfs.ext4 /dev/sda1", Disk},
		{"dd if=x of=/dev/sda", Disk},
		{"kill 123", Process},
		{"ls &", Process},
		{"brew install x", Package},
		{"systemctl restart x", System},
		{"shutdown -h now", System},
		{"ls '", Parse},
		{"frobnicate", Unknown},
	} {
		v := p.Classify(tc.cmd)
		found := false
		for _, r := range v.Reasons {
			found = found || r.Category == tc.want
		}
		if !found {
			t.Errorf("Classify(%q): no reason of category %q: %v", tc.cmd, tc.want, v.Reasons)
		}
	}
}

// Reasons marshal with their category for the approval UI and audit log.
func TestReasonJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Reason{Command: "rm x", Why: "rm: deletes files", Category: Delete})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"command":"rm x","why":"rm: deletes files","category":"delete"}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// Each kind of entry in the paths table decides a verdict: system roots
// and homes, disks, sockets, the sysrq trigger, sinks and the terminal.
func TestPathsTable(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for _, tc := range []struct {
		cmd  string
		want Tier
	}{
		{"rm -rf /usr/*", Forbidden},
		{"chmod -R 777 /etc", Forbidden},
		{"rm -rf /Users/someone", Forbidden},
		{"rm -rf /home/someone/", Forbidden},
		{"echo x > /dev/nvme0n1", Forbidden},
		{"tee /dev/mmcblk0 < img", Forbidden},
		{"cat < /dev/udp/1.1.1.1/53", Confirm},
		{"echo c > /proc/sysrq-trigger", Forbidden},
		{"ls 2>/dev/stderr >/dev/null", Safe},
		{"echo hi > /dev/tty", Confirm},
	} {
		if got := p.Classify(tc.cmd).Tier; got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.cmd, got, tc.want)
		}
	}
	kinds := map[pathKind]bool{}
	for _, k := range paths {
		kinds[k] = true
	}
	for k := systemRoot; k <= terminal; k++ {
		if !kinds[k] {
			t.Errorf("no path of kind %d in the table", k)
		}
	}
}

func TestSplitDeclWord(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, name, value string
		hasValue        bool
	}{
		{"x", "x", "", false},
		{"x=1", "x", "1", true},
		{"x[1]=2", "x[1]", "2", true},
		{"x[a=b]=1", "x[a=b]", "1", true},
		{"x[$(rm y)]", "x[$(rm y)]", "", false},
		{"x[1", "x[1", "", false},
		{"x=(a [b]=c)", "x", "(a [b]=c)", true},
		{"x[1]y=2", "x[1]y=2", "", false},
	} {
		name, value, has := splitDeclWord(tc.in)
		if name != tc.name || value != tc.value || has != tc.hasValue {
			t.Errorf("splitDeclWord(%q) = %q, %q, %v; want %q, %q, %v", tc.in, name, value, has, tc.name, tc.value, tc.hasValue)
		}
	}
}

// macOS file systems ignore case by default: /users/me is the home folder
// and /LIBRARY the system's Library there, so a spelling in other case is
// refused like the real one.
func TestProtectedRootsIgnoreCase(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	for _, tc := range []struct{ cmd, dir string }{
		{"rm -rf /users/me", "/tmp"},
		{"rm -rf /USERS/ME/*", "/tmp"},
		{"rm -rf /USR", "/tmp"},
		{"rm -rf /library", "/tmp"},
		{"rm -rf /SYSTEM", "/tmp"},
		{"rm -rf /applications", "/tmp"},
		{"chmod -R 777 /ETC", "/tmp"},
		{"rm -rf /PRIVATE/VAR", "/tmp"},
		{"rm -rf *", "/users/me"},
		{"rm -rf *", "/USERS/me"},
	} {
		if got := p.ClassifyIn(tc.cmd, tc.dir).Tier; got != Forbidden {
			t.Errorf("ClassifyIn(%q, %q) = %s, want forbidden", tc.cmd, tc.dir, got)
		}
	}
	// A folder inside one is still only asked about, in any case.
	if got := p.ClassifyIn("rm -rf /users/me/build", "/tmp").Tier; got != Confirm {
		t.Errorf("rm -rf /users/me/build: %s, want confirm", got)
	}
}
