package app

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// namesHark reports whether a client's claimed name could be read as
// Hark's own: whether some word of it, or letters spread over several
// ("H.a.r.k"), spell h, a, r, k where each letter is either that Latin
// letter in any case or any character that is not a Latin letter but
// could stand in one's place. No list of lookalikes is complete: Unicode
// keeps adding letters drawn like H or k (Cherokee, Armenian, Coptic,
// Lisu, Latin small capitals), so every one of them counts as a
// possible lookalike. A four-letter word in another script ("Клод")
// is marked too; it is another program all the same, so the mark is
// never false, while a missed lookalike would pass for Hark.
//
// Before matching, compatibility forms (fullwidth, mathematical and
// circled letters) become the letters they are drawn as and combining
// marks go. Only whole words count, so "Shark" and "Harkness" are not
// Hark while "Claude:Hark", "HarkDesktop" and "Claude\u200bHark" hold
// it.
func namesHark(client string) bool {
	rs := harkRunes(client)
	for i := range rs {
		if wordStart(rs, i) && spellsHark(rs, i) {
			return true
		}
	}
	return false
}

// harkRune is one character of a client's name as the matching sees it.
type harkRune struct {
	r     rune // the Latin letter, lower case, or the character itself
	latin bool // r is a Latin letter a reader takes at face value
	cand  bool // r may stand where a letter is: a letter, digit or symbol
	upper bool
	lower bool
}

func harkRunes(s string) []harkRune {
	var rs []harkRune
	for len(s) > 0 {
		// A letter drawn with ASCII signs ("|<" for k, "/-\" for a)
		// is one character that may stand where a letter is.
		if n := asciiLetterSign(s); n > 0 {
			rs = append(rs, harkRune{r: -1, cand: true})
			s = s[n:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		d := []rune(norm.NFKD.String(string(r)))
		if len(d) > 1 && !unicode.IsLetter(r) {
			// "№" is "No" and "™" is "TM" only to a search engine; on
			// screen each is one sign, and gluing its letters to the
			// next word would hide "Claude№hark".
			d = []rune{r}
		}
		for _, r := range d {
			if unicode.In(r, unicode.M) {
				continue // accents over a letter keep its look
			}
			rs = append(rs, classify(r))
		}
	}
	return rs
}

func classify(r rune) harkRune {
	h := harkRune{r: unicode.ToLower(r), upper: unicode.IsUpper(r), lower: unicode.IsLower(r)}
	switch {
	case r < 0x80 && unicode.IsLetter(r):
		h.latin, h.cand = true, true
	case r < 0x80:
		// ASCII digits pass for letters (4 for a), and so do the signs
		// drawn like the letters of hark ("H@rk", "#ark"); other ASCII
		// punctuation and symbols are how names are joined
		// ("Claude|Hark").
		h.cand = unicode.IsDigit(r) || strings.ContainsRune(asciiLetterSigns, r)
	case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point):
		// Hangul fillers are letters that render as nothing.
	default:
		h.cand = unicode.In(r, unicode.L, unicode.N, unicode.S)
	}
	return h
}

// asciiLetterSigns are the single ASCII signs drawn like a letter of
// hark: @ and ^ for a, # for h.
const asciiLetterSigns = "@^#"

// asciiLetterSeqs are the letters of hark drawn with several ASCII signs.
var asciiLetterSeqs = []string{
	"|-|", "}{", "]-[", ")-(", // h
	"/-\\", "/\\", // a
	"|2", "|?", "|Z", // r
	"|<", "|{", "|(", // k
}

// asciiLetterSign returns the length of the letter drawn with ASCII signs
// that s starts with, or 0.
func asciiLetterSign(s string) int {
	for _, seq := range asciiLetterSeqs {
		if strings.HasPrefix(s, seq) {
			return len(seq)
		}
	}
	return 0
}

// wordStart reports whether a word begins at rs[i]: after a separator,
// at a change of case as in camel case ("ClaudeHark", "MCPHark"), or
// where cased letters meet uncased ones (digits, symbols, most scripts).
func wordStart(rs []harkRune, i int) bool {
	if !rs[i].cand {
		return false
	}
	if i == 0 || !rs[i-1].cand {
		return true
	}
	p, c := rs[i-1], rs[i]
	switch {
	case cased(p) != cased(c):
		return true
	case c.upper && !p.upper:
		return true
	case c.upper && p.upper:
		return i+1 < len(rs) && rs[i+1].lower
	}
	return false
}

func cased(h harkRune) bool { return h.upper || h.lower }

// spellsHark reports whether the letters from rs[i] on, over any
// separators between them, read as hark and the word ends there.
func spellsHark(rs []harkRune, i int) bool {
	for _, want := range "hark" {
		for i < len(rs) && !rs[i].cand {
			i++
		}
		if i == len(rs) || rs[i].latin && rs[i].r != want {
			return false
		}
		i++
	}
	return i == len(rs) || !rs[i].cand || wordStart(rs, i)
}
