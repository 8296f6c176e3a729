package desktop

import (
	"strings"
	"testing"
)

// The give-up time arrives as text (argv). Coerced inside the display
// dialog command, "giving up after (item 3 of argv) as integer" could bind
// the coercion to the command's record result, so Approve would fail with
// -1700 and only Deny would work. Each script coerces in its own statement
// and passes a plain variable.
func TestDialogScriptsCoerceTheTimeoutAlone(t *testing.T) {
	t.Parallel()
	for name, script := range map[string][]string{
		"approve": dialogScript, "trash": trashDialogScript, "say again": sayAgainDialogScript,
	} {
		if len(script) < 3 || script[0] != "on run argv" {
			t.Errorf("%s: script starts %q, want on run argv", name, script[:1])
			continue
		}
		if script[1] != "set t to (item 3 of argv) as integer" {
			t.Errorf("%s: second line %q, want the timeout coerced on its own", name, script[1])
		}
		var dialog string
		for _, l := range script {
			if strings.Contains(l, "display dialog") {
				dialog = l
			}
		}
		if !strings.HasSuffix(dialog, " giving up after t") {
			t.Errorf("%s: dialog line %q must end with giving up after t", name, dialog)
		}
		if strings.Contains(dialog, " as ") || strings.Contains(dialog, "item 3") {
			t.Errorf("%s: dialog line %q still coerces or reads argv inline", name, dialog)
		}
		if !strings.HasPrefix(dialog, "set r to display dialog ") {
			t.Errorf("%s: dialog line %q must store the record in r", name, dialog)
		}
	}
}
