// Package visible renders text that came from outside Hark — a command the
// model proposed, a file name, a rule, a command's output — so that every
// character in it shows up when it reaches a terminal or a menu. A terminal
// obeys escape sequences, carriage returns and backspaces, and bidirectional
// overrides and zero-width characters make one text look like another; each
// such character becomes ⟨U+XXXX⟩, so what the user reads (and approves) is
// what the text really holds. The app's menu, the previews and every listing
// and prompt of the hark command go through this one table.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text shows every hidden character of s as ⟨U+XXXX⟩ and keeps line breaks
// and tabs: for blocks such as command output or a multi-line command.
// Bytes that are not UTF-8 become ⟨0xNN⟩, so that two names differing only
// in a broken byte still look different. The result holds only printable
// characters, spaces, tabs and newlines, and rendering it again changes
// nothing.
func Text(s string) string { return render(s, true) }

// Line is Text for a text that must stay on one line — a table cell, a
// list item, a file name — so newlines and tabs become ⟨U+000A⟩ and
// ⟨U+0009⟩ too, and no name can pass for two.
func Line(s string) string { return render(s, false) }

// Hidden reports whether Text would change s: whether s holds a character
// a reader could not see as it is, so a prompt can warn before asking.
func Hidden(s string) bool { return Text(s) != s }

func render(s string, keepBreaks bool) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if hides(r, size, keepBreaks) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "⟨0x%02X⟩", s[i])
		case hides(r, size, keepBreaks):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hides reports whether r (of size bytes in the input) cannot be shown as
// it is.
func hides(r rune, size int, keepBreaks bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepBreaks
	case r == ' ':
		return false
	case r < 0x7f:
		return r < 0x20
	case r == utf8.RuneError:
		return size == 1
	}
	// Controls (DEL, C1 with U+009B, the 8-bit CSI), format characters
	// (bidirectional overrides and isolates, zero-width spaces and joiners,
	// the byte order mark), spaces other than U+0020, line and paragraph
	// separators, private use and unassigned code points, and the few
	// printable characters that render as nothing.
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) || blank(r)
}

// blank lists characters outside those categories that render as nothing:
// Hangul fillers, the combining grapheme joiner, the blank Braille pattern
// and variation selectors.
func blank(r rune) bool {
	switch {
	case r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0', r == '\u034f', r == '\u2800':
		return true
	case r >= '\ufe00' && r <= '\ufe0f', r >= 0xe0100 && r <= 0xe01ef:
		return true
	}
	return false
}
