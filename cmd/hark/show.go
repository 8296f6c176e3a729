package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/hark-sh/hark/shell/visible"
)

// Nothing a command, a path, a file name, a rule or a command's output holds
// may reach the terminal raw: a terminal obeys escape sequences, carriage
// returns and backspaces, so a command could paint a harmless one over
// itself at the Run this? prompt. Every print of such text goes through the
// helpers below, which render hidden characters as ⟨U+XXXX⟩ (package
// visible). Hark's own format strings, and its own colours, are not text
// from outside and pass as they are.

// showf is fmt.Fprintf with every string-like argument (string, error,
// fmt.Stringer, a named string type) rendered on one line first, so no
// argument can break a line, forge one of Hark's own lines or hide a
// character. Use it for any print that carries text from outside Hark.
func showf(w io.Writer, format string, args ...any) {
	oneLine(args)
	fmt.Fprintf(w, format, args...)
}

// showln is fmt.Fprintln with its arguments rendered as showf renders them.
func showln(w io.Writer, args ...any) {
	oneLine(args)
	fmt.Fprintln(w, args...)
}

// showText prints a block that may span lines — command output, a
// transcript, a multi-line answer — keeping its newlines and tabs and
// rendering every other hidden character.
func showText(w io.Writer, s string) {
	io.WriteString(w, visible.Text(s))
}

// oneLine renders the string-like values in args with visible.Line, in
// place: args is the slice of a variadic call, so vet still checks the
// formats of showf and showln as it checks fmt's.
func oneLine(args []any) {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = visible.Line(v)
		case error:
			args[i] = visible.Line(v.Error())
		default:
			// A Stringer such as a rule, or a named string type; numbers
			// that are Stringers (durations) stay numbers, for their %d,
			// and a nil pointer is left to fmt's <nil>.
			rv := reflect.ValueOf(a)
			k := rv.Kind()
			if k >= reflect.Bool && k <= reflect.Complex128 || k == reflect.Pointer && rv.IsNil() {
				continue
			}
			if s, ok := a.(fmt.Stringer); ok {
				args[i] = visible.Line(s.String())
			} else if k == reflect.String {
				args[i] = visible.Line(rv.String())
			}
		}
	}
}

// commandBlock renders a command for a prompt: hidden characters as
// ⟨U+XXXX⟩, and each line after the first indented by indent, so a
// multi-line command cannot start a line that looks like one of Hark's.
func commandBlock(command, indent string) string {
	return strings.ReplaceAll(visible.Text(command), "\n", "\n"+indent)
}

// hiddenWarning is the line an approval starts with when the command holds
// characters a reader would not see as they are; "" when it holds none.
func hiddenWarning(command, indent string) string {
	if !visible.Hidden(command) {
		return ""
	}
	return indent + "! Warning: this command contains hidden characters (control, escape, bidirectional or zero-width), shown as ⟨U+XXXX⟩; approve only if you know why they are there.\n"
}

// safeJSON escapes, as \uXXXX, every character of encoded JSON that a
// terminal would act on or not show (encoding/json escapes only C0
// controls, leaving DEL, C1 controls such as U+009B and the bidirectional
// and zero-width characters raw). Such characters can only stand inside
// JSON strings, where the escape means the same, so a program reading the
// output gets identical values and a person reading it sees every one.
func safeJSON(b []byte) []byte {
	s := string(b)
	if !visible.Hidden(s) {
		return b
	}
	var out strings.Builder
	out.Grow(len(s) + 32)
	for _, r := range s {
		if r == '\n' || r == '\t' || !visible.Hidden(string(r)) {
			out.WriteRune(r)
			continue
		}
		if r > 0xffff { // JSON escapes only 16-bit units: a surrogate pair
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			continue
		}
		fmt.Fprintf(&out, `\u%04x`, r)
	}
	return []byte(out.String())
}
