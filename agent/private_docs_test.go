package agent

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated lists in docs/safety.md")

const (
	privateDocStart = "<!-- private list: generated from agent/secrets.go; refresh with go test ./agent -run SafetyDoc -update-docs -->\n"
	privateDocEnd   = "<!-- end of the private list -->\n"
)

// privateDocBlock is the part of docs/safety.md that lists what is
// private and what reads through a service, written from the tables.
func privateDocBlock() string {
	var b strings.Builder
	b.WriteString(privateDocStart)
	b.WriteString("\n| Under your home folder | What it holds |\n|---|---|\n")
	for _, e := range privateHome {
		name := "~/" + e.rel
		if e.dir {
			name += "/"
		}
		b.WriteString("| `" + name + "` | " + e.what + " |\n")
	}
	b.WriteString("\n| Program | Why another program's call asks |\n|---|---|\n")
	names := make([]string, 0, len(serviceReaders))
	for n := range serviceReaders {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		sr := serviceReaders[n]
		prog := "`" + n + "`"
		if len(sr.subs) > 0 {
			prog = "`" + n + " " + strings.Join(sr.subs, "`, `"+n+" ") + "`"
		}
		b.WriteString("| " + prog + " | " + sr.why + " |\n")
	}
	b.WriteString("\n" + privateDocEnd)
	return b.String()
}

// TestSafetyDocListsPrivate: docs/safety.md's "What is private" lists
// exactly the private locations and the service readers of the tables,
// so the two cannot drift.
func TestSafetyDocListsPrivate(t *testing.T) {
	const doc = "../docs/safety.md"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, privateDocStart), strings.Index(text, privateDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated private list (the markers %q … %q)", doc, strings.TrimSpace(privateDocStart), strings.TrimSpace(privateDocEnd))
	}
	if !strings.Contains(text[:i], "## What is private") {
		t.Errorf("the private list is not under the heading \"What is private\"")
	}
	want := privateDocBlock()
	got := text[i : j+len(privateDocEnd)]
	if *updateDocs && got != want {
		if err := os.WriteFile(doc, []byte(text[:i]+want+text[j+len(privateDocEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		got = want
	}
	if got != want {
		t.Errorf("%s's private list differs from agent/secrets.go; run go test ./agent -run SafetyDoc -update-docs", doc)
	}
	for _, e := range privateHome {
		if !strings.Contains(got, "`~/"+e.rel) {
			t.Errorf("%s does not list ~/%s", doc, e.rel)
		}
	}
}
