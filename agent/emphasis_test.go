package agent

import "testing"

// emphasisCases: file names and code keep every underscore, star and
// tilde; only real emphasis (a marker that opens after a space or at the
// start and closes before a space, punctuation or the end) is taken off.
var emphasisCases = []struct{ in, want string }{
	{"snake_case_name.txt", "snake_case_name.txt"},
	{"_leading.txt and trailing_.txt", "_leading.txt and trailing_.txt"},
	{"_both_.txt", "_both_.txt"},
	{"__init__.py", "__init__.py"},
	{"see __init__.py and __main__.py", "see __init__.py and __main__.py"},
	{"a_b_c.tar.gz", "a_b_c.tar.gz"},
	{"Archived to ~/Backups/project_logs_2024-01-03_to_2024-02-11.tar.gz.", "Archived to ~/Backups/project_logs_2024-01-03_to_2024-02-11.tar.gz."},
	{"/srv/_build/_cache_/x", "/srv/_build/_cache_/x"},
	{"in _build/ and _cache_/", "in _build/ and _cache_/"},
	{"`__init__.py` stays", "__init__.py stays"},
	{"`my_file_` and `_x_`", "my_file_ and _x_"},
	{"`**not bold**`", "**not bold**"},
	{"keep my__notes_2024.txt and OLLAMA_HOST", "keep my__notes_2024.txt and OLLAMA_HOST"},
	{"rm *.log and *.txt", "rm *.log and *.txt"},
	{"2 * 3 = 6", "2 * 3 = 6"},
	{"~~/x and ~/y~~z", "~~/x and ~/y~~z"},
	// Real emphasis goes.
	{"_really_ sure", "really sure"},
	{"**Done.** Removed `old_builds`.", "Done. Removed old_builds."},
	{"__bold__ text", "bold text"},
	{"an *important*, point", "an important, point"},
	{"~~old~~ new", "old new"},
	{"(_see_ above)", "(see above)"},
	{"_one_ and _two_", "one and two"},
	{"**Moved** `old_builds` to the Trash.", "Moved old_builds to the Trash."},
	{"**snake_case.txt** is gone", "snake_case.txt is gone"},
}

func TestPlainTextKeepsNames(t *testing.T) {
	t.Parallel()
	for _, c := range emphasisCases {
		if got := PlainText(c.in); got != c.want {
			t.Errorf("PlainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
