package rules

import (
	"os"
	"slices"
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
			spelled := inOrder(rule.Words, c.args, func(w, a string) bool { return w == a })
			if rule.Folder == "" && spelled {
				return true, ""
			}
			// Where it runs only matters to a folder or a path; literal
			// words that name neither are read as they are spelt.
			if rule.Folder != "" || !c.literal || slices.ContainsFunc(rule.Words, func(w string) bool { return r.pathWord(w, nil) }) {
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
		var fields []string
		unknown := ""
		for _, w := range c.words {
			ex := r.env.Expand(p, []*syntax.Word{w})
			if ex.Unknown != "" {
				unknown = ex.Unknown
				continue
			}
			for _, f := range ex.Fields {
				fields = append(fields, f.Value)
			}
		}
		why := ""
		if inOrder(rule.Words, fields, func(w, a string) bool {
			ok, m := r.wordMatches(w, a, p.Dir, here, folder)
			if m != "" && why == "" {
				why = m
			}
			return ok
		}) {
			return true, ""
		}
		switch {
		case unknown != "" && len(rule.Words) > 0:
			maybe = unknown
		case why != "":
			maybe = why
		}
	}
	return false, maybe
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
