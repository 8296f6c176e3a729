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
)

// Preview is what an approval shows about a command's effect: one line to
// read at a glance and a few lines about each target. It is plain data so
// that the approval prompt, the menu and the audit log can all carry it.
type Preview struct {
	Status  Status   `json:"status"`
	Summary string   `json:"summary"`
	Lines   []string `json:"lines,omitempty"`
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
func (t tally) String() string {
	var parts []string
	if t.Folders > 0 {
		parts = append(parts, count(t.Folders, "folder", "folders"))
	}
	if t.Files > 0 || t.Folders == 0 {
		parts = append(parts, count(t.Files, "file", "files"))
	}
	if t.Bytes > 0 {
		parts = append(parts, Size(t.Bytes))
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
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	for _, u := range []string{"KB", "MB", "GB", "TB", "PB"} {
		v /= unit
		if v < unit || u == "PB" {
			if v < 9.95 {
				return fmt.Sprintf("%.1f %s", v, u)
			}
			return fmt.Sprintf("%.0f %s", v, u)
		}
	}
	return fmt.Sprintf("%d B", n) // unreachable: the loop returns at PB
}

// visible makes a line safe to show anywhere: file names may hold control
// characters (a terminal would obey an escape sequence), line breaks, or
// invisible and bidirectional format characters that make one name look
// like another. Each such rune becomes ⟨U+XXXX⟩.
func visible(s string) string { return vis.Line(s) }
