package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"

	"golang.org/x/image/draw"
)

// IcnsEntry is one image of an .icns file: a four-letter type and the pixel
// size it must have. Every type listed here holds PNG data, which macOS has
// read since 10.7 for all of them.
type IcnsEntry struct {
	Type string
	Size int
}

// IcnsEntries is the set Hark writes: every size Finder, the Dock and the
// menu bar ask for, at 1x and 2x.
var IcnsEntries = []IcnsEntry{
	{"icp4", 16},
	{"icp5", 32},
	{"ic11", 32},  // 16 pt @2x
	{"ic12", 64},  // 32 pt @2x
	{"ic07", 128}, // 128 pt
	{"ic13", 256}, // 128 pt @2x
	{"ic08", 256}, // 256 pt
	{"ic14", 512}, // 256 pt @2x
	{"ic09", 512}, // 512 pt
	{"ic10", 1024},
}

// iconEncoder favours speed: the bundle is rebuilt on every `make app`, and
// the best compression saves little on smooth-edged icons.
var iconEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// WriteIcns encodes src at every size of IcnsEntries into an .icns container:
// the magic "icns" and the total length, then per entry its type, its length
// (header included) and a PNG. src should be square and at least 1024 pixels
// so no entry is scaled up.
func WriteIcns(src image.Image) ([]byte, error) {
	b := src.Bounds()
	if b.Dx() != b.Dy() {
		return nil, fmt.Errorf("icns: source is %dx%d, want a square image", b.Dx(), b.Dy())
	}
	pngs := map[int][]byte{} // sizes shared by two entries are encoded once
	mips := newMipChain(src)
	var body bytes.Buffer
	for _, e := range IcnsEntries {
		data, ok := pngs[e.Size]
		if !ok {
			var buf bytes.Buffer
			if err := iconEncoder.Encode(&buf, mips.scale(e.Size)); err != nil {
				return nil, fmt.Errorf("icns: %s: %w", e.Type, err)
			}
			data = buf.Bytes()
			pngs[e.Size] = data
		}
		body.WriteString(e.Type)
		_ = binary.Write(&body, binary.BigEndian, uint32(8+len(data)))
		body.Write(data)
	}
	var out bytes.Buffer
	out.WriteString("icns")
	_ = binary.Write(&out, binary.BigEndian, uint32(8+body.Len()))
	out.Write(body.Bytes())
	return out.Bytes(), nil
}

// Scale resizes src to size×size. It halves the image with a 2×2 box filter
// while it is at least twice too big (exact for our power-of-two sizes, and
// it averages every source pixel so thin strokes stay smooth at 16 pixels),
// then finishes any remaining factor with Catmull-Rom.
func Scale(src image.Image, size int) *image.NRGBA {
	return newMipChain(src).scale(size)
}

// mipChain is an image and its successive halvings, made once so that every
// size of an icon set is cut from the nearest larger level.
type mipChain struct{ levels []*image.RGBA }

func newMipChain(src image.Image) *mipChain {
	m := &mipChain{levels: []*image.RGBA{toRGBA(src)}}
	return m
}

func (m *mipChain) scale(size int) *image.NRGBA {
	cur := m.levels[0]
	for i := 1; ; i++ {
		if b := cur.Bounds(); b.Dx() < 2*size || b.Dy() < 2*size {
			break
		}
		if i == len(m.levels) {
			m.levels = append(m.levels, halve(cur))
		}
		cur = m.levels[i]
	}
	if b := cur.Bounds(); b.Dx() == size && b.Dy() == size {
		return toNRGBA(cur)
	}
	dst := image.NewRGBA(image.Rect(0, 0, size, size))
	draw.CatmullRom.Scale(dst, dst.Bounds(), cur, cur.Bounds(), draw.Src, nil)
	return toNRGBA(dst)
}

// toRGBA copies src into premultiplied form, where averaging is correct
// (averaging straight alpha would bleed the colour of transparent pixels).
func toRGBA(src image.Image) *image.RGBA {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
	return dst
}

func halve(src *image.RGBA) *image.RGBA {
	w, h := src.Bounds().Dx()/2, src.Bounds().Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		r0 := src.Pix[(2*y)*src.Stride:]
		r1 := src.Pix[(2*y+1)*src.Stride:]
		out := dst.Pix[y*dst.Stride:]
		for x := 0; x < w; x++ {
			for c := 0; c < 4; c++ {
				i := 8*x + c
				sum := int(r0[i]) + int(r0[i+4]) + int(r1[i]) + int(r1[i+4])
				out[4*x+c] = uint8((sum + 2) / 4)
			}
		}
	}
	return dst
}

func toNRGBA(src *image.RGBA) *image.NRGBA {
	dst := image.NewNRGBA(src.Bounds())
	draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Src)
	return dst
}

// IcnsImage is one entry read back from an .icns file.
type IcnsImage struct {
	Type string
	Data []byte
}

// readIcns splits an .icns file into its entries, checking the magic and every
// length. It is the inverse of WriteIcns; the tests read back what it wrote.
func readIcns(data []byte) ([]IcnsImage, error) {
	if len(data) < 8 || string(data[:4]) != "icns" {
		return nil, errors.New("icns: missing the \"icns\" magic")
	}
	total := binary.BigEndian.Uint32(data[4:8])
	if int(total) != len(data) {
		return nil, fmt.Errorf("icns: header says %d bytes, file has %d", total, len(data))
	}
	var out []IcnsImage
	for rest := data[8:]; len(rest) > 0; {
		if len(rest) < 8 {
			return nil, fmt.Errorf("icns: %d stray bytes at the end", len(rest))
		}
		n := binary.BigEndian.Uint32(rest[4:8])
		if n < 8 || int(n) > len(rest) {
			return nil, fmt.Errorf("icns: entry %q has length %d, %d bytes remain", rest[:4], n, len(rest))
		}
		out = append(out, IcnsImage{Type: string(rest[:4]), Data: rest[8:n]})
		rest = rest[n:]
	}
	return out, nil
}
