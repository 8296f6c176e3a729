package app

import (
	"strings"
	"testing"
)

// TestClientNameHarkLookalikes: a client that names itself Hark in any
// disguise — case, lookalike letters from other scripts, fullwidth or
// mathematical letters, combining marks, invisible and bidi characters,
// digits for letters, punctuation and spaces around it, a suffix — is
// shown as the other program it is, wherever the name is shown; other
// names are shown as they are.
func TestClientNameHarkLookalikes(t *testing.T) {
	bases := []string{
		"Hark", "hark", "HARK", "hArK", "Нark", "Hаrk", "Harк", "НАRК", "Hагк", "ΗΑRΚ", "Ηark", "Hαrk",
		"Ｈａｒｋ", "𝐇𝐚𝐫𝐤", "ℍark", "H\u0301ark", "Ha\u0308rk", "H\u200bark", "Ha\u200drk", "\u202eHark",
		"H\u00adark", "H4rk", "Har\u1d0b", "ʜark", "Hɑrk", "H.a.r.k", "H a r k", "H-ark",
	}
	wraps := []string{"%s", " %s ", "\"%s\"", "«%s»", "[%s]", "%s.app", "%s (Hark)", "%s Desktop", "%s!", "…%s", "%s\u200b", "%s-mcp"}
	n := 0
	for _, b := range bases {
		for _, w := range wraps {
			name := strings.Replace(w, "%s", b, 1)
			n++
			got := ClientName(name)
			if !strings.HasSuffix(got, "(another program)") {
				t.Errorf("%q (%+q) is shown as %q, not as another program", name, name, got)
			}
			p := Pending{Client: name}
			if title := ApprovalTitle(p); !strings.Contains(title, "(another program)") {
				t.Errorf("%q: notification title %q", name, title)
			}
		}
	}
	t.Logf("%d forms", n)
	for _, name := range []string{"Claude Desktop", "Cursor", "Zed", "Goose", "Codex", "Shark", "Charkov", "Mark", "Park", "Hank", "Harp", "Dark Reader"} {
		if got := ClientName(name); got != name {
			t.Errorf("%q is shown as %q", name, got)
		}
	}
}
