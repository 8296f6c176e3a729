package icongen

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the PNGs in assets/icons from the generator")

const iconsDir = "../../icons"

// TestCommittedIcons keeps the committed PNGs equal to what the code draws, so
// a change to the drawing code cannot be forgotten in the files (and -update
// regenerates them).
func TestCommittedIcons(t *testing.T) {
	// The app icon is compared on every 16th row: drawing all of its million
	// pixels is most of this package's test time under -race.
	const appRowStep = 16
	var icons map[string]*image.NRGBA
	if *update {
		icons = Render()
	} else {
		icons = renderStates()
		icons[AppIconName] = appIcon(appRowStep)
	}
	names := make([]string, 0, len(icons))
	for n := range icons {
		names = append(names, n)
	}
	sort.Strings(names)
	if *update {
		for _, n := range names {
			var buf bytes.Buffer
			enc := png.Encoder{CompressionLevel: png.BestCompression}
			if err := enc.Encode(&buf, icons[n]); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(iconsDir, n), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			f, err := os.Open(filepath.Join(iconsDir, n))
			if err != nil {
				t.Fatalf("%v (run: go test ./assets/internal/icongen -run TestCommittedIcons -update)", err)
			}
			defer f.Close()
			got, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			want := icons[n]
			if got.Bounds() != want.Bounds() {
				t.Fatalf("committed %v, generator draws %v; regenerate with -update", got.Bounds(), want.Bounds())
			}
			step := 1
			if n == AppIconName {
				step = appRowStep
			}
			if x, y, ok := differs(got, want, step); ok {
				t.Fatalf("pixel (%d,%d) differs from the generator; regenerate with -update", x, y)
			}
		})
	}
}

// differs reports the first pixel that is off by more than rounding: float
// rounding may differ by one step between architectures that fuse
// multiply-adds.
func differs(a image.Image, b *image.NRGBA, rowStep int) (int, int, bool) {
	r := b.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += rowStep {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, aa := a.At(x, y).RGBA()
			br, bg, bb, ba := b.At(x, y).RGBA()
			for _, d := range [][2]uint32{{ar, br}, {ag, bg}, {ab, bb}, {aa, ba}} {
				if diff := int(d[0]>>8) - int(d[1]>>8); diff > 2 || diff < -2 {
					return x, y, true
				}
			}
		}
	}
	return 0, 0, false
}

func TestShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		shape      sdf
		x, y       float64
		wantInside bool
	}{
		{"circle centre", circle(0.5, 0.5, 0.1), 0.5, 0.5, true},
		{"circle outside", circle(0.5, 0.5, 0.1), 0.7, 0.5, false},
		{"segment on line", segment(0.1, 0.1, 0.9, 0.1, 0.05), 0.5, 0.11, true},
		{"segment beyond cap", segment(0.1, 0.1, 0.9, 0.1, 0.05), 0.95, 0.1, false},
		{"arc bottom of U", arc(0.5, 0.5, 0.2, 0, 3.14159, 0.05), 0.5, 0.7, true},
		{"arc top is open", arc(0.5, 0.5, 0.2, 0, 3.14159, 0.05), 0.5, 0.3, false},
		{"arc around pi", arc(0.5, 0.5, 0.2, 2.8, 3.5, 0.05), 0.3, 0.5, true},
		{"round rect inside", roundRect(0.1, 0.1, 0.9, 0.9, 0.2), 0.5, 0.5, true},
		{"round rect corner cut", roundRect(0.1, 0.1, 0.9, 0.9, 0.2), 0.11, 0.11, false},
		{"grow reaches", grow(circle(0.5, 0.5, 0.1), 0.05), 0.64, 0.5, true},
		{"place moves", place(circle(0.5, 0.5, 0.1), 0.5, 0.5, 0.5, 0.2, 0), 0.7, 0.5, true},
		{"place shrinks", place(circle(0.5, 0.5, 0.1), 0.5, 0.5, 0.5, 0, 0), 0.58, 0.5, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if inside := c.shape(c.x, c.y) < 0; inside != c.wantInside {
				t.Errorf("inside(%v,%v) = %v, want %v (distance %v)", c.x, c.y, inside, c.wantInside, c.shape(c.x, c.y))
			}
		})
	}
}

// TestBadgeIsKnockedOut checks the cut layers clear the template: the gap
// around the badge is transparent while the badge itself is inked.
func TestBadgeIsKnockedOut(t *testing.T) {
	t.Parallel()
	img := renderStates()["error-template@2x.png"]
	at := func(x, y float64) uint8 {
		return img.NRGBAAt(int(x*Template2x), int(y*Template2x)).A
	}
	if a := at(badgeX-badgeR-badgeGap/2, badgeY); a != 0 {
		t.Errorf("gap alpha = %d, want 0", a)
	}
	if a := at(badgeX+badgeR*0.7, badgeY); a != 0xff {
		t.Errorf("badge body alpha = %d, want 255", a)
	}
	if a := at(badgeX, badgeY); a > 0x40 {
		t.Errorf("centre of the cross alpha = %d, want knocked out", a)
	}
}
