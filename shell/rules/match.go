package rules

import (
	"os"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// matchesLoose is how ask and never rules match a simple command: the
// program, then the rule's words in order anywhere after it. A word
// matches an argument spelt the same, or, when the word names a path,
// an argument that lands on the same file at one of the folders the
// command may run in (see the package doc). A folder-scoped rule applies
// where the command runs in its folder, and to a path word that lands in
// the folder from anywhere.
//
// maybe is non-empty when the rule might match but it cannot be told (an
// argument or a folder only known when the command runs): the caller
// asks rather than skip the rule.
func (r *resolver) matchesLoose(rule Rule, c call) (match bool, maybe string) {
	if c.program == "" || !strings.EqualFold(c.program, rule.Program) {
		return false, ""
	}
	folder, folderReal := "", ""
	if rule.Folder != "" {
		folder = expandFolder(rule.Folder, r.home)
		folderReal = r.real(folder)
	}
	for _, p := range c.places {
		if p.Unknown != "" {
			// Only the spelling is known here: a word equal to the rule's
			// matches when no folder scope is in question, and a path
			// word may land anywhere.
			d, pos := matchItems(rule.Words, spelledItems(c.words), func(w, a string) (bool, bool) {
				return w == a && folder == "", w == a || !strings.HasPrefix(a, "-") && r.pathWord(w, nil)
			})
			if d {
				return true, ""
			}
			if pos {
				maybe = p.Unknown
			}
			continue
		}
		here := folder == "" || within(r.real(p.Dir), folderReal) || within(p.Dir, folder)
		if here && inOrder(rule.Words, c.args, func(w, a string) bool { return w == a }) {
			return true, ""
		}
		// Each word on its own, so that one unknown word leaves the
		// others' names to match.
		items := make([]item, 0, len(c.words))
		why := ""
		for _, w := range c.words {
			ex := r.env.Expand(p, []*syntax.Word{w})
			if ex.Unknown != "" {
				items = append(items, item{wild: true, one: oneField(w)})
				if why == "" {
					why = ex.Unknown
				}
				continue
			}
			it := item{}
			for _, f := range ex.Fields {
				it.fields = append(it.fields, f.Value)
			}
			items = append(items, it)
		}
		d, pos := matchItems(rule.Words, items, func(w, a string) (bool, bool) {
			ok, m := r.wordMatches(w, a, p.Dir, here, folder)
			if m != "" && why == "" {
				why = m
			}
			return ok, m != ""
		})
		if d {
			return true, ""
		}
		if pos && why != "" {
			maybe = why
		}
	}
	return false, maybe
}

// item is what one word of a command gives its program: known fields, or
// a value only known when it runs (wild), which is one field when the
// word is quoted whole and any number otherwise.
type item struct {
	fields []string
	wild   bool
	one    bool
}

// matchItems says whether words appear in order among the items' fields:
// surely (definite), or possibly once unknown words and answers eq could
// not give are allowed to be anything. eq says whether a rule word surely
// matches a field, and whether it may.
func matchItems(words []string, items []item, eq func(w, a string) (yes, may bool)) (definite, possible bool) {
	n := len(words)
	d := make([]bool, n+1) // d[i]: the first i words surely matched so far
	p := make([]bool, n+1) // p[i]: possibly matched
	d[0], p[0] = true, true
	for _, it := range items {
		if it.wild {
			if it.one {
				for i := n - 1; i >= 0; i-- {
					p[i+1] = p[i+1] || p[i]
				}
				continue
			}
			for i := 0; i <= n; i++ {
				if p[i] {
					for j := i; j <= n; j++ {
						p[j] = true
					}
					break
				}
			}
			continue
		}
		for _, f := range it.fields {
			for i := n - 1; i >= 0; i-- {
				if !d[i] && !p[i] {
					continue
				}
				yes, may := eq(words[i], f)
				d[i+1] = d[i+1] || d[i] && yes
				p[i+1] = p[i+1] || p[i] && (yes || may)
			}
		}
	}
	return d[n], p[n]
}

// spelledItems are words as written, for a place where nothing else is
// known: a literal word is itself (a pattern may be anything), the rest
// only known when the command runs.
func spelledItems(words []*syntax.Word) []item {
	out := make([]item, 0, len(words))
	for _, w := range words {
		if s, ok := literalWord(w); ok && !strings.ContainsAny(s, "*?[") {
			out = append(out, item{fields: []string{s}})
			continue
		}
		out = append(out, item{wild: true, one: oneField(w)})
	}
	return out
}

// oneField says whether a word surely expands to exactly one field: it is
// quoted whole, apart from literal text that holds no pattern or brace.
func oneField(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.DblQuoted, *syntax.SglQuoted:
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, "*?[{~") {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// inOrder says whether words appear in args in this order, gaps allowed.
func inOrder(words, args []string, eq func(w, a string) bool) bool {
	i := 0
	for _, a := range args {
		if i < len(words) && eq(words[i], a) {
			i++
		}
	}
	return i == len(words)
}

// wordMatches says whether the rule word w matches the argument a given to
// a command run in dir; maybe says why a cannot be told.
func (r *resolver) wordMatches(w, a, dir string, here bool, folder string) (bool, string) {
	if here && w == a {
		return true, ""
	}
	var bases []string
	if here {
		bases = append(bases, dir)
	}
	if folder != "" {
		bases = append(bases, folder)
	}
	if strings.HasPrefix(a, "-") || !r.pathWord(w, bases) {
		return false, ""
	}
	got, why := r.path(dir, a)
	if why != "" {
		return false, why
	}
	for _, b := range bases {
		want, why := r.path(b, tilde(w, r.home))
		if why == "" && want == got {
			return true, ""
		}
	}
	return false, ""
}

// pathWord says whether a rule word names a path: it starts with ~ or /,
// holds a '/' or a '.', or names something that exists in one of the
// folders the rule is read in. Options (-x, --x) never do.
func (r *resolver) pathWord(w string, bases []string) bool {
	if w == "" || strings.HasPrefix(w, "-") {
		return false
	}
	if strings.HasPrefix(w, "~") || strings.ContainsAny(w, "/.") {
		return true
	}
	for _, b := range bases {
		if _, err := os.Lstat(b + "/" + w); err == nil {
			return true
		}
	}
	return false
}

// tilde expands a rule word's leading ~ or ~/.
func tilde(w, home string) string {
	switch {
	case w == "~":
		return home
	case strings.HasPrefix(w, "~/"):
		return home + w[1:]
	}
	return w
}
