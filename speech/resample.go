package speech

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Filter design of the resampler. The stopband starts exactly at the lower of
// the two Nyquist frequencies, so nothing above 8 kHz can fold back into a
// 16 kHz recording; the passband keeps everything up to passbandFraction of
// it (7.2 kHz at 16 kHz out), which holds all of speech that matters to
// whisper's mel filters. stopbandDB is the Kaiser design target; it leaves a
// margin over the 60 dB the tests demand for float32 rounding.
const (
	passbandFraction = 0.9
	stopbandDB       = 75.0
	// preStageDB is the design target of the halving stages before the
	// last. A Kaiser filter's passband ripple equals its stopband ripple,
	// and the ripples of cascaded stages add up; these short filters get a
	// deeper target, nearly free, so a cascade is as clean as one stage.
	preStageDB = 95.0
	// maxExactPhases bounds the table of a rational ratio (in/out reduced):
	// 48→16 kHz needs 1 phase, 44.1→16 kHz 160, 22.05→16 kHz 320. Odder
	// rates use interpPhases tables and interpolate between neighbours.
	maxExactPhases = 512
	interpPhases   = 256
)

// Resampler converts between two fixed sample rates with windowed-sinc
// (Kaiser) low-pass filters in polyphase form. Its coefficient tables are
// computed once in NewResampler, so converting costs one short dot product per
// output sample. A Resampler is safe for concurrent use.
//
// Large reductions run in two or more stages: halving the rate first with a
// short half-band filter (its transition band can be wide, since whatever it
// lets through above the final band is removed later) leaves the long, sharp
// filter fewer input samples to cover. Both stages are symmetric, so each
// mirror pair of samples is added before its one multiply: 48→24→16 kHz
// takes 88.5 multiplies per output sample where the same cascade without
// those two shortcuts takes 204, and a direct 48→16 kHz filter 288.
type Resampler struct {
	inRate, outRate int
	pre             *Resampler // earlier stage, or nil
	up, down        int        // out/in reduced: each output advances down/up input samples
	half            int        // filter taps on each side of the output instant
	taps            int        // coefficients per phase (2*half, rounded up to a multiple of 8)
	phases          int
	exact           bool      // phases == up: each output has its own table row
	table           []float32 // (phases+1) rows of taps coefficients

	// Symmetric stages. A linear-phase filter weighs the samples at equal
	// distances before and after the output instant alike, so those pairs
	// are summed first and multiplied once: half the multiplies and half
	// the coefficient loads. fold holds one row of half coefficients per
	// phase; span[p] is the distance from the first to the last sample
	// that phase p weighs (its centre tap, if any, is a pair with itself
	// and a halved coefficient).
	fold []float32
	span []int
	// halfband marks a halving stage whose cutoff is exactly a quarter of
	// its input rate: every other coefficient is zero, so only the odd
	// input samples go through fold and the even ones are weighed by
	// centre alone.
	halfband bool
	centre   float32
}

var resamplers sync.Map // [2]int{in, out} → *Resampler

// Resample returns a converted to rate. Audio already at rate is returned
// unchanged. Filters are built once per pair of rates and kept.
func Resample(a Audio, rate int) (Audio, error) {
	if err := a.Validate(); err != nil {
		return Audio{}, err
	}
	if rate <= 0 {
		return Audio{}, fmt.Errorf("cannot resample to %d Hz", rate)
	}
	if a.SampleRate == rate {
		return a, nil
	}
	key := [2]int{a.SampleRate, rate}
	r, ok := resamplers.Load(key)
	if !ok {
		nr, err := NewResampler(a.SampleRate, rate)
		if err != nil {
			return Audio{}, err
		}
		r, _ = resamplers.LoadOrStore(key, nr)
	}
	return Audio{Samples: r.(*Resampler).Process(a.Samples), SampleRate: rate}, nil
}

// NewResampler designs the filters for converting inRate to outRate.
func NewResampler(inRate, outRate int) (*Resampler, error) {
	if inRate < 1000 || inRate > 768000 || outRate < 1000 || outRate > 768000 {
		return nil, fmt.Errorf("cannot resample %d Hz to %d Hz: rates must be between 1 kHz and 768 kHz", inRate, outRate)
	}
	// The band kept, in Hz: up to passbandFraction of the lower Nyquist
	// frequency, with nothing above that Nyquist frequency surviving.
	band := 0.5 * float64(min(inRate, outRate))
	pass := passbandFraction * band
	var pre *Resampler
	rate := inRate
	// Halve while the halved rate still leaves a wide transition for the
	// halving filter (at least a quarter of the final band).
	for rate%2 == 0 && float64(rate/2-outRate) >= 0.25*float64(outRate) {
		half := rate / 2
		// Frequencies above half-band fold around half/2; those landing
		// below band would survive the final stage, so they must go now.
		// Passing up to band, symmetric about half/2, makes the filter a
		// half-band one with half its coefficients zero.
		st := newHalfband(rate, band, preStageDB)
		st.pre = pre
		pre, rate = st, half
	}
	last := newStage(rate, outRate, pass, band, stopbandDB)
	last.pre = pre
	return last, nil
}

// newStage designs one polyphase stage from inRate to outRate passing
// [0, pass] Hz and stopping [stop, ∞) Hz, attenuated by atten dB.
func newStage(inRate, outRate int, passHz, stopHz, atten float64) *Resampler {
	g := gcd(inRate, outRate)
	r := &Resampler{inRate: inRate, outRate: outRate, up: outRate / g, down: inRate / g}

	// Frequencies in cycles per input sample.
	pass, stop := passHz/float64(inRate), stopHz/float64(inRate)
	cutoff := (pass + stop) / 2
	transition := stop - pass
	// Kaiser's estimates of the window length and shape for stopbandDB.
	n := (atten - 7.95) / (2.285 * 2 * math.Pi * transition)
	beta := 0.1102 * (atten - 8.7)
	r.half = int(math.Ceil(n/2)) + 1
	r.taps = (2*r.half + 7) &^ 7

	r.phases, r.exact = r.up, true
	if r.up > maxExactPhases {
		r.phases, r.exact = interpPhases, false
	}
	r.table = make([]float32, (r.phases+1)*r.taps)
	radius := float64(r.half)
	i0beta := besselI0(beta)
	coef := make([]float64, r.taps)
	for p := 0; p <= r.phases; p++ {
		frac := float64(p) / float64(r.phases)
		row := r.table[p*r.taps : (p+1)*r.taps]
		var sum float64
		clear(coef)
		// Coefficient c weighs input sample i-half+1+c for an output at
		// input time i+frac; its distance from the output instant is tau.
		for c := range 2 * r.half {
			tau := frac + float64(r.half-1-c)
			if math.Abs(tau) >= radius {
				continue
			}
			x := tau / radius
			w := besselI0(beta*math.Sqrt(1-x*x)) / i0beta
			h := 2 * cutoff * sinc(2*cutoff*tau) * w
			coef[c] = h
			sum += h
		}
		// Normalising every phase to unit DC gain keeps a constant signal
		// constant; without it the phases differ slightly and a DC offset
		// turns into a faint tone at the phase rate.
		for c := range coef {
			row[c] = float32(coef[c] / sum)
		}
	}
	// Phases 0 and ½ are the only ones symmetric about the output
	// instant; when up ≤ 2 they are all the phases there are.
	if r.exact && r.up <= 2 {
		r.fold = make([]float32, r.up*r.half)
		r.span = make([]int, r.up)
		for p := range r.up {
			f := r.fold[p*r.half : (p+1)*r.half]
			copy(f, r.table[p*r.taps:p*r.taps+r.half])
			if p == 0 {
				// Odd length: the centre tap pairs with itself.
				r.span[p] = 2*r.half - 2
				f[r.half-1] /= 2
			} else {
				r.span[p] = 2*r.half - 1
			}
		}
	}
	return r
}

// newHalfband designs a stage halving inRate that passes [0, passHz] and
// stops everything above inRate/2 - passHz. Its cutoff, halfway between,
// is a quarter of inRate, where the sinc is zero at every even distance
// from the centre; only the centre and the odd distances need weighing.
func newHalfband(inRate int, passHz, atten float64) *Resampler {
	r := &Resampler{inRate: inRate, outRate: inRate / 2, up: 1, down: 2, phases: 1, exact: true, halfband: true}
	transition := (float64(inRate)/2 - 2*passHz) / float64(inRate)
	n := (atten - 7.95) / (2.285 * 2 * math.Pi * transition)
	beta := 0.1102 * (atten - 8.7)
	r.half = int(math.Ceil(n/2)) + 1
	radius := float64(r.half)
	i0beta := besselI0(beta)
	k := r.half / 2 // odd distances 1, 3, … below radius
	coef := make([]float64, k)
	sum := 0.5 // the centre: 2·cutoff
	for j := range coef {
		d := float64(2*j + 1)
		x := d / radius
		w := besselI0(beta*math.Sqrt(1-x*x)) / i0beta
		coef[j] = 0.5 * sinc(0.5*d) * w
		sum += 2 * coef[j]
	}
	// fold runs from the farthest pair inwards, as in newStage.
	r.fold = make([]float32, k)
	for j := range coef {
		r.fold[k-1-j] = float32(coef[j] / sum)
	}
	r.span = []int{2*k - 1}
	r.centre = float32(0.5 / sum)
	r.taps = 2*k + 1
	return r
}

// multiplies is the number of multiplications per output of this stage.
func (r *Resampler) multiplies() int {
	switch {
	case r.halfband:
		return len(r.fold) + 1
	case r.fold != nil:
		return r.half
	case r.exact:
		return r.taps
	}
	return 2*r.taps + 1
}

// Process converts a whole buffer of samples at the input rate. Samples before
// the start and after the end count as silence. Long buffers are shared out
// among GOMAXPROCS goroutines.
func (r *Resampler) Process(in []float32) []float32 {
	return r.process(in, runtime.GOMAXPROCS(0))
}

// process is Process on at most workers goroutines.
func (r *Resampler) process(in []float32, workers int) []float32 {
	if r.halfband {
		out := make([]float32, r.lenThrough(len(in)))
		r.halveInto(in, out, workers)
		return out
	}
	n := len(in)
	if r.pre != nil {
		n = r.pre.lenThrough(n)
	}
	if n == 0 {
		return []float32{}
	}
	// Padding with silence on both sides lets every output use the same
	// branch-free inner loop. Earlier stages write straight into it.
	pad := getScratch(r.half - 1 + n + r.taps)
	defer putScratch(pad)
	clear(pad[:r.half-1])
	clear(pad[r.half-1+n:])
	if r.pre != nil {
		r.pre.halveInto(in, pad[r.half-1:r.half-1+n], workers)
	} else {
		copy(pad[r.half-1:], in)
	}
	out := make([]float32, r.outLen(n))
	r.run(pad, out, workers)
	return out
}

// outLen is the number of samples this stage makes of n.
func (r *Resampler) outLen(n int) int {
	return int((int64(n)*int64(r.up) + int64(r.down) - 1) / int64(r.down))
}

// lenThrough is the number of samples this stage and the ones before it
// make of n.
func (r *Resampler) lenThrough(n int) int {
	if r.pre != nil {
		n = r.pre.lenThrough(n)
	}
	return r.outLen(n)
}

// run computes out from pad, the stage's input with half-1 zeros before it
// and taps zeros after.
func (r *Resampler) run(pad, out []float32, workers int) {
	outLen := len(out)
	taps, up, down := r.taps, r.up, r.down
	switch {
	case r.fold != nil:
		// Outputs n, n+up, n+2·up and n+3·up use the same phase at input
		// positions down apart, so they are computed together: each
		// coefficient is loaded once for four outputs.
		half := r.half
		forChunks(workers, outLen, 4*up, r.half, func(lo, hi int) {
			n := lo
			for ; n+4*up <= hi; n += 4 * up {
				for m := n; m < n+up; m++ {
					i, p := m*down/up, m*down%up
					out[m], out[m+up], out[m+2*up], out[m+3*up] = foldDot4(pad, i, down, r.span[p], r.fold[p*half:(p+1)*half])
				}
			}
			for ; n < hi; n++ {
				i, p := n*down/up, n*down%up
				out[n] = foldDot(pad, i, r.span[p], r.fold[p*half:(p+1)*half])
			}
		})
	case r.exact:
		forChunks(workers, outLen, 4*up, taps, func(lo, hi int) {
			n := lo
			for ; n+4*up <= hi; n += 4 * up {
				for m := n; m < n+up; m++ {
					pos := int64(m) * int64(down)
					i, rem := int(pos/int64(up)), int(pos%int64(up))
					row := r.table[rem*taps : (rem+1)*taps]
					out[m], out[m+up], out[m+2*up], out[m+3*up] = dot4(pad[i:], pad[i+down:], pad[i+2*down:], pad[i+3*down:], row)
				}
			}
			for ; n < hi; n++ {
				pos := int64(n) * int64(down)
				i, rem := int(pos/int64(up)), int(pos%int64(up))
				out[n] = dot(pad[i:i+taps], r.table[rem*taps:(rem+1)*taps])
			}
		})
	default:
		scale := float64(r.phases) / float64(up)
		forChunks(workers, outLen, 1, 2*taps, func(lo, hi int) {
			// The output instant is input sample i + rem/up.
			pos := int64(lo) * int64(down)
			i, rem := int(pos/int64(up)), int(pos%int64(up))
			for n := lo; n < hi; n++ {
				pos := float64(rem) * scale
				p := int(pos)
				w := float32(pos - float64(p))
				x := pad[i : i+taps]
				a := dot(x, r.table[p*taps:(p+1)*taps])
				b := dot(x, r.table[(p+1)*taps:(p+2)*taps])
				out[n] = a + w*(b-a)
				rem += down
				i += rem / up
				rem %= up
			}
		})
	}
}

// halveInto writes to dst in passed through the half-band stages up to and
// including this one. Output n is centred on in[2n]:
// centre·in[2n] plus the folded pairs of odd samples around it, which are
// gathered first into one padded run so that four neighbouring outputs
// share each coefficient load.
func (r *Resampler) halveInto(in, dst []float32, workers int) {
	if r.pre != nil {
		buf := getScratch(r.pre.lenThrough(len(in)))
		defer putScratch(buf)
		r.pre.halveInto(in, buf, workers)
		in = buf
	}
	k := len(r.fold)
	outLen := len(dst)
	odd := getScratch(outLen + 2*k) // odd[m+k] = in[2m+1]
	defer putScratch(odd)
	clear(odd[:k])
	o := odd[k : k+len(in)/2]
	for m := range o {
		o[m] = in[2*m+1]
	}
	clear(odd[k+len(o):])
	span, f, c := r.span[0], r.fold, r.centre
	forChunks(workers, outLen, 4, k+1, func(lo, hi int) {
		n := lo
		for ; n+4 <= hi; n += 4 {
			y0, y1, y2, y3 := foldDot4(odd, n, 1, span, f)
			o, x := dst[n:n+4:n+4], in[2*n:]
			o[0] = y0 + c*x[0]
			o[1] = y1 + c*x[2]
			o[2] = y2 + c*x[4]
			o[3] = y3 + c*x[6]
		}
		for ; n < hi; n++ {
			dst[n] = foldDot(odd, n, span, f) + c*in[2*n]
		}
	})
}

// scratch keeps the working buffers of earlier calls: a 10 s recording
// needs megabytes of them, and clearing fresh ones costs as much as a tenth
// of the filtering.
var scratch sync.Pool // of *[]float32

// getScratch returns a buffer of n samples with arbitrary contents.
func getScratch(n int) []float32 {
	if p, ok := scratch.Get().(*[]float32); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

func putScratch(b []float32) { scratch.Put(&b) }

// parallelWork is the number of multiplies below which a stage runs on one
// goroutine: starting the others costs a few microseconds, this much work
// takes a few hundred (one second of 48 kHz audio is just above it).
const parallelWork = 1 << 20

// forChunks calls fn on ranges that together cover [0, n) exactly once, each
// starting at a multiple of grain. When the n items at perItem multiplies
// each are worth it, up to workers goroutines take chunks in turn, so a core
// busy with other work slows the whole by its share only. Outputs do not
// depend on how the range is cut: every range but the last is a whole number
// of grains.
func forChunks(workers, n, grain, perItem int, fn func(lo, hi int)) {
	if workers < 2 || n*perItem < parallelWork {
		fn(0, n)
		return
	}
	size := (n + 4*workers - 1) / (4 * workers)
	size = (size + grain - 1) / grain * grain
	var next atomic.Int64
	run := func() {
		for {
			lo := int(next.Add(int64(size))) - size
			if lo >= n {
				return
			}
			fn(lo, min(lo+size, n))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
}

// foldDot is Σ f[j]·(x[i+j] + x[i+span-j]): a symmetric filter applied at
// input position i, with f its first half.
func foldDot(x []float32, i, span int, f []float32) float32 {
	n := len(f)
	a := x[i:][:n]
	b := x[i+span+1-n:][:n]
	var s float32
	for j, k := 0, n-1; j < n && k >= 0; j, k = j+1, k-1 {
		s += (a[j] + b[k]) * f[j]
	}
	return s
}

// foldDot4 is foldDot at positions i, i+d, i+2·d and i+3·d, sharing each
// coefficient load. Its speed is bounded by the nine loads per step, not by
// the chains of additions: a second set of sums measured no faster.
func foldDot4(x []float32, i, d, span int, f []float32) (y0, y1, y2, y3 float32) {
	n := len(f)
	a0, b0 := x[i:][:n], x[i+span+1-n:][:n]
	a1, b1 := x[i+d:][:n], x[i+d+span+1-n:][:n]
	a2, b2 := x[i+2*d:][:n], x[i+2*d+span+1-n:][:n]
	a3, b3 := x[i+3*d:][:n], x[i+3*d+span+1-n:][:n]
	for j, k := 0, n-1; j < n && k >= 0; j, k = j+1, k-1 {
		c := f[j]
		y0 += (a0[j] + b0[k]) * c
		y1 += (a1[j] + b1[k]) * c
		y2 += (a2[j] + b2[k]) * c
		y3 += (a3[j] + b3[k]) * c
	}
	return y0, y1, y2, y3
}

// dot is the inner loop; independent partial sums let the CPU overlap the
// multiply-adds instead of waiting on one running total. len(c) is a
// multiple of 8.
func dot(x, c []float32) float32 {
	x = x[:len(c)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for k := 0; k+8 <= len(c); k += 8 {
		xs, cs := x[k:k+8:k+8], c[k:k+8:k+8]
		s0 += xs[0] * cs[0]
		s1 += xs[1] * cs[1]
		s2 += xs[2] * cs[2]
		s3 += xs[3] * cs[3]
		s4 += xs[4] * cs[4]
		s5 += xs[5] * cs[5]
		s6 += xs[6] * cs[6]
		s7 += xs[7] * cs[7]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// dot4 is dot for four inputs sharing one coefficient row.
func dot4(x0, x1, x2, x3, c []float32) (float32, float32, float32, float32) {
	n := len(c)
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	for k := 0; k+1 < len(c); k += 2 {
		c0, c1 := c[k], c[k+1]
		a0 += x0[k] * c0
		a1 += x1[k] * c0
		a2 += x2[k] * c0
		a3 += x3[k] * c0
		b0 += x0[k+1] * c1
		b1 += x1[k+1] * c1
		b2 += x2[k+1] * c1
		b3 += x3[k+1] * c1
	}
	return a0 + b0, a1 + b1, a2 + b2, a3 + b3
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the modified Bessel function of the first kind, order zero, by
// its power series, which converges quickly for the β a Kaiser window uses.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 200; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
