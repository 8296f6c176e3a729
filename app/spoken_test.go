package app

import (
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/speech"
)

func TestParseSpokenGrammar(t *testing.T) {
	cases := []struct {
		said   string
		kind   spokenKind
		reason string
	}{
		{"yes", spokenApprove, ""},
		{"Yes.", spokenApprove, ""},
		{"Um, yes please.", spokenApprove, ""},
		{"Okay, approve.", spokenApprove, ""},
		{"Run it!", spokenApprove, ""},
		{"yes, run it", spokenApprove, ""},
		{"no", spokenDeny, ""},
		{"No.", spokenDeny, ""},
		{"Deny", spokenDeny, ""},
		{"stop", spokenDeny, ""},
		{"Uh, no.", spokenDeny, ""},
		{"No, because it is the wrong folder.", spokenDeny, "it is the wrong folder"},
		{"no because it is the wrong folder", spokenDeny, "it is the wrong folder"},
		{"Deny, keep the logs.", spokenDeny, "keep the logs"},
		{"um no because wrong folder", spokenDeny, "wrong folder"},
		{"Trash it.", spokenTrash, ""},
		{"Move to Trash", spokenTrash, ""},
		{"move it to the trash", spokenTrash, ""},
		// Near misses: none of these approves.
		{"yes but no", spokenNone, ""},
		{"no yes", spokenNone, ""},
		{"not yet", spokenNone, ""},
		{"yesterday", spokenNone, ""},
		{"yes?", spokenNone, ""},
		{"Yes, but not that folder", spokenNone, ""},
		{"yes no", spokenNone, ""},
		{"", spokenNone, ""},
		{"um", spokenNone, ""},
		{"delete the old bills", spokenNone, ""},
		{"nope", spokenNone, ""},
		{"no problem", spokenNone, ""},
		{"don't stop", spokenNone, ""},
		{"yes. no.", spokenNone, ""},
		{"Yes, because why not, but no", spokenNone, ""},
		{"delete it", spokenDelete, ""},
		{"yes, delete them", spokenDelete, ""},
		{"delete the old bills", spokenNone, ""},
	}
	for _, c := range cases {
		got := parseSpoken(c.said)
		if got.kind != c.kind || got.reason != c.reason {
			t.Errorf("parseSpoken(%q) = %+v, want kind %d reason %q", c.said, got, c.kind, c.reason)
		}
	}
}

func TestSpokenDecision(t *testing.T) {
	t.Parallel()
	plain := Pending{ID: "p1", Command: "mkdir ~/Reports"}
	del := Pending{ID: "p2", Command: "rm -r ~/Downloads/old", TrashOffered: true}
	hidden := Pending{ID: "p3", Command: "rm -r ~/x\u202e"}
	unknown := Pending{ID: "p4", Command: "rm -r \"$D\"", Preview: &preview.Preview{Status: preview.Shown, Summary: "Cannot tell what it would touch: $D is not known"}}
	unavailable := Pending{ID: "p5", Command: "rm -r ~/y", Preview: &preview.Preview{Status: preview.Unavailable, Summary: "Preview unavailable: timed out"}}
	forbidden := Pending{ID: "p6", Command: "sudo rm -rf /", Tier: shell.Forbidden}
	sure := func(text string, p float64) []speech.Word {
		var ws []speech.Word
		for _, f := range strings.Fields(text) {
			ws = append(ws, speech.Word{Text: f, P: p})
		}
		return ws
	}
	type want int
	const (
		refused want = iota
		approved
		trashed
		denied
	)
	cases := []struct {
		name  string
		p     Pending
		said  string
		words []speech.Word
		want  want
	}{
		{"yes runs a plain command", plain, "yes", nil, approved},
		{"run it", plain, "Run it.", nil, approved},
		{"no denies", plain, "no", nil, denied},
		{"no because", plain, "No, because it is the wrong folder", nil, denied},
		{"trash not offered", plain, "trash it", nil, refused},
		{"delete not offered", plain, "delete it", nil, refused},
		{"near miss", plain, "yesterday", nil, refused},
		{"yes in a longer no", plain, "yes, but don't run it", nil, refused},
		{"don't", plain, "don't run it", nil, refused},
		{"no problem is not an answer", plain, "no problem", nil, refused},
		// Trash vs Delete: a plain yes takes the safe choice.
		{"yes to a deletion takes the Trash", del, "yes", nil, trashed},
		{"approve to a deletion takes the Trash", del, "approve", nil, trashed},
		{"run it to a deletion takes the Trash", del, "run it", nil, trashed},
		{"trash it", del, "trash it", nil, trashed},
		{"delete it deletes", del, "Delete it.", nil, approved},
		{"yes delete them", del, "yes, delete them", nil, approved},
		{"delete heard with doubt", del, "delete it", []speech.Word{{Text: "delete", P: 0.4}, {Text: "it", P: 0.95}}, refused},
		{"no to a deletion", del, "no", nil, denied},
		// What needs a click.
		{"hidden characters", hidden, "yes", nil, refused},
		{"hidden: trash", Pending{ID: "p7", Command: hidden.Command, TrashOffered: true}, "trash it", nil, refused},
		{"hidden: no is fine", hidden, "no", nil, denied},
		{"cannot tell", unknown, "yes", nil, refused},
		{"preview unavailable", unavailable, "yes", nil, refused},
		{"cannot tell: no is fine", unknown, "no", nil, denied},
		{"forbidden", forbidden, "yes", nil, refused},
		// Confidence.
		{"clear yes", plain, "Yes.", sure("Yes.", 0.97), approved},
		{"unsure yes", plain, "Yes.", sure("Yes.", 0.6), refused},
		{"yes not among the words", plain, "yes", []speech.Word{{Text: "yeah", P: 0.99}}, refused},
		{"unsure filler does not count", plain, "um, yes", []speech.Word{{Text: "um", P: 0.2}, {Text: "yes", P: 0.95}}, approved},
		{"unsure no still denies", plain, "no", sure("no", 0.3), denied},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, ok, why := spokenDecision(c.p, c.said, c.words)
			var got want
			switch {
			case !ok:
				got = refused
				if why == "" {
					t.Error("refused without saying why")
				}
			case d.Approved && !d.Trash:
				got = approved
			case d.Trash && !d.Approved:
				got = trashed
			case !d.Approved && !d.Trash:
				got = denied
			default:
				t.Fatalf("both approved and trashed: %+v", d)
			}
			if got != c.want {
				t.Fatalf("spokenDecision(%q) = %+v ok=%v why=%q, want %d", c.said, d, ok, why, c.want)
			}
			if ok && (d.By != ByVoice || d.PendingID != c.p.ID || d.Heard != strings.TrimSpace(c.said)) {
				t.Errorf("decision %+v does not record the voice and the words", d)
			}
		})
	}
	d, _, _ := spokenDecision(plain, "No, because it is the wrong folder", nil)
	if d.Reason != "it is the wrong folder" {
		t.Errorf("reason %q", d.Reason)
	}
}
