package policy

import (
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// benchCommand is a typical ~100-character command a model proposes.
const benchCommand = `find ~/Documents -name '*.pdf' -mtime -30 -print0 | xargs -0 du -ch | sort -h | tail -n 20 2>/dev/null`

func BenchmarkClassify(b *testing.B) {
	p := New(Options{})
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

// nestedInputs builds hostile inputs of about size bytes: command
// substitutions, subshells and double-quoted substitutions nested as
// deeply as the size allows, and one pipeline and one arithmetic
// expression of that length.
func nestedInputs(size int) map[string]string {
	grow := func(open, inner, close string) string {
		n := max(1, (size-len(inner))/(len(open)+len(close)))
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	return map[string]string{
		"cmdsubst":  "echo " + grow("$(echo ", "x", ")"),
		"subshell":  grow("(", "ls", ")"),
		"dblquoted": "echo " + grow(`"$(`, "ls", `)"`),
		"pipeline":  strings.Repeat("ls | ", size/5) + "ls",
		"arith":     "echo $((" + strings.Repeat("1+", size/2) + "1))",
	}
}

// BenchmarkClassifyNested shows that classification stays linear in the
// length of deeply nested input: the 100 KB inputs must take well under
// 50 ms.
func BenchmarkClassifyNested(b *testing.B) {
	p := New(Options{})
	for _, size := range []int{1 << 10, 10 << 10, 100 << 10} {
		for _, shape := range []string{"cmdsubst", "subshell", "dblquoted", "pipeline", "arith"} {
			cmd := nestedInputs(size)[shape]
			b.Run(fmt.Sprintf("%s/%dKB", shape, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(cmd)))
				for b.Loop() {
					p.Classify(cmd)
				}
			})
		}
	}
}
