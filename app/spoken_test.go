package app

import "testing"

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
	}
	for _, c := range cases {
		got := parseSpoken(c.said)
		if got.kind != c.kind || got.reason != c.reason {
			t.Errorf("parseSpoken(%q) = %+v, want kind %d reason %q", c.said, got, c.kind, c.reason)
		}
	}
}

func TestSpokenDecision(t *testing.T) {
	p := Pending{ID: "p1", Command: "rm -r ~/Downloads/old"}
	d, ok, _ := spokenDecision(p, "yes")
	if !ok || !d.Approved || d.By != ByVoice || d.PendingID != "p1" {
		t.Fatalf("yes: %+v ok=%v", d, ok)
	}
	d, ok, _ = spokenDecision(p, "No, because it is the wrong folder")
	if !ok || d.Approved || d.Reason != "it is the wrong folder" {
		t.Fatalf("no because: %+v ok=%v", d, ok)
	}
	if _, ok, why := spokenDecision(p, "trash it"); ok || why == "" {
		t.Fatalf("trash where not offered was taken (why %q)", why)
	}
	p.TrashOffered = true
	if d, ok, _ := spokenDecision(p, "trash it"); !ok || !d.Trash || d.Approved {
		t.Fatalf("trash: %+v ok=%v", d, ok)
	}
	if _, ok, why := spokenDecision(p, "yesterday"); ok || why == "" {
		t.Fatalf("near miss was taken (why %q)", why)
	}
	hidden := Pending{ID: "p2", Command: "rm -r ~/x\u202e"}
	if _, ok, why := spokenDecision(hidden, "yes"); ok || why == "" {
		t.Fatalf("a spoken yes approved a command with hidden characters")
	}
	// Denying a hidden command by voice is still fine: it runs nothing.
	if d, ok, _ := spokenDecision(hidden, "no"); !ok || d.Approved {
		t.Fatalf("no on hidden: %+v ok=%v", d, ok)
	}
}
