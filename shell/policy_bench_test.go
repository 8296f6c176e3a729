package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// benchCommand is a typical ~100-character command a model proposes.
const benchCommand = `find ~/Documents -name '*.pdf' -mtime -30 -print0 | xargs -0 du -ch | sort -h | tail -n 20 2>/dev/null`

func BenchmarkClassify(b *testing.B) {
	p := NewPolicy()
	if v := p.Classify(benchCommand); v.Tier != Safe {
		b.Fatalf("benchmark command is %s: %v", v.Tier, v.Reasons)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCommand)))
	for b.Loop() {
		p.Classify(benchCommand)
	}
}

// BenchmarkParseOnly is the baseline measured in the same run: parsing the
// same command, which Classify must do anyway. Classify's time divided by
// this one is the cost of the policy itself.
func BenchmarkParseOnly(b *testing.B) {
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCommand)))
	for b.Loop() {
		if _, err := parser.Parse(strings.NewReader(benchCommand), ""); err != nil {
			b.Fatal(err)
		}
	}
}
