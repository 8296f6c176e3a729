package agent

import "testing"

func TestPlainTextAlignsTables(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"table with rule row and bold",
			"Biggest folders:\n\n| Folder | Size |\n|---|--:|\n| **old_builds** | 1.2 GB |\n| Videos | 800 MB |\n\nDone.",
			"Biggest folders:\n\nFolder      Size\nold_builds  1.2 GB\nVideos      800 MB\n\nDone."},
		{"no outer pipes on the last cell is fine",
			"| a | bb\n| --- | --- |\n| ccc | d |",
			"a    bb\nccc  d"},
		{"a lone line with pipes is a sentence", "| not a table |", "| not a table |"},
		{"pipes inside a command line stay", "Run ls | wc -l to count.", "Run ls | wc -l to count."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PlainText(c.in); got != c.want {
				t.Errorf("PlainText:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// walkAnswer is the answer walk 6 saw rendered as "Folder Size /
// Downloads 11M" in the notification and the transcript, and as raw
// Markdown in hark ask (B3-12, D-20).
const walkAnswer = "## Biggest folders in your home\n\n| Folder | Size |\n|---|---|\n| **Downloads** | 11M |\n| **Videos** | 7.7M |\n| Projects | 452K |\n\n" +
	"- `Downloads/old_builds` is most of Downloads.\n- You could run `rm -r ~/Downloads/old_builds` to free about 7 MB.\n\n*Nothing was changed.*"

// TestTablesKeepTheirColumns: where the text is read in a fixed-width
// font (a transcript, the terminal) a table keeps its padded columns,
// even when a sentence saying nothing changed is left out of the same
// answer; where it is not (a notification, speech), padding cannot line
// anything up, so each row reads as a line of its own that names its
// columns.
func TestTablesKeepTheirColumns(t *testing.T) {
	t.Parallel()
	o := Tally{Ran: 1, ReadOnly: 1}
	_, transcript, _ := EndingParts(o, walkAnswer)
	want := "Biggest folders in your home\n\nFolder     Size\nDownloads  11M\nVideos     7.7M\nProjects   452K\n\n" +
		"• Downloads/old_builds is most of Downloads.\n• You could run rm -r ~/Downloads/old_builds to free about 7 MB."
	if transcript != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", transcript, want)
	}
	notification := Ending(o, walkAnswer)
	want = "Biggest folders in your home\n\n" +
		"• Downloads — Size: 11M\n• Videos — Size: 7.7M\n• Projects — Size: 452K\n\n" +
		"• Downloads/old_builds is most of Downloads.\n• You could run rm -r ~/Downloads/old_builds to free about 7 MB.\n\n" +
		"1 read-only command ran — nothing changed."
	if notification != want {
		t.Errorf("notification:\n%s\nwant:\n%s", notification, want)
	}
}

func TestReadableTables(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"more columns name each",
			"| File | Size | Modified |\n|---|--:|---|\n| a.log | 3 MB | 2024-01-03 |\n| b.log | | 2024-02-11 |",
			"• a.log — Size: 3 MB, Modified: 2024-01-03\n• b.log — Modified: 2024-02-11"},
		{"a header cell left empty", "| Folder | |\n|---|---|\n| Downloads | 11M |", "• Downloads — 11M"},
		{"one column", "| Name |\n|---|\n| a |\n| b |", "• a\n• b"},
		{"a lone line with pipes is a sentence", "| not a table |", "| not a table |"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := readableTables(c.in); got != c.want {
				t.Errorf("readableTables:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
