package plan

import "strings"

// Sed is a sed command line as sed reads it: the one reading the policy,
// the preview and the rules share, so that none of them takes a spelling
// (--in-pl=.bak, -ni, -i -e …) for something the others do not.
type Sed struct {
	// Scripts are each -e and --expression value, or else the first
	// operand (ScriptOperand).
	Scripts       []string
	ScriptOperand bool
	// FromFile: a script comes from a file (-f, --file), which Hark does
	// not read.
	FromFile bool
	// InPlace: it edits its files in place (-i, -I, --in-place); BareI:
	// with no suffix attached, so BSD sed takes the next word for one.
	InPlace, BareI bool
	// Files are the indexes, in the arguments, of the operands sed reads
	// (and, in place, rewrites): every operand but a script.
	Files []int
	// First is the first option that makes the line more than a read, in
	// the order written, and Why what it does: "edits files in place",
	// "runs a script from a file" or "unknown sed option"; "" when none.
	First, Why string
}

// sedLong are GNU sed's long options; true for those that take a value
// as the next word when none is attached.
var sedLong = map[string]bool{
	"--in-place": false, "--file": true, "--expression": true, "--line-length": true,
	"--quiet": false, "--silent": false, "--regexp-extended": false, "--separate": false,
	"--null-data": false, "--unbuffered": false, "--posix": false, "--debug": false,
	"--sandbox": false, "--follow-symlinks": false, "--zero-terminated": false,
	"--help": false, "--version": false, "--binary": false,
}

// longOption is the long option name abbreviates among opts, as getopt
// reads it (a unique prefix, or the whole name); "" when it names none
// or more than one.
func longOption(name string, opts map[string]bool) string {
	if _, ok := opts[name]; ok {
		return name
	}
	found := ""
	for o := range opts {
		if len(name) > 2 && strings.HasPrefix(o, name) {
			if found != "" {
				return ""
			}
			found = o
		}
	}
	return found
}

// ReadSed reads sed's arguments (after the program's name). bsd reads a
// bare -i as BSD and macOS sed do, taking the next word for its suffix.
// A word that is not a plain string (one Hark cannot tell) should be
// passed as "" or anything not starting with "-": it counts as an operand.
func ReadSed(args []string, bsd bool) Sed {
	var s Sed
	note := func(opt, why string) {
		if s.First == "" {
			s.First, s.Why = opt, why
		}
	}
	var operands []int
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				operands = append(operands, j)
			}
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			long := longOption(name, sedLong)
			if !hasVal && sedLong[long] && i+1 < len(args) {
				i++
				val = args[i]
			}
			switch long {
			case "--in-place":
				s.InPlace = true
				note(a, "edits files in place")
			case "--file":
				s.FromFile = true
				note(a, "runs a script from a file")
			case "--expression":
				s.Scripts = append(s.Scripts, val)
			case "":
				note(a, "unknown sed option")
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'n', 'E', 'r', 's', 'u', 'z', 'b':
				case 'i', 'I':
					s.InPlace = true
					note(a, "edits files in place")
					s.BareI = j == len(a)-1
					if s.BareI && bsd && i+1 < len(args) {
						i++ // the suffix, often empty
					}
					j = len(a) // the rest is the backup suffix
				case 'f', 'e', 'l':
					val := a[j+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i]
					}
					switch a[j] {
					case 'f':
						s.FromFile = true
						note(a, "runs a script from a file")
					case 'e':
						s.Scripts = append(s.Scripts, val)
					}
					j = len(a)
				default:
					note(a, "unknown sed option")
				}
			}
		default:
			operands = append(operands, i)
		}
	}
	s.Scripts, s.ScriptOperand, s.Files = scriptOperand(args, s.Scripts, s.FromFile, operands)
	return s
}

// scriptOperand is where sed and awk find their script when no option
// gave one: the first operand, which is then no file.
func scriptOperand(args, scripts []string, fromFile bool, operands []int) (_ []string, isOperand bool, files []int) {
	if len(scripts) == 0 && !fromFile && len(operands) > 0 {
		return []string{args[operands[0]]}, true, operands[1:]
	}
	return scripts, false, operands
}
