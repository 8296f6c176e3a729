// Package desktop posts Hark's notifications: ordinary ones for answers and
// errors, and approval requests with Approve and Deny buttons for commands
// that change the machine. On Linux both go to org.freedesktop.Notifications
// over a private D-Bus connection; on macOS answers go through the
// notification centre (beeep) and approvals through an osascript dialog
// whose text is passed as an argument, never spliced into the script.
package desktop

import (
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hark-sh/hark/app"
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// Result is what Setup found: the adapters to wire into app.Options (nil
// when unavailable) and, when something is missing, a Problem message for
// the status line that says what still works.
type Result struct {
	Notifier app.Notifier
	Approver app.Approver
	Problem  string
	Close    func()
}

// approvalTitle and approvalBody are the words of an approval request,
// shared by every platform so the user sees the same thing everywhere.
// The title says whether the model is trying again after a no.
func approvalTitle(p app.Pending) string { return app.ApprovalTitle(p) }

// homeDir is written ~ in an approval's folder, as commands write it.
var homeDir = func() string { h, _ := os.UserHomeDir(); return h }()

// maxBodyRows is the most rows an approval's body takes on screen, as
// the menu entry does: a 1,004-character command made a 60-line
// notification whose title and deletion sat above the top of a 900-pixel
// screen while Approve stayed in view. A line of text takes a row for
// every lineWidth characters (screenRows); none takes more than
// maxLineRows, but for a command shown whole, which is shown as it runs,
// and the line that says which no a retry follows.
const (
	maxBodyRows = 20
	maxLineRows = 2
)

func approvalBody(p app.Pending) string { return approvalBodyIn(p, homeDir) }

// approvalBodyIn is the body of p's approval with home written ~: each
// detail is a block, and when they do not all fit in maxBodyRows each
// keeps its first rows, the most needed get the rest, and Show full
// command… in the menu has everything.
func approvalBodyIn(p app.Pending, home string) string {
	// Every field is shown with its hidden and control characters made
	// visible, as in the menu: the text may come from another program,
	// and what the user reads must be what runs.
	v := app.Visible
	var warn, doubt, afterNo, command, reasons, rule, folder, heard, scopes, pv, allow, deadline block
	sl := app.ScopeLines(p, home)
	if len(sl) > 0 && app.ScopeWarns(p) {
		// A whole home folder or system root: said before anything else.
		warn = block{rows: linesOf(v(sl[0])), min: 2}
		sl = sl[1:]
	}
	if p.HeardDoubt != "" {
		doubt = block{rows: linesOf("⚠ " + v(p.HeardDoubt)), min: 1}
	}
	if line := app.AfterNoLine(p); line != "" {
		// Whole (its command is cut to 60 characters already): it says
		// which no this follows, and a cut would hide how it ends.
		afterNo = block{rows: []string{line}, min: 1}
	}
	command = commandBlock(v(p.Command), app.DestructiveParts(p))
	reasons = reasonBlock(p.Reasons)
	if p.Rule != "" {
		rule = block{rows: linesOf(v(p.Rule)), gap: true}
	}
	if p.WorkingDirectory != "" {
		folder.rows = linesOf("in " + v(app.Tilde(p.WorkingDirectory, home)))
	}
	if l := app.HomeLegend(p, home); l != "" {
		// The command names home by its path, the folder and preview
		// as ~: say they are one place, leaving the command as it runs.
		// Never folded: it says what the command's paths are.
		folder.rows = append(folder.rows, linesOf(l)...)
		folder.min = sizeOf(folder.rows)
	}
	folder.gap, folder.min = true, max(folder.min, min(sizeOf(folder.rows), 1))
	if h := strings.Join(strings.Fields(p.Heard), " "); h != "" {
		// The request was spoken: a misheard word shows here, before
		// anyone approves what came of it.
		heard = block{rows: linesOf("Heard: “" + clipRunes(v(h), min(heardLimit, maxLineRows*lineWidth-10)) + "”"), gap: true}
	}
	if len(sl) > 0 {
		scopes = block{rows: linesOf(v(strings.Join(sl, "\n"))), gap: true}
	}
	pv = previewBlock(p.Preview)
	if p.Proposal != nil {
		// A button would save the rule in one click; the menu shows what
		// it matches first.
		allow = block{rows: linesOf("Always allow… is in the Hark menu, with what the rule would match."), gap: true}
	}
	if !p.Deadline.IsZero() {
		// A notification cannot count down; the menu does. Say when.
		deadline = block{rows: linesOf(fmt.Sprintf("Auto-deny at %s (in %s) if nobody answers.", p.Deadline.Local().Format("15:04"), roundMinutes(time.Until(p.Deadline)))), gap: true, min: 1}
	}
	// Shown in this order; room goes to the most needed first.
	shown := []*block{&warn, &doubt, &afterNo, &command, &reasons, &rule, &folder, &heard, &scopes, &pv, &allow, &deadline}
	fitBlocks(maxBodyRows, []*block{&warn, &doubt, &command, &folder, &deadline, &reasons, &afterNo, &pv, &scopes, &heard, &rule, &allow})
	var out []string
	for _, b := range shown {
		if len(b.rows) == 0 {
			continue
		}
		if b.gap && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, b.rows...)
	}
	return strings.Join(out, "\n")
}

// block is one detail of an approval's body: its lines, whether a blank
// row sets it apart, the screen rows it keeps however tight, and how it
// folds to n screen rows (nil: its first lines, the last marked "…").
type block struct {
	rows []string
	gap  bool
	min  int
	fold func(n int) []string
}

// screenRows is how many rows line takes on screen.
func screenRows(line string) int {
	return max(1, (utf8.RuneCountInString(line)+lineWidth-1)/lineWidth)
}

// sizeOf is how many rows lines take on screen.
func sizeOf(lines []string) int {
	n := 0
	for _, l := range lines {
		n += screenRows(l)
	}
	return n
}

// fitBlocks cuts the blocks to room screen rows, blank rows included:
// each keeps its min rows, then the blocks get the rest in the order
// given.
func fitBlocks(room int, order []*block) {
	cost := func(b *block, n int) int {
		if n > 0 && b.gap {
			return n + 1
		}
		return n
	}
	total := 0
	for _, b := range order {
		total += cost(b, sizeOf(b.rows))
	}
	if total <= room {
		return
	}
	give := make([]int, len(order))
	for i, b := range order {
		give[i] = min(b.min, sizeOf(b.rows))
		room -= cost(b, give[i])
	}
	for i, b := range order {
		more := min(sizeOf(b.rows)-give[i], room-(cost(b, give[i]+1)-cost(b, give[i])-1))
		if more > 0 {
			room -= cost(b, give[i]+more) - cost(b, give[i])
			give[i] += more
		}
	}
	for i, b := range order {
		switch n := give[i]; {
		case n >= sizeOf(b.rows):
		case n == 0:
			b.rows = nil
		case b.fold != nil:
			b.rows = b.fold(n)
		default:
			b.rows = cutLines(b.rows, n)
		}
	}
}

// cutLines is the first lines of lines in n screen rows, the last one
// kept cut short and marked "…".
func cutLines(lines []string, n int) []string {
	var out []string
	for _, l := range lines {
		if r := screenRows(l); r <= n {
			out = append(out, l)
			n -= r
			continue
		}
		if n > 0 {
			out = append(out, clipRunes(l, n*lineWidth-1))
		}
		return out
	}
	return out
}

// endCut marks row as cut short, within lineWidth.
func endCut(row string) string {
	r := []rune(strings.TrimRight(row, " …"))
	if len(r) > lineWidth-2 {
		r = r[:lineWidth-2]
	}
	return string(r) + " …"
}

// Rows of a command shown whole, and of a long one's head and tail.
const (
	wholeCommandRows = 6
	headRows         = 2
	tailRows         = 2
	partsRows        = 10
)

// commandBlock is the command: whole when it is short; else its head
// and its tail around how much was left out, with every part that
// deletes or overwrites below them. The end of a command is where a
// trailing `; rm -rf ~` would hide, so it is kept too; a deletion in the
// middle is shown whole while there is room and is the last thing cut.
func commandBlock(cmd string, parts []shell.Reason) block {
	spans := wrapSpans(cmd, lineWidth)
	whole := texts(spans)
	partsMin := min(len(parts), 2) + min(len(parts), 2)/2 // a part's reason and first row, and a count of the rest
	long := func(n int) []string {
		head, tail := 1, min(1, len(spans)-1)
		room := n - head - tail - 1 // the row that counts what is left out
		var pr []string
		if len(parts) > 0 {
			pr = partRows(parts, max(room, partsMin))
			room -= len(pr)
		}
		for room > 0 && head+tail+1 < len(spans) && (tail < tailRows || head < headRows) {
			if tail < tailRows {
				tail++
			} else {
				head++
			}
			room--
		}
		end := tailSpans(cmd, tail)
		left := end[0].start - spans[head-1].end
		out := append([]string(nil), whole[:head]...)
		out = append(out, middleRow(left))
		out = append(out, texts(end)...)
		return append(out, pr...)
	}
	if asIs := strings.Split(cmd, "\n"); sizeOf(asIs) <= wholeCommandRows {
		// Shown as it runs, its long lines left to the server to wrap.
		return block{rows: asIs, min: sizeOf(asIs), fold: func(n int) []string {
			if n >= sizeOf(asIs) || len(spans) < 3 {
				return asIs
			}
			return long(max(n, 3+partsMin))
		}}
	}
	want := headRows + 1 + tailRows
	if len(parts) > 0 {
		want += min(partsRows, partRowsWanted(parts))
	}
	return block{rows: long(want), min: 3 + partsMin, fold: long}
}

// tailSpans is the end of cmd in at most k rows, starting at a word,
// so the last row is not what is left of a wrapped word ("-la …" of
// "ls -la …").
func tailSpans(cmd string, k int) []span {
	r := []rune(cmd)
	from := max(0, len(r)-k*lineWidth)
	// At the next word, else the next folder of a long path.
	for _, at := range []string{" \n", "/"} {
		found := false
		for i := from; i > 0 && i < len(r) && i < from+lineWidth; i++ {
			if strings.ContainsRune(at, r[i-1]) {
				from, found = i, true
				break
			}
		}
		if found {
			break
		}
	}
	ss := wrapSpans(string(r[from:]), lineWidth)
	ss = ss[max(0, len(ss)-k):]
	for i := range ss {
		ss[i].start += from
		ss[i].end += from
	}
	return ss
}

// middleRow says how much of a command is left out, and where it is.
func middleRow(n int) string {
	for _, s := range []string{
		"… %d more characters (Show full command… in the Hark menu) …",
		"… %d more characters (Hark menu: Show full command…)",
		"… %d more characters: Show full command…",
	} {
		if row := fmt.Sprintf(s, n); len([]rune(row)) <= lineWidth {
			return row
		}
	}
	return fmt.Sprintf("… %d more characters", n)
}

// partRowsWanted is how many rows parts take shown whole.
func partRowsWanted(parts []shell.Reason) int {
	n := 0
	for _, r := range parts {
		n += 1 + len(wrapSpans(app.Visible(strings.TrimSpace(r.Command)), lineWidth))
	}
	return n
}

// partRows shows parts in at most room rows (room ≥ 2): in order,
// each with its reason and up to two rows while there is room, keeping a
// row to count the parts left over; rows still free go to the first
// parts. A part cut short ends with "…".
func partRows(parts []shell.Reason, room int) []string {
	rows := make([][]string, len(parts))
	give := make([]int, len(parts))
	shown := 0
	for i, r := range parts {
		rows[i] = wrapRows(app.Visible(strings.TrimSpace(r.Command)), lineWidth)
		g := min(len(rows[i]), 2)
		count := 0
		if i+1 < len(parts) {
			count = 1
		}
		if used(give)+1+g+count > room {
			if g = room - used(give) - 1 - count; g < 1 || i > 0 {
				break
			}
		}
		give[i], shown = g, i+1
	}
	left := room - used(give)
	if shown < len(parts) {
		left--
	}
	for i := range shown {
		more := max(0, min(left, len(rows[i])-give[i]))
		give[i] += more
		left -= more
	}
	var out []string
	for i, r := range parts[:shown] {
		kept := rows[i][:give[i]]
		if give[i] < len(rows[i]) {
			kept = append(kept[:give[i]-1:give[i]-1], endCut(kept[give[i]-1]))
		}
		out = append(out, clipRunes("⚠ "+app.Visible(r.Why)+":", lineWidth))
		out = append(out, kept...)
	}
	if n := len(parts) - shown; n > 0 {
		s := "s"
		if n == 1 {
			s = ""
		}
		out = append(out, clipRunes(fmt.Sprintf("⚠ and %d more part%s that delete or overwrite", n, s), lineWidth))
	}
	return out
}

// used is the rows of the parts given rows, their reasons included.
func used(give []int) int {
	n := 0
	for _, g := range give {
		if g > 0 {
			n += 1 + g
		}
	}
	return n
}

// reasonBlock lists why the command needs approval, most harmful first
// as the agent orders them, a reason said for several parts once with
// how many; folded, it keeps the first ones and counts the rest.
func reasonBlock(rs []shell.Reason) block {
	var whys []string
	count := map[string]int{}
	for _, r := range rs {
		w := app.Visible(r.Why)
		if count[w] == 0 {
			whys = append(whys, w)
		}
		count[w]++
	}
	var each [][]string
	var rows []string
	for _, w := range whys {
		if n := count[w]; n > 1 {
			w = fmt.Sprintf("%s (%d parts)", w, n)
		}
		rr := linesOf("• " + w)
		each = append(each, rr)
		rows = append(rows, rr...)
	}
	return block{rows: rows, gap: true, min: 1, fold: func(n int) []string {
		var out []string
		for k, rr := range each {
			need := sizeOf(rr)
			if k+1 < len(each) {
				need++ // the row that counts the rest
			}
			if sizeOf(out)+need > n {
				if k == 0 {
					if row := fmt.Sprintf("%s, and %d more", rr[0], len(each)-1); len(rr) == 1 && screenRows(row) <= n {
						return []string{row}
					}
					return cutLines(rr, n)
				}
				return append(out, fmt.Sprintf("• and %d more (Show full command… lists them)", len(each)-k))
			}
			out = append(out, rr...)
		}
		return out
	}}
}

// previewBlock is what the command would touch: the summary and the
// first lines, what is left out counted with its size so what is shown
// adds up to the summary.
func previewBlock(pv *preview.Preview) block {
	if pv == nil {
		return block{}
	}
	v := app.Visible
	summary := linesOf(v(pv.Summary))
	lines := make([][]string, len(pv.Lines))
	for i, l := range pv.Lines {
		lines[i] = linesOf(v(l))
	}
	build := func(room int) []string {
		out := append([]string(nil), summary...)
		used := sizeOf(out)
		for n := range lines {
			more := []string(nil)
			if n+1 < len(lines) {
				more = linesOf("… " + pv.More(n+1) + " (the audit log has them all)")
			}
			if n+1 == len(lines) && used+sizeOf(lines[n]) <= room || used+sizeOf(lines[n])+sizeOf(more) <= room && n < previewLines {
				out = append(out, lines[n]...)
				used += sizeOf(lines[n])
				continue
			}
			return append(out, linesOf("… "+pv.More(n)+" (the audit log has them all)")...)
		}
		return out
	}
	rows := build(1 << 20)
	return block{rows: rows, gap: true, min: min(sizeOf(rows), sizeOf(summary)), fold: func(n int) []string {
		out := build(n)
		if sizeOf(out) > n {
			// Not even one line fits with its count: the summary alone.
			return cutLines(summary, n)
		}
		return out
	}}
}

// Notification bodies are short: the transcript and the preview's target
// lines are cut to these.
const (
	heardLimit   = 160
	previewLines = 5
)

// clipRunes cuts s to n characters, marking the cut with "…".
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// roundMinutes writes d as people say it: "2 min", "45 s".
func roundMinutes(d time.Duration) string {
	if d = d.Round(time.Second); d < time.Minute {
		return fmt.Sprintf("%d s", max(0, int(d.Round(time.Second).Seconds())))
	}
	return fmt.Sprintf("%d min", int(d.Round(time.Minute).Minutes()))
}

// lineWidth bounds the rows of a body: some servers (xfce4-notifyd)
// show only a few wrapped lines of each line of a body and cut the rest
// with "…", so a long line would lose its end.
const lineWidth = 56

// linesOf is s in lines, each at most maxLineRows screen rows.
func linesOf(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = clipRunes(l, maxLineRows*lineWidth)
	}
	return lines
}

func wrapRows(s string, width int) []string { return texts(wrapSpans(s, width)) }

// span is one row of wrapped text and where it lies in the text, in
// characters.
type span struct {
	text       string
	start, end int
}

func texts(ss []span) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.text
	}
	return out
}

// wrapSpans breaks s into rows of at most width characters: at line
// breaks, else at a space, else after a slash, so a path splits between
// its folders, else anywhere.
func wrapSpans(s string, width int) []span {
	r := []rune(s)
	var out []span
	at := 0
	for at <= len(r) {
		end := at
		for end < len(r) && r[end] != '\n' {
			end++
		}
		line := r[at:end]
		off := at
		if len(line) == 0 {
			out = append(out, span{"", off, off})
		}
		for len(line) > 0 {
			if len(line) <= width {
				out = append(out, span{string(line), off, off + len(line)})
				break
			}
			cut, skip := -1, 0
			for i := width; i > width/2; i-- {
				if line[i] == ' ' {
					cut, skip = i, 1
					break
				}
			}
			if cut < 0 {
				cut = width
				for i := width - 1; i > width/3; i-- {
					if line[i] == '/' {
						cut = i + 1
						break
					}
				}
			}
			out = append(out, span{string(line[:cut]), off, off + cut})
			line = line[cut+skip:]
			off += cut + skip
		}
		at = end + 1
	}
	return out
}
