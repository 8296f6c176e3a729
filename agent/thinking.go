package agent

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// stripThinking removes reasoning that reached content instead of the
// thinking field. With think false Ollama builds no thinking parser, and a
// thinking-only model (qwen3:4b since ollama#12022) still reasons: either a
// whole <think>…</think> block or, when the template opened the block in
// the prompt, reasoning followed by a lone </think>.
func stripThinking(s string) string {
	for {
		i := strings.Index(s, thinkOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], thinkClose)
		if j < 0 {
			// Still thinking when the reply ended: none of it is an answer.
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+len(thinkClose):]
	}
	if i := strings.LastIndex(s, thinkClose); i >= 0 {
		s = s[i+len(thinkClose):]
	}
	return strings.TrimSpace(s)
}

// thinkFilter passes streamed content on to the UI except reasoning. It
// holds text back while it may still be the start of a tag. A lone
// </think> after text already shown means that text was reasoning: reset
// tells the caller to take back what it showed this turn.
type thinkFilter struct {
	pending  strings.Builder // text that may be the start of a tag
	inside   bool
	shownAny bool
}

// add takes one chunk and returns the text to show, whether what was shown
// before must be withdrawn, and whether the model is thinking.
func (f *thinkFilter) add(chunk string) (show string, reset, thinking bool) {
	f.pending.WriteString(chunk)
	buf := f.pending.String()
	f.pending.Reset()
	var out strings.Builder
	for buf != "" {
		if f.inside {
			j := strings.Index(buf, thinkClose)
			if j < 0 {
				keep := partialSuffix(buf, thinkClose)
				f.pending.WriteString(buf[len(buf)-keep:])
				return out.String(), reset, true
			}
			f.inside = false
			buf = strings.TrimLeft(buf[j+len(thinkClose):], " \n")
			continue
		}
		i := strings.Index(buf, thinkOpen)
		c := strings.Index(buf, thinkClose)
		switch {
		case c >= 0 && (i < 0 || c < i):
			// A lone closing tag: all shown so far was reasoning.
			out.Reset()
			reset = f.shownAny
			f.shownAny = false
			buf = strings.TrimLeft(buf[c+len(thinkClose):], " \n")
			continue
		case i >= 0:
			out.WriteString(buf[:i])
			f.inside = true
			thinking = true
			buf = buf[i+len(thinkOpen):]
			continue
		}
		keep := max(partialSuffix(buf, thinkOpen), partialSuffix(buf, thinkClose))
		out.WriteString(buf[:len(buf)-keep])
		f.pending.WriteString(buf[len(buf)-keep:])
		buf = ""
	}
	if out.Len() > 0 {
		f.shownAny = true
	}
	return out.String(), reset, thinking || f.inside
}

// flush returns text held back at the end of the reply.
func (f *thinkFilter) flush() string {
	if f.inside {
		return ""
	}
	s := f.pending.String()
	f.pending.Reset()
	return s
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
