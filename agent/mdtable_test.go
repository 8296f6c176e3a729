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
