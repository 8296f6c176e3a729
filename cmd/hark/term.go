package main

import (
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/hark-sh/hark/agent"
)

func stdioIsTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stderr.Fd()))
}

func stdoutIsTerminal() bool { return term.IsTerminal(int(os.Stdout.Fd())) }

// mdStream renders a model's Markdown for a terminal as it streams in:
// each line once it is complete, with headings, emphasis, code marks and
// bullets made plain as a notification makes them (agent.PlainText), and
// a table once its last row is in, its columns padded, since a terminal
// font is fixed-width. A line that only says nothing changed is left out
// when quiet: Hark's own closing line says it.
type mdStream struct {
	quiet   bool
	line    strings.Builder // the line coming in
	table   []string        // the rows of a table coming in
	blank   bool            // a blank line waits for the text after it
	started bool            // something was written
}

// write takes more of the model's words and returns what is ready to show.
func (m *mdStream) write(s string) string {
	var out strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			m.line.WriteString(s)
			break
		}
		m.line.WriteString(s[:i])
		s = s[i+1:]
		l := m.line.String()
		m.line.Reset()
		out.WriteString(m.complete(l))
	}
	return out.String()
}

// flush returns the rest: the line without its line break yet, and a
// table without its last line break. What follows starts a new paragraph.
func (m *mdStream) flush() string {
	var out string
	if m.line.Len() > 0 {
		l := m.line.String()
		m.line.Reset()
		out = m.complete(l)
	}
	out += m.endTable()
	m.blank = false
	m.started = false
	return out
}

func (m *mdStream) complete(l string) string {
	if t := strings.TrimSpace(l); strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2 {
		m.table = append(m.table, l)
		return ""
	}
	out := m.endTable()
	if strings.TrimSpace(l) == "" {
		m.blank = m.started
		return out
	}
	indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
	text := agent.PlainText(l)
	if m.quiet {
		text = agent.DropNothingChanged(text)
	}
	if text == "" {
		return out // a code fence, or a sentence Hark says itself
	}
	return out + m.emit(indent+text)
}

func (m *mdStream) endTable() string {
	if len(m.table) == 0 {
		return ""
	}
	text := agent.PlainText(strings.Join(m.table, "\n"))
	m.table = nil
	return m.emit(text)
}

// emit writes text as lines, after the blank line that came before it.
func (m *mdStream) emit(text string) string {
	if m.blank {
		text = "\n" + text
	}
	m.blank, m.started = false, true
	return text + "\n"
}
