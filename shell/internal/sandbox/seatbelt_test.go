package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell/scope"
)

// The Seatbelt profile cannot run on Linux, so CI checks it twice: its text
// against a golden copy, so that any change shows up in review as a diff of
// testdata/sandbox_darwin.sb, and its structure against the rules below, so
// that a change which would open the sandbox fails however it is worded.
// Refresh the golden copy with `go test ./shell/internal/sandbox -run SeatbeltProfile -update`.
func TestSeatbeltProfileGolden(t *testing.T) {
	checkGolden(t, "sandbox_darwin.sb", seatbeltProfile)
}

// checkGolden compares profile with testdata/name, or writes it there
// with -update.
func checkGolden(t *testing.T, name, profile string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(profile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if profile != string(want) {
		t.Errorf("profile differs from %s; run with -update if the change is intended", golden)
	}
}

// The profile of a run that hides the user's private files from a command
// run on behalf of another program: the same profile, then one refusal per
// path, which must come after the general (allow file-read*) to win.
func TestSeatbeltHidingGolden(t *testing.T) {
	profile := seatbeltProfile + seatbeltHiding(2)
	checkGolden(t, "sandbox_darwin_hide.sb", profile)
	for _, err := range checkSeatbeltProfile(profile) {
		t.Error(err)
	}
	allow := strings.Index(profile, "\n(allow file-read*)\n")
	for i := range 2 {
		deny := strings.Index(profile, fmt.Sprintf("(deny file-read* (subpath (param \"HIDE%d\")))", i))
		if deny < 0 || deny < allow {
			t.Errorf("no refusal of HIDE%d after (allow file-read*)", i)
		}
	}
	if seatbeltHiding(0) != "" {
		t.Error("a run that hides nothing must get the plain profile")
	}
}

// What the sandbox may let through. Each list is the whole of one kind of
// exception, with the reason for every entry; widening the profile means
// widening a list here, in the same review.
var (
	// seatbeltSetuid are the setuid programs that run outside the sandbox,
	// because Seatbelt refuses to start a setuid program inside one. Only
	// programs that merely read whatever their arguments belong here:
	// crontab does not (crontab FILE installs jobs, crontab -e runs $EDITOR).
	seatbeltSetuid = map[string]string{
		"/bin/ps":      "ps: prints the process table",
		"/usr/bin/top": "top -l: samples the process table",
	}

	// seatbeltWriteDevices are the paths outside TMPDIR whose data a command
	// may write. Nothing else about them may change.
	seatbeltWriteDevices = map[string]string{
		"/dev/null": "2>/dev/null",
		"/dev/fd/1": ">/dev/stdout, through its link",
		"/dev/fd/2": ">/dev/stderr, through its link",
	}

	// seatbeltMachServices are the system services a command may reach, each
	// with the safe programs that need it. A service acts outside the sandbox
	// on the caller's behalf, so each must be one that only answers questions
	// (or, like cfprefsd, checks the caller's sandbox before it writes).
	seatbeltMachServices = map[string]string{
		"com.apple.system.opendirectoryd.libinfo":        "ls -l, id, whoami, stat, find -user, zsh: user and group names",
		"com.apple.system.opendirectoryd.membership":     "id, groups: group membership",
		"com.apple.cfprefsd.daemon":                      "defaults read, CoreFoundation programs: system preferences",
		"com.apple.cfprefsd.agent":                       "defaults read: the user's preferences",
		"com.apple.metadata.mds":                         "mdfind, mdls: Spotlight",
		"com.apple.SystemConfiguration.DNSConfiguration": "scutil --dns: the resolver configuration",
		"com.apple.sysmond":                              "pgrep, pkill: the process table (macOS 26)",
	}
)

// seatbeltOp says how allow rules for one Seatbelt operation are checked.
type seatbeltOp int

const (
	opFree        seatbeltOp = iota // reads: allowed with or without filters
	opExec                          // process-exec: unconfined only for seatbeltSetuid
	opWrite                         // only under TMPDIR, or data of seatbeltWriteDevices
	opSameSandbox                   // only (target same-sandbox)
	opMach                          // only commented global-names from seatbeltMachServices
	opNever                         // may appear in deny rules only
)

// seatbeltOps are the operations the profile may name at all; an unknown
// name, a typo included, is an error (sandbox-exec would refuse it on a Mac,
// and every command with it). opNever entries say why they stay closed.
var seatbeltOps = map[string]struct {
	rule seatbeltOp
	why  string
}{
	"process-fork":           {opFree, ""},
	"file-read*":             {opFree, ""},
	"file-read-data":         {opFree, ""},
	"file-read-metadata":     {opFree, ""},
	"file-read-xattr":        {opFree, ""},
	"sysctl-read":            {opFree, ""},
	"iokit-get-properties":   {opFree, ""},
	"user-preference-read":   {opFree, ""},
	"process-info-listpids":  {opFree, ""},
	"process-info-pidinfo":   {opFree, ""},
	"process-info-pidfdinfo": {opFree, ""},

	"process-exec":  {opExec, ""},
	"process-exec*": {opExec, ""},

	"file-write*":         {opWrite, ""},
	"file-write-data":     {opWrite, ""},
	"file-write-create":   {opWrite, ""},
	"file-write-unlink":   {opWrite, ""},
	"file-write-mode":     {opWrite, ""},
	"file-write-owner":    {opWrite, ""},
	"file-write-flags":    {opWrite, ""},
	"file-write-times":    {opWrite, ""},
	"file-write-xattr":    {opWrite, ""},
	"file-write-setugid":  {opWrite, ""},
	"file-clone":          {opWrite, ""},
	"signal":              {opSameSandbox, ""},
	"process-info*":       {opSameSandbox, ""},
	"process-info-rusage": {opSameSandbox, ""},
	"mach-lookup":         {opMach, ""},

	"default":                       {opNever, "everything not allowed by name stays refused"},
	"network*":                      {opNever, "no network"},
	"network-outbound":              {opNever, "no network, no Unix socket to a daemon"},
	"network-inbound":               {opNever, "no network"},
	"network-bind":                  {opNever, "no listening sockets"},
	"system-socket":                 {opNever, "no sockets at all"},
	"user-preference-write":         {opNever, "defaults write would change preferences through cfprefsd"},
	"appleevent-send":               {opNever, "driving other apps (osascript, Finder) acts outside the sandbox"},
	"lsopen":                        {opNever, "opening files or apps acts outside the sandbox"},
	"job-creation":                  {opNever, "a launchd job runs outside the sandbox"},
	"sysctl-write":                  {opNever, "changes the kernel"},
	"file-ioctl":                    {opNever, "an ioctl on a terminal can inject keystrokes (TIOCSTI)"},
	"file-link":                     {opNever, "a hard link in TMPDIR to a file outside would make it writable"},
	"file-mknod":                    {opNever, "device nodes"},
	"file-write-mount":              {opNever, "mounts change the file system"},
	"file-write-unmount":            {opNever, "unmounts change the file system"},
	"mach-register":                 {opNever, "a registered service could be reached from outside"},
	"mach-priv-task-port":           {opNever, "another process's task port controls it"},
	"iokit-open":                    {opNever, "I/O Kit user clients can change hardware state (sleep, power)"},
	"pseudo-tty":                    {opNever, "commands get no terminal"},
	"process-info-setcontrol":       {opNever, "changes a process"},
	"process-info-dirtycontrol":     {opNever, "changes how the system may kill a process"},
	"process-info-codesignature":    {opNever, "csops can also invalidate another process"},
	"distributed-notification-post": {opNever, "other apps act on distributed notifications"},
	"darwin-notification-post":      {opNever, "other processes act on Darwin notifications"},
}

// checkSeatbeltProfile returns every way src breaks the rules above. It
// knows the profile language only as far as the profile uses it: anything
// it does not recognise is an error, never a pass.
func checkSeatbeltProfile(src string) []error {
	forms, err := parseSBPL(src)
	if err != nil {
		return []error{err}
	}
	var errs []error
	fail := func(n sbNode, format string, args ...any) {
		errs = append(errs, fmt.Errorf("line %d: %s: %s", n.line, n, fmt.Sprintf(format, args...)))
	}
	if len(forms) < 2 || forms[0].String() != "(version 1)" || forms[1].String() != "(deny default)" {
		return []error{fmt.Errorf("the profile must open with (version 1) and then (deny default)")}
	}
	for _, f := range forms[2:] {
		if f.kind != sbList || len(f.list) == 0 || f.list[0].kind != sbSymbol {
			fail(f, "only (allow …) and (deny …) rules may follow")
			continue
		}
		switch f.list[0].text {
		case "allow":
			checkAllow(f, fail)
		case "deny":
			ops, _, _, ok := splitRule(f, fail)
			if !ok {
				continue
			}
			for _, op := range ops {
				if _, known := seatbeltOps[op]; !known {
					fail(f, "unknown operation %q", op)
				}
			}
		default:
			fail(f, "only (allow …) and (deny …) rules may follow: definitions and imports hide what is allowed")
		}
	}
	return errs
}

// splitRule takes (allow|deny OP… FILTER… (with MODIFIER)…) apart.
func splitRule(f sbNode, fail func(sbNode, string, ...any)) (ops []string, filters, with []sbNode, ok bool) {
	rest := f.list[1:]
	for len(rest) > 0 && rest[0].kind == sbSymbol {
		ops, rest = append(ops, rest[0].text), rest[1:]
	}
	if len(ops) == 0 {
		fail(f, "a rule names no operation")
		return nil, nil, nil, false
	}
	for _, n := range rest {
		switch {
		case n.kind != sbList || len(n.list) == 0 || n.list[0].kind != sbSymbol:
			fail(f, "%s is neither a filter nor a modifier", n)
			return nil, nil, nil, false
		case n.list[0].text == "with":
			with = append(with, n)
		default:
			filters = append(filters, n)
		}
	}
	return ops, filters, with, true
}

func checkAllow(f sbNode, fail func(sbNode, string, ...any)) {
	ops, filters, with, ok := splitRule(f, fail)
	if !ok {
		return
	}
	for _, op := range ops {
		spec, known := seatbeltOps[op]
		if !known {
			fail(f, "unknown operation %q", op)
			continue
		}
		if len(with) > 0 && spec.rule != opExec {
			fail(f, "modifiers such as %s belong only on process-exec", with[0])
		}
		switch spec.rule {
		case opNever:
			fail(f, "%s may never be allowed: %s", op, spec.why)
		case opExec:
			checkExec(f, filters, with, fail)
		case opWrite:
			checkWrite(f, op, filters, fail)
		case opSameSandbox:
			if len(filters) != 1 || filters[0].String() != "(target same-sandbox)" {
				fail(f, "%s is allowed only with the one filter (target same-sandbox)", op)
			}
		case opMach:
			checkMach(f, filters, fail)
		}
	}
}

// checkExec: starting programs is allowed, since children inherit the
// profile; starting one unconfined is allowed only for listed setuid paths.
func checkExec(f sbNode, filters, with []sbNode, fail func(sbNode, string, ...any)) {
	if len(with) == 0 {
		return
	}
	for _, w := range with {
		if w.String() != "(with no-sandbox)" {
			fail(f, "unknown modifier %s", w)
		}
	}
	if len(filters) == 0 {
		fail(f, "every program would run outside the sandbox")
	}
	for _, fl := range filters {
		path, ok := literalPath(fl)
		if !ok {
			fail(f, "an unconfined program must be named by (literal \"/exact/path\"), not %s", fl)
			continue
		}
		if _, listed := seatbeltSetuid[path]; !listed {
			fail(f, "%s is not a listed setuid reader that may run outside the sandbox", path)
		}
	}
}

// checkWrite: writes go to the run's TMPDIR, or to the data of a listed
// device.
func checkWrite(f sbNode, op string, filters []sbNode, fail func(sbNode, string, ...any)) {
	if len(filters) == 0 {
		fail(f, "%s everywhere", op)
	}
	for _, fl := range filters {
		if fl.String() == `(subpath (param "TMPDIR"))` {
			continue
		}
		path, ok := literalPath(fl)
		switch _, listed := seatbeltWriteDevices[path]; {
		case !ok:
			fail(f, "%s is allowed only under (subpath (param \"TMPDIR\")) or on listed devices, not %s", op, fl)
		case !listed:
			fail(f, "%s may not be written", path)
		case op != "file-write-data":
			fail(f, "of %s only its data may be written (file-write-data), not %s", path, op)
		}
	}
}

// checkMach: only listed services, each named exactly and with a comment
// saying which programs need it.
func checkMach(f sbNode, filters []sbNode, fail func(sbNode, string, ...any)) {
	if len(filters) == 0 {
		fail(f, "every system service would be reachable")
	}
	for _, fl := range filters {
		if len(fl.list) != 2 || fl.list[0].text != "global-name" || fl.list[1].kind != sbString {
			fail(fl, "services are allowed only as (global-name \"name\")")
			continue
		}
		name := fl.list[1].text
		if _, listed := seatbeltMachServices[name]; !listed {
			fail(fl, "service %s is not on the list of those read-only programs need", name)
		}
		if strings.TrimSpace(fl.comment) == "" {
			fail(fl, "service %s has no comment saying which programs need it", name)
		}
	}
}

// literalPath returns X of (literal "X").
func literalPath(n sbNode) (string, bool) {
	if n.kind == sbList && len(n.list) == 2 && n.list[0].kind == sbSymbol && n.list[0].text == "literal" && n.list[1].kind == sbString {
		return n.list[1].text, true
	}
	return "", false
}

func TestSeatbeltProfileStructure(t *testing.T) {
	t.Parallel()
	for _, err := range checkSeatbeltProfile(seatbeltProfile) {
		t.Error(err)
	}
	// The unconfined exceptions follow the general (allow process-exec), the
	// order of the profiles known to work (Codex's base policy); whether
	// Seatbelt would honour them in the other order is untested.
	general, exception := strings.Index(seatbeltProfile, "\n(allow process-exec)\n"), strings.Index(seatbeltProfile, "(with no-sandbox)")
	if general < 0 || exception < general {
		t.Error("(allow process-exec) must come before the (with no-sandbox) exceptions")
	}
}

// The lists above are exactly what the profile uses, so that they document
// it: an entry the profile no longer needs is removed, and B2 (ps and top
// refused as setuid) cannot come back unnoticed.
func TestSeatbeltProfileUsesEveryException(t *testing.T) {
	t.Parallel()
	forms, err := parseSBPL(seatbeltProfile)
	if err != nil {
		t.Fatal(err)
	}
	var unconfined, services, devices []string
	tmpWrite := false
	var walk func(rule sbNode, n sbNode)
	walk = func(rule, n sbNode) {
		switch {
		case n.kind != sbList:
		case len(n.list) == 2 && n.list[0].text == "global-name":
			services = append(services, n.list[1].text)
		case n.String() == `(subpath (param "TMPDIR"))`:
			tmpWrite = tmpWrite || strings.HasPrefix(rule.String(), "(allow file-write* ")
		default:
			if path, ok := literalPath(n); ok {
				switch text := rule.String(); {
				case strings.Contains(text, "(with no-sandbox)"):
					unconfined = append(unconfined, path)
				case strings.HasPrefix(text, "(allow file-write"):
					devices = append(devices, path)
				}
			}
			for _, c := range n.list {
				walk(rule, c)
			}
		}
	}
	for _, f := range forms {
		if f.kind == sbList && len(f.list) > 0 && f.list[0].text == "allow" {
			walk(f, f)
		}
	}
	sameSet := func(what string, got []string, want map[string]string) {
		t.Helper()
		var keys []string
		for k := range want {
			keys = append(keys, k)
		}
		slices.Sort(got)
		slices.Sort(keys)
		if !slices.Equal(got, keys) {
			t.Errorf("the profile's %s are %q, the list says %q", what, got, keys)
		}
	}
	sameSet("unconfined setuid programs", unconfined, seatbeltSetuid)
	sameSet("writable devices", devices, seatbeltWriteDevices)
	sameSet("system services", services, seatbeltMachServices)
	if !tmpWrite {
		t.Error(`the profile does not let commands write their TMPDIR: (allow file-write* (subpath (param "TMPDIR")))`)
	}
}

// The checker must be able to fail: each of these small profiles breaks one
// rule, and the checker must say so.
func TestCheckSeatbeltProfileRejects(t *testing.T) {
	t.Parallel()
	const head = "(version 1)\n(deny default)\n"
	tests := []struct {
		name, profile, want string
	}{
		{"no version", "(deny default)\n(allow file-read*)", "must open with"},
		{"allow by default", "(version 1)\n(allow default)", "must open with"},
		{"deny default not first", "(version 1)\n(allow file-read*)\n(deny default)", "must open with"},
		{"deny default with a filter", "(version 1)\n(deny default (literal \"/x\"))", "must open with"},
		{"allow default later", head + "(allow default)", "default may never be allowed"},
		{"unknown operation", head + "(allow file-write-everything (subpath (param \"TMPDIR\")))", `unknown operation "file-write-everything"`},
		{"unknown operation in a deny", head + "(deny netwrok*)", `unknown operation "netwrok*"`},
		{"rule without operation", head + "(allow (literal \"/x\"))", "names no operation"},
		{"definition", head + "(define (tmp) (param \"TMPDIR\"))", "definitions and imports"},
		{"import", head + "(import \"system.sb\")", "definitions and imports"},
		{"bare atom", head + "allow", "only (allow …) and (deny …)"},
		{"network", head + "(allow network*)", "network* may never be allowed"},
		{"outbound to localhost", head + "(allow network-outbound (remote ip \"localhost:*\"))", "network-outbound may never be allowed"},
		{"unix socket to a daemon", head + "(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))", "network-outbound may never be allowed"},
		{"bind", head + "(allow network-bind (local ip \"*:*\"))", "network-bind may never be allowed"},
		{"preference writes", head + "(allow user-preference-write)", "user-preference-write may never be allowed"},
		{"apple events", head + "(allow appleevent-send (appleevent-destination \"com.apple.finder\"))", "appleevent-send may never be allowed"},
		{"tty ioctl", head + "(allow file-ioctl (literal \"/dev/tty\"))", "file-ioctl may never be allowed"},
		{"hard links", head + "(allow file-link (subpath (param \"TMPDIR\")))", "file-link may never be allowed"},
		{"writes everywhere", head + "(allow file-write*)", "file-write* everywhere"},
		{"writes to home", head + "(allow file-write* (subpath \"/Users\"))", `not (subpath "/Users")`},
		{"writes by regex", head + "(allow file-write* (regex #\"^/private/tmp/\"))", `not (regex #"^/private/tmp/")`},
		{"writes under another param", head + "(allow file-write* (subpath (param \"HOME\")))", `not (subpath (param "HOME"))`},
		{"tmp dir and more", head + "(allow file-write* (subpath (param \"TMPDIR\")) (literal \"/etc/hosts\"))", "/etc/hosts may not be written"},
		{"unlisted device", head + "(allow file-write-data (literal \"/dev/tty\"))", "/dev/tty may not be written"},
		{"whole device", head + "(allow file-write* (literal \"/dev/null\"))", "only its data may be written"},
		{"reads and writes of a file", head + "(allow file-read* file-write* (literal \"/Users/ada/.zshrc\"))", ".zshrc may not be written"},
		{"clone outside", head + "(allow file-clone (subpath \"/\"))", `not (subpath "/")`},
		{"sudo unconfined", head + "(allow process-exec (literal \"/usr/bin/sudo\") (with no-sandbox))", "/usr/bin/sudo is not a listed setuid reader"},
		{"crontab unconfined", head + "(allow process-exec (literal \"/usr/bin/crontab\") (with no-sandbox))", "/usr/bin/crontab is not a listed"},
		{"unconfined folder", head + "(allow process-exec (subpath \"/bin\") (with no-sandbox))", "must be named by (literal"},
		{"unconfined regex", head + "(allow process-exec (regex #\"^/bin/ps$\") (with no-sandbox))", "must be named by (literal"},
		{"everything unconfined", head + "(allow process-exec (with no-sandbox))", "every program would run outside"},
		{"other modifier", head + "(allow process-exec (literal \"/bin/ps\") (with something-else))", "unknown modifier"},
		{"modifier elsewhere", head + "(allow file-read* (with no-sandbox))", "belong only on process-exec"},
		{"signals to anyone", head + "(allow signal)", "only with the one filter (target same-sandbox)"},
		{"signals to others", head + "(allow signal (target others))", "only with the one filter"},
		{"process info of anyone", head + "(allow process-info*)", "only with the one filter"},
		{"all services", head + "(allow mach-lookup)", "every system service"},
		{"unlisted service", head + "(allow mach-lookup\n ; the clipboard\n (global-name \"com.apple.pasteboard.1\"))", "com.apple.pasteboard.1 is not on the list"},
		{"uncommented service", head + "(allow mach-lookup (global-name \"com.apple.metadata.mds\"))", "com.apple.metadata.mds has no comment"},
		{"service by regex", head + "(allow mach-lookup (global-name-regex #\"^com\\.apple\\.\"))", "only as (global-name"},
		{"local service", head + "(allow mach-lookup\n ; prefs\n (local-name \"com.apple.cfprefsd.agent\"))", "only as (global-name"},
		{"escaped quote hides no path", head + `(allow file-write-data (literal "/dev/null\" (subpath \"/"))`, "may not be written"},
		{"comment does not count as a rule, the rule does", head + "; (allow file-read*)\n(allow network*)", "network* may never be allowed"},
		{"unbalanced", head + "(allow file-read*", "not closed"},
		{"stray close", head + "(allow file-read*))", "unexpected )"},
		{"unterminated string", head + `(allow file-write-data (literal "/dev/null))`, "unterminated string"},
		{"unterminated regex", head + `(allow file-read* (regex #"^/x))`, "unterminated string"},
		{"unknown escape", head + `(allow file-write-data (literal "/dev/nul\l"))`, `unknown escape \l`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := checkSeatbeltProfile(tt.profile)
			for _, err := range errs {
				if strings.Contains(err.Error(), tt.want) {
					return
				}
			}
			t.Errorf("checker said %v, want an error containing %q", errs, tt.want)
		})
	}
}

// A comment in a profile may say anything, strings may hold any character
// and regular expressions keep their backslashes.
func TestSeatbeltParseSBPL(t *testing.T) {
	t.Parallel()
	src := "(version 1) ; (allow default)\n" +
		"(allow file-read* ; \"not a string\n" +
		"  (literal \"a\\\"b;c\\\\d\\n\")\n" +
		"  (regex #\"^/dev/fd/[0-9]+\\.\\\"x$\"))\n" +
		"; trailing comment"
	forms, err := parseSBPL(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(forms) != 2 {
		t.Fatalf("got %d forms, want 2: %v", len(forms), forms)
	}
	rule := forms[1]
	if len(rule.list) != 4 || rule.list[1].text != "file-read*" {
		t.Fatalf("rule parsed as %v", rule)
	}
	if lit := rule.list[2].list[1]; lit.kind != sbString || lit.text != "a\"b;c\\d\n" {
		t.Errorf("string parsed as %q (kind %d)", lit.text, lit.kind)
	}
	if re := rule.list[3].list[1]; re.kind != sbRegex || re.text != `^/dev/fd/[0-9]+\.\"x$` {
		t.Errorf("regex parsed as %q (kind %d)", re.text, re.kind)
	}
	if c := rule.list[2].comment; c != "; \"not a string" {
		t.Errorf("comment before the literal is %q", c)
	}
	if rule.line != 2 || rule.list[3].line != 4 {
		t.Errorf("lines %d and %d, want 2 and 4", rule.line, rule.list[3].line)
	}
}

type sbKind int

const (
	sbSymbol sbKind = iota // a name or a number
	sbString
	sbRegex // #"…"
	sbList
)

// sbNode is one parsed element of a Seatbelt profile (SBPL, a Scheme).
type sbNode struct {
	kind    sbKind
	text    string // a symbol's name, or a string's or regex's value
	list    []sbNode
	comment string // the comment lines right before the node, if any
	line    int
}

// String prints n back in one line, for messages and comparisons.
func (n sbNode) String() string {
	switch n.kind {
	case sbString:
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(n.text) + `"`
	case sbRegex:
		return `#"` + n.text + `"`
	case sbList:
		parts := make([]string, len(n.list))
		for i, c := range n.list {
			parts[i] = c.String()
		}
		return "(" + strings.Join(parts, " ") + ")"
	}
	return n.text
}

// parseSBPL reads a whole profile into its top-level forms.
func parseSBPL(src string) ([]sbNode, error) {
	p := &sbParser{src: src, line: 1}
	var forms []sbNode
	for {
		p.skip()
		if p.pos == len(p.src) {
			return forms, nil
		}
		n, err := p.node()
		if err != nil {
			return nil, err
		}
		forms = append(forms, n)
	}
}

type sbParser struct {
	src      string
	pos      int
	line     int
	comments []string // comment lines read since the last node
}

// skip passes over white space and comments, keeping the comments for the
// next node.
func (p *sbParser) skip() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case '\n':
			p.line++
			p.pos++
		case ' ', '\t', '\r':
			p.pos++
		case ';':
			end := strings.IndexByte(p.src[p.pos:], '\n')
			if end < 0 {
				end = len(p.src) - p.pos
			}
			p.comments = append(p.comments, p.src[p.pos:p.pos+end])
			p.pos += end
		default:
			return
		}
	}
}

func (p *sbParser) node() (sbNode, error) {
	n := sbNode{line: p.line, comment: strings.Join(p.comments, "\n")}
	p.comments = nil
	switch {
	case p.src[p.pos] == '(':
		n.kind = sbList
		p.pos++
		for {
			p.skip()
			if p.pos == len(p.src) {
				return n, fmt.Errorf("line %d: ( is not closed", n.line)
			}
			if p.src[p.pos] == ')' {
				p.pos++
				p.comments = nil
				return n, nil
			}
			c, err := p.node()
			if err != nil {
				return n, err
			}
			n.list = append(n.list, c)
		}
	case p.src[p.pos] == ')':
		return n, fmt.Errorf("line %d: unexpected )", p.line)
	case p.src[p.pos] == '"':
		n.kind = sbString
		p.pos++
		return p.str(n, true)
	case strings.HasPrefix(p.src[p.pos:], `#"`):
		n.kind = sbRegex
		p.pos += 2
		return p.str(n, false)
	}
	start := p.pos
	for p.pos < len(p.src) && !strings.ContainsRune(" \t\r\n();\"", rune(p.src[p.pos])) {
		p.pos++
	}
	n.kind, n.text = sbSymbol, p.src[start:p.pos]
	return n, nil
}

// str reads up to the closing quote. A string's escapes are decoded; a
// regular expression keeps its backslashes for the regex engine, and \"
// only stops the quote from ending it.
func (p *sbParser) str(n sbNode, decode bool) (sbNode, error) {
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch {
		case c == '"':
			n.text = b.String()
			return n, nil
		case c == '\n':
			p.line++
		case c == '\\' && p.pos < len(p.src):
			e := p.src[p.pos]
			p.pos++
			if !decode {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			switch e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return n, fmt.Errorf("line %d: unknown escape \\%c in a string", p.line, e)
			}
			continue
		}
		b.WriteByte(c)
	}
	return n, fmt.Errorf("line %d: unterminated string", n.line)
}

// Two denials carve secrets out of broad reads: other processes' arguments
// and environment (kern.procargs*) out of sysctl-read, and the user's
// terminals out of file-read*. Seatbelt lets a later rule override an
// earlier one, so each must follow its allow, and the terminal pattern
// must catch every kind of terminal device and nothing else.
func TestSeatbeltProfileKeepsSecretsOut(t *testing.T) {
	t.Parallel()
	forms, err := parseSBPL(seatbeltProfile)
	if err != nil {
		t.Fatal(err)
	}
	at := func(rule string) int {
		for i, f := range forms {
			if f.String() == rule {
				return i
			}
		}
		return -1
	}
	for _, pair := range [][2]string{
		{`(allow sysctl-read)`, `(deny sysctl-read (sysctl-name-prefix "kern.procargs"))`},
		{`(allow file-read*)`, ""},
	} {
		if a := at(pair[0]); a < 0 {
			t.Errorf("the profile has no %s", pair[0])
		} else if pair[1] != "" && at(pair[1]) < a {
			t.Errorf("%s must come after %s", pair[1], pair[0])
		}
	}
	var ttys *regexp.Regexp
	for i, f := range forms {
		if s := f.String(); strings.HasPrefix(s, "(deny file-read-data (regex ") {
			if i < at(`(allow file-read*)`) {
				t.Errorf("%s comes before (allow file-read*), which overrides it", s)
			}
			re := f.list[2].list[1].text
			if ttys, err = regexp.Compile(re); err != nil {
				t.Fatalf("the terminal pattern %q: %v", re, err)
			}
		}
	}
	if ttys == nil {
		t.Fatal("the profile does not deny reading terminal devices")
	}
	for _, p := range []string{"/dev/tty", "/dev/ttys000", "/dev/ttys012", "/dev/ttyp0", "/dev/ptyqf", "/dev/ptmx", "/dev/console", "/dev/cu.usbserial-1", "/dev/tty.Bluetooth-Incoming-Port"} {
		if !ttys.MatchString(p) {
			t.Errorf("%s can still be read", p)
		}
	}
	for _, p := range []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/fd/0", "/dev/stdin", "/dev/disk0", "/dev/ttys", "/dev/ttysx", "/dev/consolex"} {
		if ttys.MatchString(p) {
			t.Errorf("%s is refused too", p)
		}
	}
}

// The profile of an approved run with a scope: the read-only profile, then
// one write grant per place, one refusal per kept place after them (later
// rules win), and the network and signals only when granted.
func TestSeatbeltScopeGolden(t *testing.T) {
	profile := seatbeltProfile + seatbeltHiding(1) + seatbeltScope(2, 2, 1, 1, true, false)
	checkGolden(t, "sandbox_darwin_scope.sb", profile)
	for i := range 2 {
		grant := strings.Index(profile, fmt.Sprintf("(allow file-write* (subpath (param \"WRITE%d\")))", i))
		keep := strings.Index(profile, fmt.Sprintf("(deny file-write* (subpath (param \"KEEP%d\")))", i))
		if grant < 0 || keep < 0 || keep < grant || grant < strings.Index(profile, "(deny default)") {
			t.Errorf("WRITE%d at %d, KEEP%d at %d: each kept place must be refused after every grant", i, grant, i, keep)
		}
	}
	if !strings.Contains(profile, "\n(allow network*)\n") || strings.Contains(profile, "\n(allow signal)\n") {
		t.Error("the network is granted and signals are not")
	}
	if seatbeltScope(0, 0, 0, 0, false, false) != "" {
		t.Error("an empty scope adds nothing")
	}
	for _, order := range [][2]string{{"(deny file-write-unlink (subpath (param \"NOREMOVE0\")))", "(allow file-write-unlink (subpath (param \"UNLINK0\")))"},
		{"(allow file-write-unlink (subpath (param \"UNLINK0\")))", "(deny file-write* (subpath (param \"KEEP0\")))"}} {
		if a, b := strings.Index(profile, order[0]), strings.Index(profile, order[1]); a < 0 || b < a {
			t.Errorf("%s must come before %s", order[0], order[1])
		}
	}
	args := SeatbeltArgs("/tmp/run", nil, &scope.Scope{Write: []string{"/Users/me", "/Users/me/Downloads/old"}, NoRemove: []string{"/Users/me"}})
	if !slices.Contains(args, "NOREMOVE0=/Users/me") || !slices.Contains(args, "UNLINK0=/Users/me/Downloads/old") || slices.Contains(args, "UNLINK1=/Users/me") {
		t.Errorf("a home it may not empty, and the deletion inside it, are not passed as parameters: %q", args)
	}
	args = SeatbeltArgs("/tmp/run", nil, &scope.Scope{Write: []string{"/Users/me/proj"}, Keep: []string{"/Users/me/proj/.envrc"}})
	if !slices.Contains(args, "WRITE0=/Users/me/proj") || !slices.Contains(args, "KEEP0=/Users/me/proj/.envrc") {
		t.Errorf("the places are not passed as parameters: %q", args)
	}
}
