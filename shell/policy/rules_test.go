package policy

import (
	"sort"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestRuleExamples classifies the examples the table's entries carry: each
// must get the tier it is listed under and run the entry's own program, so
// an example cannot quietly be about something else.
func TestRuleExamples(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	var names []string
	for name := range programs {
		names = append(names, name)
	}
	sort.Strings(names)
	entries, examples := 0, 0
	for _, name := range names {
		ex := programs[name].examples
		lists := []struct {
			tier Tier
			cmds []string
		}{{Safe, ex.safe}, {Confirm, ex.asks}, {Forbidden, ex.refuses}}
		if len(ex.safe)+len(ex.asks)+len(ex.refuses) > 0 {
			entries++
		}
		for _, l := range lists {
			for _, cmd := range l.cmds {
				examples++
				t.Run(name+"/"+cmd, func(t *testing.T) {
					if got := firstProgram(t, cmd); got != name {
						t.Errorf("example %q of %s runs %q first", cmd, name, got)
					}
					if v := p.Classify(cmd); v.Tier != l.tier {
						t.Errorf("Classify(%q).Tier = %s, want %s; reasons: %v", cmd, v.Tier, l.tier, v.Reasons)
					}
				})
			}
		}
	}
	// A table that lost its examples would pass the loop above vacuously.
	if entries < 10 || examples < 30 {
		t.Errorf("only %d entries carry %d examples; expected at least 10 and 30", entries, examples)
	}
}

// firstProgram returns the program word of the first simple command in cmd.
func firstProgram(t *testing.T, cmd string) string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		t.Fatalf("example %q does not parse: %v", cmd, err)
	}
	name := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && name == "" && len(call.Args) > 0 {
			name = decodeWord(call.Args[0]).val
		}
		return name == ""
	})
	return name
}
