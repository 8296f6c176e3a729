package agent

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// mdRule is a table's delimiter cell: ---, :--, --: or :-:.
var mdRule = regexp.MustCompile(`^:?-{1,}:?$`)

// plainTables rewrites each Markdown table in s (a run of lines that start
// with |) as columns padded with spaces, header first, without the pipes
// or the ---|--- row, so a transcript or the terminal shows a table and
// not its markup. Lines that are not part of a table are left alone.
// Padding lines columns up only in a fixed-width font: see
// readableTables for text shown in any other.
func plainTables(s string) string { return eachTable(s, alignRows) }

// readableTables rewrites each Markdown table in s as one line per row
// that names its columns ("• Downloads — Size: 11M"), for a notification
// or speech, where padded columns collapse into "Downloads 11M" and the
// header row reads as one more row.
func readableTables(s string) string { return eachTable(s, rowLines) }

// eachTable replaces each table in s by what render makes of its lines.
func eachTable(s string, render func([]string) []string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); {
		if !isTableLine(lines[i]) {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) && isTableLine(lines[j]) {
			j++
		}
		// One lone line that starts with | is a sentence, not a table.
		if j-i < 2 {
			out = append(out, lines[i:j]...)
			i = j
			continue
		}
		out = append(out, render(lines[i:j])...)
		i = j
	}
	return strings.Join(out, "\n")
}

// rowLines writes each row after the header as a line: its first cell,
// then each other cell that holds something under its column's name.
func rowLines(lines []string) []string {
	var rows [][]string
	for _, l := range lines {
		if cells := tableCells(l); !isRuleRow(cells) {
			rows = append(rows, cells)
		}
	}
	if len(rows) < 2 {
		return alignRows(lines) // a header alone: nothing to name
	}
	header, out := rows[0], make([]string, 0, len(rows)-1)
	for _, r := range rows[1:] {
		var rest []string
		for c, cell := range r[1:] {
			switch name := ""; {
			case cell == "":
			case c+1 < len(header) && header[c+1] != "":
				name = header[c+1]
				rest = append(rest, name+": "+cell)
			default:
				rest = append(rest, cell)
			}
		}
		line := "• " + r[0]
		if len(rest) > 0 {
			line += " — " + strings.Join(rest, ", ")
		}
		out = append(out, line)
	}
	return out
}

func isTableLine(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

func tableCells(l string) []string {
	t := strings.TrimSpace(l)
	t = strings.TrimPrefix(t, "|")
	t = strings.TrimSuffix(t, "|")
	cells := strings.Split(t, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

func isRuleRow(cells []string) bool {
	for _, c := range cells {
		if !mdRule.MatchString(c) {
			return false
		}
	}
	return true
}

func alignRows(lines []string) []string {
	var rows [][]string
	for _, l := range lines {
		if cells := tableCells(l); !isRuleRow(cells) {
			rows = append(rows, cells)
		}
	}
	var width []int
	for _, r := range rows {
		for c, cell := range r {
			if c == len(width) {
				width = append(width, 0)
			}
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		var b strings.Builder
		for c, cell := range r {
			b.WriteString(cell)
			if c < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell)+2))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}
