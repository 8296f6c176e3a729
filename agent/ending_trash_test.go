package agent

import (
	"strings"
	"testing"
)

// TestTrashFactsReadWell: what went to the Trash comes first, by name,
// with how this surface puts it back; the rest follows as a sentence of
// its own.
func TestTrashFactsReadWell(t *testing.T) {
	t.Parallel()
	const menu = "Undo last trash in the menu"
	cases := []struct {
		name string
		o    Tally
		want string
	}{
		{"one name, read-only too", Tally{Ran: 2, ReadOnly: 2, Trashed: 1, TrashedWhat: trashedWhat([]string{"old_builds"}), TrashedItems: 1, Undo: menu},
			"Moved old_builds to the Trash (Undo last trash in the menu puts it back). 2 read-only commands ran"},
		{"in a terminal", Tally{Trashed: 1, TrashedWhat: trashedWhat([]string{"old_builds"}), TrashedItems: 1, Undo: "`hark undo`"},
			"Moved old_builds to the Trash (`hark undo` puts it back)"},
		{"two names and a denial", Tally{Trashed: 1, Denied: 1, TrashedWhat: trashedWhat([]string{"a_b.log", "c.log"}), TrashedItems: 2, Undo: menu},
			"Moved a_b.log and c.log to the Trash (Undo last trash in the menu puts them back). 1 command denied"},
		{"many", Tally{Trashed: 2, TrashedWhat: trashedWhat([]string{"a", "b", "c", "d"}), TrashedItems: 4, Undo: menu},
			"Moved 4 items to the Trash (Undo last trash in the menu puts them back)"},
		{"a record without names", Tally{Trashed: 1},
			"Moved what 1 deletion would have removed to the Trash"},
		{"a hidden character in a name", Tally{Trashed: 1, TrashedWhat: trashedWhat([]string{"x\u202eevil"}), TrashedItems: 1},
			"Moved x\\u202eevil to the Trash"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := c.o.Facts()
			if strings.HasPrefix(c.want, "Moved x") {
				if strings.ContainsRune(got, '\u202e') {
					t.Errorf("Facts() = %q shows a hidden character as it is", got)
				}
				return
			}
			if got != c.want {
				t.Errorf("Facts() =\n%q, want\n%q", got, c.want)
			}
			if strings.Contains(got, "would have removed went") || strings.Contains(got, "nothing changed") {
				t.Errorf("Facts() = %q", got)
			}
		})
	}
	if got := Ending(Tally{Ran: 2, ReadOnly: 2, Trashed: 1, TrashedWhat: trashedWhat([]string{"old_builds"}), TrashedItems: 1, Undo: menu}, "Done."); !strings.HasSuffix(got,
		"\n\nMoved old_builds to the Trash (Undo last trash in the menu puts it back). 2 read-only commands ran.") {
		t.Errorf("Ending = %q", got)
	}
}

// TestTrashedNamesAreRecorded: the run's metrics keep the names Move to
// Trash moved, so the ending can say them.
func TestTrashedNamesAreRecorded(t *testing.T) {
	t.Parallel()
	m := RunMetrics{Trashed: 1, TrashedNames: []string{"old_builds"}}
	if got := m.Tally(); got.TrashedWhat != "old_builds" || got.TrashedItems != 1 {
		t.Errorf("Tally() = %+v", got)
	}
}

// TestTrashedNamesShowTheirControls: a name holding a control or
// bidirectional character is shown with it escaped, never acted on by a
// terminal or reordered.
func TestTrashedNamesShowTheirControls(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{'\x1b', '\r', '\b', '\n', '\u202e', '\u2066', '\u200b', '\x7f'} {
		name := "old" + string(r) + "builds"
		got := RunMetrics{Trashed: 1, TrashedNames: []string{name}}.Tally().Facts()
		if strings.ContainsRune(got, r) || !strings.HasPrefix(got, "Moved old") || !strings.HasSuffix(got, "builds to the Trash") {
			t.Errorf("%U: Facts() = %q", r, got)
		}
	}
}
