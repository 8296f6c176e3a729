package visible

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTextAndLine(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, text, line string }{
		{"ls -la ~/Documents", "ls -la ~/Documents", "ls -la ~/Documents"},
		{"café ünïcode 日本", "café ünïcode 日本", "café ünïcode 日本"},
		{"a\x1b[2Jb", "a⟨U+001B⟩[2Jb", "a⟨U+001B⟩[2Jb"},
		{"x\ry\bz\x7f", "x⟨U+000D⟩y⟨U+0008⟩z⟨U+007F⟩", "x⟨U+000D⟩y⟨U+0008⟩z⟨U+007F⟩"},
		{"one\ntwo\tthree", "one\ntwo\tthree", "one⟨U+000A⟩two⟨U+0009⟩three"},
		{"csi\u009b2J", "csi⟨U+009B⟩2J", "csi⟨U+009B⟩2J"},
		{"rm \u202eexe.txt", "rm ⟨U+202E⟩exe.txt", "rm ⟨U+202E⟩exe.txt"},
		{"a\u200bb\u2060c\ufeffd", "a⟨U+200B⟩b⟨U+2060⟩c⟨U+FEFF⟩d", "a⟨U+200B⟩b⟨U+2060⟩c⟨U+FEFF⟩d"},
		{"nb\u00a0sp", "nb⟨U+00A0⟩sp", "nb⟨U+00A0⟩sp"},
		{"fill\u3164er", "fill⟨U+3164⟩er", "fill⟨U+3164⟩er"},
		{"bad\xffbyte\xc3", "bad⟨0xFF⟩byte⟨0xC3⟩", "bad⟨0xFF⟩byte⟨0xC3⟩"},
		{"real \ufffd stays", "real \ufffd stays", "real \ufffd stays"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got, want := Hidden(c.in), c.text != c.in; got != want {
			t.Errorf("Hidden(%q) = %v, want %v", c.in, got, want)
		}
	}
}

// Every code point the terminal could act on or hide is rendered, and the
// rendering is printable and stable under a second pass.
func TestEveryHiddenRuneIsShown(t *testing.T) {
	t.Parallel()
	var hidden []rune
	for r := rune(0); r < 0x20; r++ {
		if r != '\n' && r != '\t' {
			hidden = append(hidden, r)
		}
	}
	for r := rune(0x7f); r <= 0x9f; r++ {
		hidden = append(hidden, r)
	}
	for _, span := range [][2]rune{{0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x2064}, {0x2066, 0x2069}, {0xfeff, 0xfeff}, {0x2028, 0x2029}, {0xfe00, 0xfe0f}} {
		for r := span[0]; r <= span[1]; r++ {
			hidden = append(hidden, r)
		}
	}
	for _, r := range hidden {
		s := "a" + string(r) + "b"
		got := Text(s)
		if strings.ContainsRune(got, r) {
			t.Errorf("Text(%q) = %q still holds U+%04X", s, got, r)
		}
		if !Hidden(s) {
			t.Errorf("Hidden(%q) = false", s)
		}
		if Text(got) != got || Line(got) != got {
			t.Errorf("rendering %q again changes it", got)
		}
		for _, g := range got {
			if g < 0x20 || g == 0x7f || !utf8.ValidRune(g) {
				t.Errorf("Text(%q) = %q holds U+%04X", s, got, g)
			}
		}
	}
}

func BenchmarkTextClean(b *testing.B) {
	s := strings.Repeat("drwxr-xr-x  5 user staff  160 Jan  1 12:00 Documents\n", 200)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}
