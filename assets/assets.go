// Package assets embeds the files Hark ships inside its binary: the system
// prompt given to the model and the tray and application icons.
package assets

import (
	"embed"
	"io/fs"
)

// SystemPrompt is the template of the system prompt (see agent for the values
// filled in).
//
//go:embed system_prompt.md
var SystemPrompt string

//go:embed icons
var icons embed.FS

// Icon returns the embedded icon file of that name (for example
// "idle.png" or "idle-template@2x.png"), or an error naming what is missing.
func Icon(name string) ([]byte, error) {
	return fs.ReadFile(icons, "icons/"+name)
}
