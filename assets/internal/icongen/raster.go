// Package icongen draws Hark's tray and application icons from code, so the
// PNGs in assets/icons can be regenerated exactly and reviewed as source. Shapes
// are signed distance functions in a unit square (y grows downwards); a pixel's
// coverage comes from its distance to the edge, which anti-aliases at any size
// without supersampling.
//
// Regenerate the committed files with:
//
//	go test ./assets/internal/icongen -run TestCommittedIcons -update
package icongen

import (
	"image"
	"image/color"
	"math"
)

// sdf is a signed distance in unit-square coordinates: negative inside.
type sdf func(x, y float64) float64

// paint gives the straight-alpha colour of a layer at a point.
type paint func(x, y float64) [4]float64

// layer is one drawing step: ink paints its colour over what is below; a cut
// clears to the background (transparent for templates), which is how symbols
// are knocked out of a badge.
type layer struct {
	shape sdf
	cut   bool
}

func solid(c color.NRGBA) paint {
	v := [4]float64{float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255, float64(c.A) / 255}
	return func(float64, float64) [4]float64 { return v }
}

// render draws the layers at size×size. Ink layers use fg; cut layers use bg,
// or clear to transparent when bg is nil.
func render(size int, layers []layer, fg, bg paint) *image.NRGBA {
	return renderRows(size, layers, fg, bg, 1)
}

// renderRows draws only every step-th row (the others stay transparent): the
// test compares a sample of the 1024-pixel icon instead of all of it.
func renderRows(size int, layers []layer, fg, bg paint, step int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	px := 1 / float64(size)
	for j := 0; j < size; j += step {
		for i := 0; i < size; i++ {
			x, y := (float64(i)+0.5)*px, (float64(j)+0.5)*px
			var acc [4]float64 // premultiplied
			for _, l := range layers {
				cov := coverage(l.shape(x, y), px)
				if cov == 0 {
					continue
				}
				switch {
				case l.cut && bg == nil:
					for k := range acc {
						acc[k] *= 1 - cov
					}
				default:
					p := fg
					if l.cut {
						p = bg
					}
					c := p(x, y)
					a := c[3] * cov
					for k := 0; k < 3; k++ {
						acc[k] = c[k]*a + acc[k]*(1-a)
					}
					acc[3] = a + acc[3]*(1-a)
				}
			}
			img.SetNRGBA(i, j, toNRGBA(acc))
		}
	}
	return img
}

// coverage turns a signed distance into the share of a pixel inside the shape:
// a one-pixel-wide ramp centred on the edge.
func coverage(d, px float64) float64 {
	return clamp(0.5-d/px, 0, 1)
}

func toNRGBA(p [4]float64) color.NRGBA {
	if p[3] <= 0 {
		return color.NRGBA{}
	}
	q := func(v float64) uint8 { return uint8(math.Round(clamp(v, 0, 1) * 255)) }
	return color.NRGBA{R: q(p[0] / p[3]), G: q(p[1] / p[3]), B: q(p[2] / p[3]), A: q(p[3])}
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// Shapes.

func circle(cx, cy, r float64) sdf {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

// segment is a stroke of width w between two points, with round caps.
func segment(ax, ay, bx, by, w float64) sdf {
	return func(x, y float64) float64 {
		px, py, dx, dy := x-ax, y-ay, bx-ax, by-ay
		t := clamp((px*dx+py*dy)/(dx*dx+dy*dy), 0, 1)
		return math.Hypot(px-dx*t, py-dy*t) - w/2
	}
}

// arc is a round-capped stroke of width w along a circle of radius r centred
// at (cx, cy), from angle a0 to a1 (radians, clockwise on screen since y grows
// downwards; a0 < a1).
func arc(cx, cy, r, a0, a1, w float64) sdf {
	ex0, ey0 := cx+r*math.Cos(a0), cy+r*math.Sin(a0)
	ex1, ey1 := cx+r*math.Cos(a1), cy+r*math.Sin(a1)
	mid := (a0 + a1) / 2
	half := (a1 - a0) / 2
	return func(x, y float64) float64 {
		a := math.Atan2(y-cy, x-cx)
		// Angle difference to the arc's middle, wrapped to (-π, π].
		d := math.Remainder(a-mid, 2*math.Pi)
		if math.Abs(d) <= half {
			return math.Abs(math.Hypot(x-cx, y-cy)-r) - w/2
		}
		return math.Min(math.Hypot(x-ex0, y-ey0), math.Hypot(x-ex1, y-ey1)) - w/2
	}
}

// roundRect is a filled rectangle with corner radius r.
func roundRect(x0, y0, x1, y1, r float64) sdf {
	cx, cy := (x0+x1)/2, (y0+y1)/2
	hx, hy := (x1-x0)/2-r, (y1-y0)/2-r
	return func(x, y float64) float64 {
		qx, qy := math.Abs(x-cx)-hx, math.Abs(y-cy)-hy
		out := math.Hypot(math.Max(qx, 0), math.Max(qy, 0))
		return out + math.Min(math.Max(qx, qy), 0) - r
	}
}

// grow widens a shape by w on every side (an outline for knock-out gaps).
func grow(s sdf, w float64) sdf {
	return func(x, y float64) float64 { return s(x, y) - w }
}

func union(ss ...sdf) sdf {
	return func(x, y float64) float64 {
		d := math.Inf(1)
		for _, s := range ss {
			d = math.Min(d, s(x, y))
		}
		return d
	}
}

// place draws s scaled by k about the point (ox, oy), moved to (ox+dx, oy+dy).
func place(s sdf, k, ox, oy, dx, dy float64) sdf {
	return func(x, y float64) float64 {
		return s((x-ox-dx)/k+ox, (y-oy-dy)/k+oy) * k
	}
}
