package speech

import (
	"reflect"
	"testing"
)

func TestWordsFromTokens(t *testing.T) {
	t.Parallel()
	got := WordsFromTokens([]Token{
		{"[_BEG_]", 0.1}, {" delete", 0.95}, {" the", 0.99}, {" old", 0.9},
		{" b", 0.3}, {"ills", 0.8}, {".", 0.2}, {" In", 0.9}, {" Down", 0.92}, {"loads", 0.7}, {"<|endoftext|>", 0.01},
	})
	want := []Word{{"delete", 0.95}, {"the", 0.99}, {"old", 0.9}, {"bills", 0.3}, {"In", 0.9}, {"Downloads", 0.7}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestMarkUnsure(t *testing.T) {
	t.Parallel()
	words := []Word{{"delete", 0.95}, {"the", 0.99}, {"old", 0.9}, {"bills", 0.3}}
	cases := map[string]struct{ text, want string }{
		"end of sentence": {"Delete the old bills.", "Delete the old [bills?]."},
		"no punctuation":  {"delete the old bills", "delete the old [bills?]"},
		// A word cleaning removed is skipped, not shifted onto another.
		"word dropped": {"delete old bills", "delete old [bills?]"},
		"all sure":     {"delete the old", "delete the old"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := MarkUnsure(c.text, words); got != c.want {
				t.Errorf("MarkUnsure(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
	if got := MarkUnsure("keep as is", nil); got != "keep as is" {
		t.Errorf("without words: %q", got)
	}
	if got := Unsure("Delete the old bills.", words); !reflect.DeepEqual(got, []string{"bills"}) {
		t.Errorf("Unsure = %q", got)
	}
}
