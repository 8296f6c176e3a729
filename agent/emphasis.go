package agent

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// codeSpan is inline code, which keeps every character it holds.
var codeSpan = regexp.MustCompile("`[^`\n]+`")

// emphasisMarks are tried longest first, so ** is never read as two *.
var emphasisMarks = []string{"**", "__", "~~", "*", "_"}

// StripEmphasis takes Markdown emphasis (**bold**, __bold__, *em*, _em_,
// ~~struck~~) off s where it is real emphasis: the mark opens at the start
// or after a space or an opening bracket or quote, and closes on the same
// line before a space, closing punctuation or the end. Everywhere else a
// mark is part of what is written (snake_case, __init__.py, a_b_c.tar.gz,
// *.log, 2 * 3) and stays. Inline code is left exactly as it is.
func StripEmphasis(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range codeSpan.FindAllStringIndex(s, -1) {
		b.WriteString(stripEmphasis(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(stripEmphasis(s[last:]))
	return b.String()
}

func stripEmphasis(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if inner, n := emphasisAt(s, i); n > 0 {
			b.WriteString(stripEmphasis(inner))
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

// emphasisAt reads emphasis opening at s[i:]: what it holds and how many
// bytes it spans, or n == 0 when no emphasis opens there.
func emphasisAt(s string, i int) (inner string, n int) {
	if !opensAfter(s[:i]) {
		return "", 0
	}
	for _, m := range emphasisMarks {
		if !strings.HasPrefix(s[i:], m) {
			continue
		}
		body := s[i+len(m):]
		first, _ := utf8.DecodeRuneInString(body)
		if body == "" || unicode.IsSpace(first) || strings.HasPrefix(body, m[:1]) {
			continue
		}
		for j := 0; j < len(body); {
			k := strings.Index(body[j:], m)
			if k < 0 {
				break
			}
			k += j
			if nl := strings.IndexByte(body[:k], '\n'); nl >= 0 {
				break
			}
			before, _ := utf8.DecodeLastRuneInString(body[:k])
			after := body[k+len(m):]
			if k > 0 && !unicode.IsSpace(before) && !strings.HasPrefix(after, m[:1]) && closesBefore(after) {
				return body[:k], len(m) + k + len(m)
			}
			j = k + 1
		}
	}
	return "", 0
}

// opensAfter: emphasis may open after this text.
func opensAfter(before string) bool {
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsSpace(r) || strings.ContainsRune("([{\"'“‘", r)
}

// closesBefore: emphasis may close before this text. A full stop counts
// only when it ends the sentence, so __init__.py keeps its underscores.
func closesBefore(after string) bool {
	if after == "" {
		return true
	}
	r, size := utf8.DecodeRuneInString(after)
	switch {
	case unicode.IsSpace(r) || strings.ContainsRune(")]}\"'”’,;:!?", r):
		return true
	case r == '.' || r == '…':
		next, _ := utf8.DecodeRuneInString(after[size:])
		return len(after) == size || unicode.IsSpace(next) || strings.ContainsRune(")]}\"'”’", next)
	}
	return false
}
