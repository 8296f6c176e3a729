// Package preview says, before an approval, what a command would touch: the
// files and folders it would delete, move, copy over, overwrite or change
// permissions of, with totals ("3 folders, 1,204 files, 3.2 GB"), what a
// `find … -delete` would match, what `git clean` would remove and which
// changed files `git reset --hard` or `git checkout -- .` would throw away.
//
// The command is never run. Its words are expanded with mvdan.cc/sh's
// expand package (variables of the environment, tildes, braces and globs;
// command substitutions are not run, so a word that holds one is reported
// as unknown), and every look at the disk happens in a process that the
// shell.Runner confines to the read-only sandbox, under a time bound.
package preview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hark-sh/hark/shell/scope"
	vis "github.com/hark-sh/hark/shell/visible"
)

// Status says what kind of answer a Preview is.
type Status string

const (
	// Shown: the preview lists what the command would touch.
	Shown Status = "shown"
	// Nothing: none of the command's targets exist, so it would change
	// nothing; the model may have the wrong names.
	Nothing Status = "nothing"
	// Unavailable: the preview could not be computed in time or at all.
	Unavailable Status = "unavailable"
	// Quiet: the command only makes files or folders (mkdir, touch): no
	// line to show, only the places its scope needs (Changes). Nobody is
	// shown a Quiet preview.
	Quiet Status = "quiet"
)

// Preview is what an approval shows about a command's effect: one line to
// read at a glance and a few lines about each target. It is plain data so
// that the approval prompt, the menu and the audit log can all carry it.
type Preview struct {
	Status  Status   `json:"status"`
	Summary string   `json:"summary"`
	Lines   []string `json:"lines,omitempty"`
	// Totals are the summary's totals, one for each verb, and Counts what
	// each line adds to them, so that a surface which shows only the first
	// lines can say what the others add up to (More).
	Totals []Total `json:"totals,omitempty"`
	Counts []Count `json:"counts,omitempty"`
	// Omitted is how many lines the last line stands for ("… and 9 more
	// lines: …"), when the preview had more than it keeps.
	Omitted int `json:"omitted,omitempty"`
	// Changes are the places the command changes, as the preview read
	// them, for its scope (package scope); Sure says the preview could
	// tell every target it looked for.
	Changes []scope.Change `json:"changes,omitempty"`
	Sure    bool           `json:"sure,omitempty"`
}

// Total is one total of the summary ("deletes 3 files, 442.4 KB"): what
// it counts and the Scale that it and every size counted in it are
// written in.
type Total struct {
	Verb    string `json:"verb"`
	Folders int64  `json:"folders,omitempty"`
	Files   int64  `json:"files,omitempty"`
	Bytes   int64  `json:"bytes,omitempty"`
	Partial bool   `json:"partial,omitempty"`
	Scale   Scale  `json:"scale"`
}

// Count is what line Line adds to total Total (an index of Totals): a
// folder line counts the folder and what it holds. Shown is its size as
// the line writes it, in steps of the total's Scale, so that the sizes of
// any run of lines add up to exactly what their lines show.
type Count struct {
	Line    int   `json:"line"`
	Total   int   `json:"total"`
	Folders int64 `json:"folders,omitempty"`
	Files   int64 `json:"files,omitempty"`
	Bytes   int64 `json:"bytes,omitempty"`
	Shown   int64 `json:"shown,omitempty"`
}

// More says what the lines from line from on hold, for a surface that
// shows only the lines before it: "3 more lines: 3 files, 331.8 KB". Its
// counts and size are the sum of those lines' (in the same unit and
// decimals), so the lines shown and this one add up to the summary. With
// several totals each is named by its verb: "…: deletes 2 files, 4 KB;
// replaces 1 file, 2 KB". Empty when from is past the last line.
func (p *Preview) More(from int) string {
	if p == nil || from >= len(p.Lines) {
		return ""
	}
	from = max(from, 0)
	n := len(p.Lines) - from
	if p.Omitted > 0 {
		n += p.Omitted - 1 // the last line stands for Omitted lines
	}
	sums := make([]Count, len(p.Totals))
	seen := make([]bool, len(p.Totals))
	for _, c := range p.Counts {
		if c.Line < from || c.Line >= len(p.Lines) || c.Total < 0 || c.Total >= len(p.Totals) {
			continue
		}
		s := &sums[c.Total]
		s.Folders += c.Folders
		s.Files += c.Files
		s.Bytes += c.Bytes
		s.Shown += c.Shown
		seen[c.Total] = true
	}
	var phrases []string
	for i, t := range p.Totals {
		if !seen[i] {
			continue
		}
		s := sums[i]
		words := tally{Folders: s.Folders, Files: s.Files, Bytes: s.Bytes}.words(t.Scale.text(s.Shown, s.Bytes))
		if len(p.Totals) > 1 {
			words = t.Verb + " " + words
		}
		phrases = append(phrases, words)
	}
	out := count(int64(n), "more line", "more lines")
	if len(phrases) > 0 {
		out += ": " + strings.Join(phrases, "; ")
	}
	return out
}

// Text is the preview as the terminal prompt prints it: the summary, then
// each line indented by indent.
func (p *Preview) Text(indent string) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(p.Summary)
	for _, l := range p.Lines {
		b.WriteString("\n" + indent + l)
	}
	return b.String()
}

// Words of the summaries, shared by the engine and its callers' tests.
const (
	nothingSummary = "Nothing would happen: none of the files it names exist. The model may have the wrong names."
	unavailablePre = "Preview unavailable: "
)

// unavailable is the Preview for a preview that could not be computed.
func unavailable(why string) *Preview {
	return &Preview{Status: Unavailable, Summary: unavailablePre + why}
}

// tally counts what a target holds.
type tally struct {
	Folders int64 `json:"folders"`
	Files   int64 `json:"files"` // regular files, links and anything else that is not a folder
	Bytes   int64 `json:"bytes"`
	Partial bool  `json:"partial,omitempty"` // the walk stopped at the time bound: these are lower bounds
}

func (t *tally) add(o tally) {
	t.Folders += o.Folders
	t.Files += o.Files
	t.Bytes += o.Bytes
	t.Partial = t.Partial || o.Partial
}

func (t tally) empty() bool { return t.Folders == 0 && t.Files == 0 }

// String is the tally as people read it: "3 folders, 1,204 files, 3.2 GB",
// prefixed with "at least" when the walk was cut short.
func (t tally) String() string { return t.words(Size(t.Bytes)) }

// words is the tally with size as its size, which is left out when the
// tally holds no bytes.
func (t tally) words(size string) string {
	var parts []string
	if t.Folders > 0 {
		parts = append(parts, count(t.Folders, "folder", "folders"))
	}
	if t.Files > 0 || t.Folders == 0 {
		parts = append(parts, count(t.Files, "file", "files"))
	}
	if t.Bytes > 0 {
		parts = append(parts, size)
	}
	s := strings.Join(parts, ", ")
	if t.Partial {
		s = "at least " + s
	}
	return s
}

// count writes n with thousands separators and the right noun.
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Thousands writes n with commas between groups of three digits: 1,204.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Size writes a byte count in decimal units, as Finder and most file
// managers do: 512 B, 2.1 KB, 3.2 GB.
func Size(n int64) string {
	s := natural(n)
	return s.text(s.steps(n), n)
}

// Scale is how a set of sizes that add up is written: in units of
// 1000^Power bytes (B, KB, MB, GB, TB, PB) with Decimals digits after the
// point. Every size written in a Scale is a whole number of bytes
// (Decimals < 3·Power), so sizes written in one add up exactly.
type Scale struct {
	Power    int `json:"power,omitempty"`
	Decimals int `json:"decimals,omitempty"`
}

var units = [...]string{"B", "KB", "MB", "GB", "TB", "PB"}

// valid is s made safe to write with, whatever a decoded one held.
func (s Scale) valid() Scale {
	s.Power = min(max(s.Power, 0), len(units)-1)
	s.Decimals = min(max(s.Decimals, 0), max(3*s.Power-1, 0))
	return s
}

// step is the bytes in one unit of the last digit s writes.
func (s Scale) step() int64 {
	s = s.valid()
	step := int64(1)
	for range 3*s.Power - s.Decimals {
		step *= 10
	}
	return step
}

// steps is n rounded to s, in steps, halves up.
func (s Scale) steps(n int64) int64 {
	step := s.step()
	q, r := n/step, n%step
	if r >= step-r {
		q++
	}
	return q
}

// text writes a size of shown steps of s that holds bytes: "110.6 KB". A
// size that rounds to nothing is written as Size writes it instead ("6 B"
// beside "240 MB", "0 B" for an empty file), so no file with something in
// it reads as empty; at s it adds nothing, and the total shows that too.
func (s Scale) text(shown, bytes int64) string {
	s = s.valid()
	if shown == 0 && s.Power > 0 {
		return Size(bytes) // "0 B" for an empty file
	}
	neg := shown < 0
	if neg {
		shown = -shown
	}
	div := int64(1)
	for range s.Decimals {
		div *= 10
	}
	num := Thousands(shown / div)
	if s.Decimals > 0 {
		num += "." + fmt.Sprintf("%0*d", s.Decimals, shown%div)
	}
	if neg {
		num = "-" + num
	}
	return num + " " + units[s.Power]
}

// natural is the Scale Size writes n in: the largest unit in which n is
// at least 1 and, rounded, less than 1000, with one decimal below 9.95.
func natural(n int64) Scale {
	s := Scale{}
	for p := 1; p < len(units) && s.steps(n) >= 1000; p++ {
		s = Scale{Power: p}
	}
	if s.Power > 0 {
		if d1 := (Scale{Power: s.Power, Decimals: 1}); d1.steps(n) < 100 {
			s = d1
		}
	}
	return s
}

// scaleFor is the Scale in which a total and the parts it is the sum of
// are written so that the parts, as written, add up to the total as
// written: the total's own unit (as Size writes it), with the fewest
// decimals at which they do, or else exact bytes. Parts too small to
// show at that precision are written in their own unit (text) and must
// together be too small to show as well. Equal parts are
// written alike, and most sets of parts need no more decimals than the
// total alone.
func scaleFor(total int64, parts []int64) Scale {
	for s := natural(total); s.Decimals < 3*s.Power; s.Decimals++ {
		sum, small := int64(0), int64(0)
		for _, b := range parts {
			n := s.steps(b)
			sum += n
			if n == 0 {
				small += b
			}
		}
		// The parts that are nothing at s are written in their own unit
		// (text): together they must still be nothing, or they would
		// visibly add to the total.
		if sum == s.steps(total) && small < s.step()-small {
			return s
		}
	}
	return Scale{}
}

// visible makes a line safe to show anywhere: file names may hold control
// characters (a terminal would obey an escape sequence), line breaks, or
// invisible and bidirectional format characters that make one name look
// like another. Each such rune becomes ⟨U+XXXX⟩.
func visible(s string) string { return vis.Line(s) }
