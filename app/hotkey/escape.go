package hotkey

import "fmt"

// escapeCombo is Escape without modifiers: what a person presses to call
// something off.
var escapeCombo = Combo{Key: "escape"}

// escapeTaken explains a failed grab of Escape in terms of what still works.
func escapeTaken(err error) error {
	return fmt.Errorf("Escape cannot cancel here (%v): another program holds it; choose Cancel in the Hark menu instead", err)
}
