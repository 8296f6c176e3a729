package plan

import (
	"slices"
	"strings"
)

// Find is how find's arguments split, as find reads them: the options
// before the starting points, the starting points, and where the
// expression begins. The policy, the preview and the Trash share it, so
// that none takes a starting point for a test or an option for a path.
type Find struct {
	// Head are the indexes of the options before the starting points:
	// -H -L -P, GNU's -D x and -Ox, BSD's -E -X -s -x -d and -f path.
	Head []int
	// Starts are the indexes of the starting points.
	Starts []int
	// Expr is the index where the expression begins (len(args) when it
	// has none).
	Expr int
}

// ReadFind splits find's arguments (after the program's name).
func ReadFind(args []string) Find {
	var f Find
	i := 0
head:
	for i < len(args) {
		v := args[i]
		switch {
		case v == "-D" || v == "-f":
			f.Head = append(f.Head, i)
			if i+1 < len(args) {
				i++
				f.Head = append(f.Head, i)
			}
		case slices.Contains([]string{"-H", "-L", "-P", "-E", "-X", "-s", "-x", "-d"}, v) || strings.HasPrefix(v, "-O") && len(v) > 2:
			f.Head = append(f.Head, i)
		default:
			break head
		}
		i++
	}
	for i < len(args) && !FindExprStart(args[i]) {
		f.Starts = append(f.Starts, i)
		i++
	}
	f.Expr = i
	return f
}

// FindExprStart says whether a word begins find's expression: a test, an
// action or an operator.
func FindExprStart(s string) bool {
	return strings.HasPrefix(s, "-") && len(s) > 1 || s == "(" || s == "!" || s == ","
}
