package speech

import (
	"strings"
	"unicode"
)

// Word is one word of a transcript with how sure the transcriber was of
// it: P is the lowest probability among the tokens that spell it (0–1).
type Word struct {
	Text string
	P    float64
}

// Token is one decoded token as whisper gives it: its text, with a leading
// space where a new word begins, and its probability.
type Token struct {
	Text string
	P    float64
}

// UnsureBelow is the probability under which a word is shown as unsure.
const UnsureBelow = 0.5

// WordsFromTokens joins tokens into words. A token that starts with a space
// starts a word; one without continues the last (whisper splits "Downloads"
// into " Down" and "loads"). Tokens that are whisper's own marks
// ("[_BEG_]", "<|en|>") and punctuation-only tokens carry no word and do
// not lower any word's probability.
func WordsFromTokens(tokens []Token) []Word {
	var out []Word
	for _, t := range tokens {
		if isSpecialToken(t.Text) {
			continue
		}
		starts := strings.HasPrefix(t.Text, " ") || len(out) == 0
		text := strings.TrimSpace(t.Text)
		if !hasWords(text) {
			continue
		}
		if starts {
			out = append(out, Word{Text: text, P: t.P})
			continue
		}
		w := &out[len(out)-1]
		w.Text += text
		w.P = min(w.P, t.P)
	}
	return out
}

func isSpecialToken(s string) bool {
	s = strings.TrimSpace(s)
	return (strings.HasPrefix(s, "[_") && strings.HasSuffix(s, "]")) || (strings.HasPrefix(s, "<|") && strings.HasSuffix(s, "|>"))
}

// wordKey is a word compared across a transcript and its tokens: lower
// case, letters and digits only.
func wordKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// Confidence gives the probability of each field of text (strings.Fields),
// matched in order against words; a field no word matches gets -1
// (unknown). Cleaning a transcript drops tags and stock phrases, so words
// and text need not line up one to one.
func Confidence(text string, words []Word) []float64 {
	fields := strings.Fields(text)
	out := make([]float64, len(fields))
	j := 0
	for i, f := range fields {
		out[i] = -1
		k := wordKey(f)
		if k == "" {
			continue
		}
		for n := j; n < len(words); n++ {
			if wordKey(words[n].Text) == k {
				out[i], j = words[n].P, n+1
				break
			}
		}
	}
	return out
}

// MarkUnsure writes text with each word the transcriber was unsure of in
// brackets with a question mark: "delete the old [bills?]". Punctuation
// stays outside the brackets. Without words, text comes back as it is.
func MarkUnsure(text string, words []Word) string {
	if len(words) == 0 {
		return text
	}
	fields := strings.Fields(text)
	ps := Confidence(text, words)
	for i, f := range fields {
		if ps[i] < 0 || ps[i] >= UnsureBelow {
			continue
		}
		core := strings.TrimRightFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		fields[i] = "[" + core + "?]" + f[len(core):]
	}
	return strings.Join(fields, " ")
}

// Unsure lists the words of text the transcriber was unsure of, as they
// appear in text without punctuation around them.
func Unsure(text string, words []Word) []string {
	var out []string
	ps := Confidence(text, words)
	for i, f := range strings.Fields(text) {
		if ps[i] >= 0 && ps[i] < UnsureBelow {
			out = append(out, strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		}
	}
	return out
}
