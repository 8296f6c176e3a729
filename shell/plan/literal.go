package plan

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Literal is the one reading of quotes and backslashes in Hark: a word's
// value when it is text under any quoting — unquoted, '…', $'…' and "…"
// holding text only — decoded by the same expander that reads every
// other word, so the policy, the preview, the rules and the Trash agree
// with bash on "a\"b", a\b, "\$x" and $'\x41'. It is not a word that
// expands (a parameter, a substitution, arithmetic, a brace list), a
// $'…' with \c (control characters, which bash reads by rules of its
// own), nor $"…", which a message catalogue may change. $'\u…' is read
// as a UTF-8 locale reads it, as the expander does everywhere.
// It is quote removal only: globs are text here, and a leading unquoted
// ~ stays as written, for the caller to expand or refuse.
func Literal(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) == 0 {
		return "", false
	}
	parts := w.Parts
	// Text with no backslash, $'…' or unquoted brace is itself: most
	// words, and the policy reads every one.
	var plain strings.Builder
	simple := true
	for i, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				// Escaped, the expander leaves it for the caller.
				parts = append([]syntax.WordPart{&syntax.Lit{Value: `\` + p.Value}}, parts[1:]...)
			}
			simple = simple && !strings.ContainsAny(p.Value, `\{`)
			plain.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\c`) {
				return "", false
			}
			simple = simple && !p.Dollar
			plain.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				simple = simple && !strings.Contains(l.Value, `\`)
				plain.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	if simple {
		return plain.String(), true
	}
	// No ReadDir: the expander globs nothing; no Env: it reads nothing.
	fields, err := expand.Fields(&expand.Config{}, &syntax.Word{Parts: parts})
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}
