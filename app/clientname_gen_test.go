package app

import (
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// lookalikeBlocks are the Unicode blocks whose letters, digits and
// symbols are known to hold glyphs drawn like Latin ones. Every
// character of them is tried, not a chosen few, so a lookalike nobody
// listed is tried too.
var lookalikeBlocks = []struct {
	name   string
	lo, hi rune
}{
	{"Latin-1 Supplement", 0x00c0, 0x00ff},
	{"Latin Extended-A", 0x0100, 0x017f},
	{"Latin Extended-B", 0x0180, 0x024f},
	{"IPA Extensions", 0x0250, 0x02af},
	{"Greek and Coptic", 0x0370, 0x03ff},
	{"Cyrillic", 0x0400, 0x04ff},
	{"Cyrillic Supplement", 0x0500, 0x052f},
	{"Armenian", 0x0530, 0x058f},
	{"Cherokee", 0x13a0, 0x13ff},
	{"Canadian Syllabics", 0x1400, 0x167f},
	{"Phonetic Extensions", 0x1d00, 0x1dbf},
	{"Latin Extended Additional", 0x1e00, 0x1eff},
	{"Greek Extended", 0x1f00, 0x1fff},
	{"Letterlike Symbols", 0x2100, 0x214f},
	{"Enclosed Alphanumerics", 0x2460, 0x24ff},
	{"Latin Extended-C", 0x2c60, 0x2c7f},
	{"Coptic", 0x2c80, 0x2cff},
	{"Lisu", 0xa4d0, 0xa4ff},
	{"Latin Extended-D", 0xa720, 0xa7ff},
	{"Latin Extended-E", 0xab30, 0xab6f},
	{"Cherokee Supplement", 0xab70, 0xabbf},
	{"Fullwidth Forms", 0xff01, 0xff5e},
	{"Mathematical Alphanumeric Symbols", 0x1d400, 0x1d7ff},
	{"Enclosed Alphanumeric Supplement", 0x1f100, 0x1f1ff},
}

// standsIn reports whether r, put where Latin letter l is, could be
// taken for it: one visible character that is neither a mark nor a
// separator and does not decompose into some other Latin letter (a
// fullwidth Ｂ is a B, not an H in disguise).
func standsIn(r, l rune) bool {
	if !unicode.In(r, unicode.L, unicode.N, unicode.S) {
		return false
	}
	var kept []rune
	for _, d := range norm.NFKD.String(string(r)) {
		if !unicode.In(d, unicode.M) {
			kept = append(kept, d)
		}
	}
	if len(kept) != 1 {
		return false
	}
	d := kept[0]
	if d < 0x80 {
		return unicode.ToLower(d) == l
	}
	return unicode.In(d, unicode.L, unicode.N, unicode.S)
}

// TestClientNameGeneratedLookalikes: "Hark" with any one of its letters
// replaced by any character of the lookalike blocks that stands in for
// it, in three casings, and "Hark" set beside another program's name
// with any separator between them, are all marked as another program.
func TestClientNameGeneratedLookalikes(t *testing.T) {
	t.Parallel()
	var forms []string
	for _, base := range []string{"Hark", "hark", "HARK"} {
		letters := []rune(base)
		for _, b := range lookalikeBlocks {
			for r := b.lo; r <= b.hi; r++ {
				for i, l := range letters {
					if !standsIn(r, unicode.ToLower(l)) {
						continue
					}
					name := []rune(base)
					name[i] = r
					forms = append(forms, string(name))
				}
			}
		}
	}
	// The forms an audit found unmarked, kept by name.
	forms = append(forms, "Ꮋark", "հark", "Ⲏark", "ⱧARK", "Ꞧark", "Hꭺrk", "Haꮢk", "Haꭇk", "Haᴦk", "Ӊark", "Ԋark")
	subs := len(forms)

	var seps []string
	for c := rune(0x21); c < 0x7f; c++ {
		if unicode.IsPunct(c) || unicode.IsSymbol(c) {
			seps = append(seps, string(c))
		}
	}
	seps = append(seps, " ", "\u00a0", "\u3000", "\t", "—", "–", "‐", "·", "•", "…", "⁄", "∕", "→", "№", "🙂", "2",
		"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c", "\u3164")
	for _, other := range []string{"Claude", "claude", "CLAUDE", "Cursor", "Zed", "goose", "Codex", "my-client", "クロード"} {
		for _, hark := range []string{"Hark", "hark", "HARK", "Ꮋark", "հark"} {
			for _, s := range seps {
				forms = append(forms, other+s+hark, hark+s+other)
			}
		}
	}

	failed := [2]int{}
	for i, name := range forms {
		if namesHark(name) {
			continue
		}
		kind := 0
		if i >= subs {
			kind = 1
		}
		if failed[kind]++; failed[kind] <= 20 {
			t.Errorf("%+q is not marked as another program", name)
		}
	}
	if failed != [2]int{} {
		t.Errorf("not marked: %d of %d with a lookalike letter, %d of %d with a separator",
			failed[0], subs, failed[1], len(forms)-subs)
	}
	for _, name := range []string{"Ꮋark", "Claude:Hark", "Claude—Hark", "ClaudeHark", "H.a.r.k"} {
		if got := spokenClient(name); !strings.HasPrefix(got, "Another program that calls itself") {
			t.Errorf("%+q is spoken as %q", name, got)
		}
	}
	t.Logf("%d forms: %d with a lookalike letter, %d with a separator", len(forms), subs, len(forms)-subs)
}

// TestClientNameInnocent: names that only share letters with Hark, or
// hold "hark" inside a longer word, are shown as they are.
func TestClientNameInnocent(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"Claude Desktop", "Cursor", "Zed", "Goose", "Codex", "Sharkbot", "Harkness", "Mark", "Shark", "SHARK",
		"Charkov", "Park", "Hank", "Harp", "Dark Reader", "Sharky's Tools", "shark-mcp", "Harkonnen", "Bark.app",
		"Ark", "Hawk", "Harm", "Larks", "Claude 3.5", "VS Code", "GitHub Copilot", "Курсор", "克劳德",
		"Sh@rk", "C# Tools", "user@host", "R&D", "a|b", "Mark#1", "Shark|<tools>", "s^rk", "#hashtag",
	} {
		if got := ClientName(name); got != name {
			t.Errorf("%q is shown as %q", name, got)
		}
		if got := spokenClient(name); strings.Contains(got, "calls itself") {
			t.Errorf("%q is spoken as %q", name, got)
		}
	}
}

// TestClientNameASCIILetterSigns: "Hark" spelt with the ASCII signs drawn
// like its letters, in every combination ("H@rk", "|-|4|2|<", "#/-\rk"),
// alone and beside another program's name, is marked as another program.
func TestClientNameASCIILetterSigns(t *testing.T) {
	t.Parallel()
	ways := [][]string{
		{"h", "H", "#", "|-|", "}{", "]-[", ")-("},
		{"a", "A", "@", "^", "4", "/-\\", "/\\"},
		{"r", "R", "2", "|2", "|?", "|Z"},
		{"k", "K", "|<", "|{", "|("},
	}
	forms := []string{""}
	for _, letter := range ways {
		var next []string
		for _, f := range forms {
			for _, w := range letter {
				next = append(next, f+w)
			}
		}
		forms = next
	}
	n := len(forms)
	for _, f := range forms[:n] {
		forms = append(forms, "Claude "+f, f+"-Claude", "Claude:"+f)
	}
	failed := 0
	for _, name := range forms {
		if !namesHark(name) {
			if failed++; failed <= 20 {
				t.Errorf("%q is not marked as another program", name)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d forms not marked", failed, len(forms))
	}
	t.Logf("%d forms, %d spellings", len(forms), n)
}
