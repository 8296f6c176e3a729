package icongen

import (
	"image"
	"image/color"
	"math"
)

// States are the tray states that each have an icon.
var States = []string{"idle", "listening", "busy", "approval", "error", "autorun", "degraded"}

// Sizes of the generated files, in pixels.
const (
	ColourSize   = 64   // STATE.png: Linux trays scale this down themselves
	TemplateSize = 22   // STATE-template.png: one macOS menu-bar point is one pixel
	Template2x   = 44   // STATE-template@2x.png: Retina menu bars
	AppIconSize  = 1024 // hark-1024.png: the source of the .icns and the Linux icon
	AppIconName  = "hark-1024.png"
)

// stateColour is the disc behind the white glyph of each colour icon. The
// glyph carries the meaning; the colour is a second cue that survives being
// scaled to 16 pixels by a tray.
var stateColour = map[string]color.NRGBA{
	"idle":      {0x49, 0x50, 0x57, 0xff}, // slate: nothing happening
	"listening": {0xe0, 0x31, 0x31, 0xff}, // red: recording
	"busy":      {0x19, 0x71, 0xc2, 0xff}, // blue: thinking or running
	"approval":  {0xe6, 0x77, 0x00, 0xff}, // amber: waiting for you
	"error":     {0x86, 0x2e, 0x9c, 0xff}, // violet, kept apart from the recording red
	"autorun":   {0xd9, 0x48, 0x0f, 0xff}, // burnt orange: commands run without asking
	"degraded":  {0x86, 0x8e, 0x96, 0xff}, // grey: a part the hotkey needs is missing
}

// Render returns every icon file by name.
func Render() map[string]*image.NRGBA {
	out := renderStates()
	out[AppIconName] = appIcon(1)
	return out
}

// renderStates draws the tray icons of every state.
func renderStates() map[string]*image.NRGBA {
	out := make(map[string]*image.NRGBA)
	black := solid(color.NRGBA{A: 0xff})
	for _, st := range States {
		g := glyph(st)
		out[st+"-template.png"] = render(TemplateSize, g, black, nil)
		out[st+"-template@2x.png"] = render(Template2x, g, black, nil)
		out[st+".png"] = renderColour(st, ColourSize)
	}
	return out
}

// renderColour draws the colour icon of state at size: the white glyph on
// the state's coloured backdrop.
func renderColour(st string, size int) *image.NRGBA {
	white := solid(color.NRGBA{0xff, 0xff, 0xff, 0xff})
	colour := []layer{{shape: backdrop(st), cut: true}}
	for _, l := range glyph(st) {
		colour = append(colour, layer{shape: place(l.shape, 0.66, 0.5, 0.5, 0, 0), cut: l.cut})
	}
	return render(size, colour, white, solid(stateColour[st]))
}

// backdrop is the outline of a colour icon. Most are discs; the states a
// user must not mistake for one another at tray size also differ in
// outline, since colour alone fails at 22 px and for colour-blind users.
func backdrop(st string) sdf {
	switch st {
	case "autorun": // a square: the usual round guard is off
		return roundRect(0.04, 0.04, 0.96, 0.96, 0.12)
	}
	return circle(0.5, 0.5, 0.47)
}

// microphone is the glyph shared by every icon: a capsule head in a U-shaped
// holder on a stand.
func microphone() sdf {
	const w = 0.075
	return union(
		segment(0.5, 0.24, 0.5, 0.42, 0.26),
		arc(0.5, 0.42, 0.215, -0.15, math.Pi+0.15, w),
		segment(0.5, 0.635, 0.5, 0.80, w),
		segment(0.37, 0.82, 0.63, 0.82, w),
	)
}

// The badge sits in the lower right corner, separated from the microphone by
// a cleared gap, with its symbol knocked out of it.
const (
	badgeX, badgeY, badgeR = 0.74, 0.74, 0.2
	badgeGap               = 0.06
	symbolW                = 0.06
)

func glyph(state string) []layer {
	switch state {
	case "listening":
		// Sound waves either side of a slightly smaller microphone.
		const cy, w, spread = 0.42, 0.06, 0.55
		waves := union(
			arc(0.5, cy, 0.30, -spread, spread, w),
			arc(0.5, cy, 0.41, -spread, spread, w),
			arc(0.5, cy, 0.30, math.Pi-spread, math.Pi+spread, w),
			arc(0.5, cy, 0.41, math.Pi-spread, math.Pi+spread, w),
		)
		return []layer{{shape: union(place(microphone(), 0.78, 0.5, 0.5, 0, 0), waves)}}
	case "idle":
		return []layer{{shape: microphone()}}
	}
	var symbol sdf
	switch state {
	case "busy": // an ellipsis: working on it
		r := 0.034
		symbol = union(circle(badgeX-0.09, badgeY, r), circle(badgeX, badgeY, r), circle(badgeX+0.09, badgeY, r))
	case "approval": // an exclamation mark: your answer is needed
		symbol = union(segment(badgeX, badgeY-0.09, badgeX, badgeY+0.015, symbolW), circle(badgeX, badgeY+0.085, symbolW*0.6))
	case "autorun": // fast-forward chevrons: runs on without stopping for you
		const h, w = 0.075, 0.05
		symbol = union(
			segment(badgeX-0.085, badgeY-h, badgeX-0.02, badgeY, w), segment(badgeX-0.085, badgeY+h, badgeX-0.02, badgeY, w),
			segment(badgeX+0.005, badgeY-h, badgeX+0.07, badgeY, w), segment(badgeX+0.005, badgeY+h, badgeX+0.07, badgeY, w),
		)
	case "degraded": // a bar: something is missing
		symbol = segment(badgeX-0.085, badgeY, badgeX+0.085, badgeY, symbolW)
	default: // error: a cross
		const d = 0.07
		symbol = union(segment(badgeX-d, badgeY-d, badgeX+d, badgeY+d, symbolW), segment(badgeX-d, badgeY+d, badgeX+d, badgeY-d, symbolW))
	}
	badge := circle(badgeX, badgeY, badgeR)
	return []layer{
		{shape: place(microphone(), 0.92, 0.5, 0.5, -0.08, -0.03)},
		{shape: grow(badge, badgeGap), cut: true},
		{shape: badge},
		{shape: symbol, cut: true},
	}
}

// appIcon is the application icon: the listening glyph in white on an indigo
// rounded square inset on Apple's icon grid (824 of 1024 pixels). rowStep > 1
// draws only a sample of the rows.
func appIcon(rowStep int) *image.NRGBA {
	const inset = 100.0 / 1024
	top, bottom := color.NRGBA{0x5c, 0x7c, 0xfa, 0xff}, color.NRGBA{0x5f, 0x3d, 0xc4, 0xff}
	gradient := func(_, y float64) [4]float64 {
		t := clamp((y-inset)/(1-2*inset), 0, 1)
		mix := func(a, b uint8) float64 { return (float64(a)*(1-t) + float64(b)*t) / 255 }
		return [4]float64{mix(top.R, bottom.R), mix(top.G, bottom.G), mix(top.B, bottom.B), 1}
	}
	layers := []layer{{shape: roundRect(inset, inset, 1-inset, 1-inset, 0.185), cut: true}}
	for _, l := range glyph("listening") {
		layers = append(layers, layer{shape: place(l.shape, 0.62, 0.5, 0.5, 0, 0.01), cut: l.cut})
	}
	return renderRows(AppIconSize, layers, solid(color.NRGBA{0xff, 0xff, 0xff, 0xff}), gradient, rowStep)
}
