package plan

import "strings"

// Awk is an awk command line as awk (gawk's options included) reads it:
// the one reading the policy and the rules share.
type Awk struct {
	// Programs are each -e and --source value, or else the first operand
	// (ProgramOperand).
	Programs       []string
	ProgramOperand bool
	// Files are the indexes, in the arguments, of the other operands.
	Files []int
	// Sandbox: gawk's --sandbox (-S), which turns off system(), pipes and
	// redirections.
	Sandbox bool
	// FromFile: awk code comes from a file (-f, -E, -i, -l and their long
	// forms), which Hark does not read.
	FromFile bool
	// First is the first option that makes the line more than a read, in
	// the order written, and Why what it does; "" when none.
	First, Why string
}

const (
	awkFromFile = "runs awk code from a file"
	awkWrites   = "writes a file"
)

// awkLong are awk's long options (gawk's), with what each does: "value"
// takes the next word when none is attached; a reason makes the line more
// than a read; "" is a plain switch.
var awkLong = map[string]string{
	"--file": awkFromFile, "--exec": awkFromFile, "--include": awkFromFile, "--load": awkFromFile,
	"--dump-variables": awkWrites, "--pretty-print": awkWrites, "--profile": awkWrites, "--debug": awkWrites,
	"--source": "value", "--field-separator": "value", "--assign": "value",
	"--sandbox": "", "--posix": "", "--traditional": "", "--compat": "", "--characters-as-bytes": "", "--lint": "",
	"--bignum": "", "--re-interval": "", "--optimize": "", "--no-optimize": "", "--non-decimal-data": "",
	"--use-lc-numeric": "", "--csv": "", "--version": "", "--help": "", "--copyright": "", "--gen-pot": "",
}

// ReadAwk reads awk's arguments (after the program's name). A word Hark
// cannot tell should be passed as "": it counts as an operand.
func ReadAwk(args []string) Awk {
	var w Awk
	note := func(opt, why string) {
		if w.First == "" {
			w.First, w.Why = opt, why
		}
		if why == awkFromFile {
			w.FromFile = true
		}
	}
	names := make(map[string]bool, len(awkLong))
	for k := range awkLong {
		names[k] = true
	}
	var operands []int
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func(attached string) string {
			if attached != "" {
				return attached
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				operands = append(operands, j)
			}
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			long := longOption(name, names)
			what, known := awkLong[long]
			switch {
			case !known:
				note(a, "unknown awk option")
			case long == "--source":
				if !hasVal {
					val = value("")
				}
				w.Programs = append(w.Programs, val)
			case what == "value":
				if !hasVal {
					value("")
				}
			case long == "--sandbox":
				w.Sandbox = true
			case what != "":
				if what == awkFromFile && !hasVal {
					value("") // the file
				}
				note(a, what)
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'f', 'E', 'i', 'l':
					value(a[j+1:]) // the file
					note(a, awkFromFile)
					j = len(a)
				case 'W':
					value(a[j+1:])
					note(a, "-W options can run awk code from a file or write files")
					j = len(a)
				case 'd', 'D', 'o', 'p':
					note(a, awkWrites)
					j = len(a)
				case 'S':
					w.Sandbox = true
				case 'e':
					w.Programs = append(w.Programs, value(a[j+1:]))
					j = len(a)
				case 'F', 'v':
					value(a[j+1:])
					j = len(a)
				}
			}
		default:
			operands = append(operands, i)
		}
	}
	w.Programs, w.ProgramOperand, w.Files = scriptOperand(args, w.Programs, w.FromFile, operands)
	return w
}
