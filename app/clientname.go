package app

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// namesHark reports whether a client's claimed name could be read as
// Hark's own: any case, compatibility forms (fullwidth, mathematical
// letters), accents and other combining marks, invisible and bidi
// characters, letters of other scripts and digits that look like Latin
// ones, punctuation or spaces between and around the letters, and
// anything after ("Hark.app", "Hark (Hark)"). Only the look of the
// letters counts, so "Hark" spelt with a Cyrillic Н is caught as surely
// as the plain word.
func namesHark(client string) bool {
	sk := skeleton(client)
	if strings.HasPrefix(lettersOnly(sk), "hark") {
		return true
	}
	for _, w := range strings.FieldsFunc(sk, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '[' || r == '/' }) {
		if strings.HasPrefix(lettersOnly(w), "hark") {
			return true
		}
	}
	return false
}

// skeleton is s decomposed (NFKD), without marks and invisible
// characters, with lookalikes mapped to the Latin letter they pass for,
// in lower case.
func skeleton(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point):
			continue
		}
		if l, ok := lookalikes[r]; ok {
			r = l
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func lettersOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return r
		}
		return -1
	}, s)
}

// lookalikes maps letters and digits that pass for Latin letters in a
// menu or notification font to those letters: Cyrillic, Greek, Latin
// small capitals and variants NFKD leaves alone, and digits.
var lookalikes = map[rune]rune{
	// Cyrillic
	'А': 'a', 'а': 'a', 'В': 'b', 'в': 'b', 'Е': 'e', 'е': 'e', 'К': 'k', 'к': 'k', 'М': 'm', 'м': 'm',
	'Н': 'h', 'н': 'h', 'О': 'o', 'о': 'o', 'Р': 'p', 'р': 'p', 'С': 'c', 'с': 'c', 'Т': 't', 'т': 't',
	'Х': 'x', 'х': 'x', 'У': 'y', 'у': 'y', 'І': 'i', 'і': 'i', 'Ј': 'j', 'ј': 'j', 'Ѕ': 's', 'ѕ': 's',
	'Һ': 'h', 'һ': 'h', 'Г': 'r', 'г': 'r', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'Ӏ': 'l', 'ӏ': 'l', 'Қ': 'k', 'қ': 'k',
	'Ҝ': 'k', 'ҝ': 'k', 'Ҟ': 'k', 'ҟ': 'k', 'Ң': 'h', 'ң': 'h', 'Ӈ': 'h', 'ӈ': 'h',
	// Greek
	'Α': 'a', 'α': 'a', 'Β': 'b', 'β': 'b', 'Ε': 'e', 'ε': 'e', 'Ζ': 'z', 'Η': 'h', 'η': 'n', 'Ι': 'i', 'ι': 'i',
	'Κ': 'k', 'κ': 'k', 'Μ': 'm', 'Ν': 'n', 'ν': 'v', 'Ο': 'o', 'ο': 'o', 'Ρ': 'p', 'ρ': 'p', 'Τ': 't', 'τ': 't',
	'Υ': 'y', 'υ': 'u', 'Χ': 'x', 'χ': 'x', 'ϰ': 'k', 'Ϗ': 'k',
	// Latin letters NFKD keeps
	'ʜ': 'h', 'ɦ': 'h', 'ħ': 'h', 'Ħ': 'h', 'ᴀ': 'a', 'ɑ': 'a', 'ɐ': 'a', 'ʀ': 'r', 'ʁ': 'r', 'ɾ': 'r', 'ɼ': 'r',
	'ᴋ': 'k', 'ĸ': 'k', 'ƙ': 'k', 'ɨ': 'i', 'ı': 'i',
	// digits that stand in for letters
	'0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b',
}
