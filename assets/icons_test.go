package assets

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// TestIcons checks every icon the tray and the bundle ask for is embedded,
// decodes, has its size, and that macOS template images are black with alpha
// (the menu bar recolours them by alpha alone, so any colour would be lost).
func TestIcons(t *testing.T) {
	t.Parallel()
	type want struct {
		name     string
		size     int
		template bool
	}
	var wants []want
	for _, st := range []string{"idle", "listening", "busy", "approval", "error", "autorun", "degraded"} {
		wants = append(wants,
			want{st + ".png", 64, false},
			want{st + "-template.png", 22, true},
			want{st + "-template@2x.png", 44, true},
		)
	}
	wants = append(wants, want{"hark-1024.png", 1024, false})
	for _, w := range wants {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			data, err := Icon(w.name)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if b := img.Bounds(); b.Dx() != w.size || b.Dy() != w.size {
				t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), w.size, w.size)
			}
			st := inspect(img)
			if st.opaque == 0 || st.clear == 0 {
				t.Errorf("want both opaque and transparent pixels, got %d opaque, %d transparent", st.opaque, st.clear)
			}
			if w.template && st.coloured > 0 {
				t.Errorf("template has %d pixels that are not black", st.coloured)
			}
			if !w.template && st.coloured == 0 {
				t.Error("colour icon has no colour")
			}
		})
	}
}

type pixelStats struct{ opaque, clear, coloured int }

func inspect(img image.Image) pixelStats {
	var s pixelStats
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			switch {
			case a == 0:
				s.clear++
				continue
			case a == 0xffff:
				s.opaque++
			}
			if r|g|bl != 0 {
				s.coloured++
			}
		}
	}
	return s
}
