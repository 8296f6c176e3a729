package icongen

import (
	"image"
	"testing"
)

// minShapeDiff is how many of the 484 pixels of a 22 px tray icon must
// differ in shape (opacity, or where the white glyph is) between any two
// states, hue left out: their badge symbols at least. outlineDiff is the
// bar for the pair the walk could not tell apart at 22 px, "waiting" and
// "confirmation off", whose outlines now differ as well.
const (
	minShapeDiff = 8
	outlineDiff  = 30
)

// shapeMask is the icon reduced to what survives without colour: whether
// each pixel is opaque, and whether it is the white glyph.
func shapeMask(img *image.NRGBA) (opaque, glyph []bool) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			opaque = append(opaque, c.A >= 128)
			glyph = append(glyph, c.A >= 128 && min(c.R, c.G, c.B) >= 200)
		}
	}
	return opaque, glyph
}

func TestStatesDifferInShapeAt22px(t *testing.T) {
	t.Parallel()
	masks := map[string][2][]bool{}
	for _, st := range States {
		o, g := shapeMask(renderColour(st, 22))
		masks[st] = [2][]bool{o, g}
	}
	for i, a := range States {
		for _, b := range States[i+1:] {
			n := 0
			for p := range masks[a][0] {
				if masks[a][0][p] != masks[b][0][p] || masks[a][1][p] != masks[b][1][p] {
					n++
				}
			}
			if (a == "approval" && b == "autorun") && n < outlineDiff {
				t.Errorf("approval and autorun differ in %d pixels of shape at 22 px, want ≥ %d", n, outlineDiff)
			}
			if testing.Verbose() {
				t.Logf("%s/%s: %d", a, b, n)
			}
			if n < minShapeDiff {
				t.Errorf("%s and %s differ in only %d pixels of shape at 22 px (want ≥ %d): told apart by colour alone", a, b, n, minShapeDiff)
			}
		}
	}
}
