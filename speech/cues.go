package speech

import (
	"math"
	"time"
)

// A Cue is one of the short sounds that tell a person what the microphone
// is doing without looking: recording started, stopped, or cancelled. They
// are made here from a few sine partials with a smooth envelope, so they
// ship with no audio files and no licence of anyone else's.
type Cue int

const (
	CueStart  Cue = iota // rising two-note chirp: listening now
	CueStop              // falling two-note chirp: got it
	CueCancel            // low double blip: dropped
)

// cueRate is the sample rate cues are made at; every output path takes it.
const cueRate = 44100

// note is one tone of a cue.
type note struct {
	hz     float64
	start  time.Duration
	length time.Duration
}

var cueNotes = map[Cue][]note{
	CueStart:  {{660, 0, 55 * time.Millisecond}, {990, 50 * time.Millisecond, 70 * time.Millisecond}},
	CueStop:   {{990, 0, 55 * time.Millisecond}, {660, 50 * time.Millisecond, 70 * time.Millisecond}},
	CueCancel: {{330, 0, 60 * time.Millisecond}, {330, 100 * time.Millisecond, 60 * time.Millisecond}},
}

// Sound renders the cue as mono audio at 44.1 kHz, peaking at about a third
// of full scale: audible, never startling. The envelope (a raised-cosine
// attack and release) keeps the edges free of clicks.
func (c Cue) Sound() Audio {
	notes := cueNotes[c]
	var end time.Duration
	for _, n := range notes {
		end = max(end, n.start+n.length)
	}
	samples := make([]float32, int(end.Seconds()*cueRate)+1)
	for _, n := range notes {
		first := int(n.start.Seconds() * cueRate)
		count := int(n.length.Seconds() * cueRate)
		ramp := max(1, count/5)
		for i := 0; i < count && first+i < len(samples); i++ {
			env := 1.0
			switch {
			case i < ramp:
				env = 0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(ramp))
			case i >= count-ramp:
				env = 0.5 - 0.5*math.Cos(math.Pi*float64(count-i)/float64(ramp))
			}
			t := float64(i) / cueRate
			// A fundamental with a soft octave partial, like a small bell.
			v := math.Sin(2*math.Pi*n.hz*t) + 0.25*math.Sin(4*math.Pi*n.hz*t)
			samples[first+i] += float32(0.27 * env * v)
		}
	}
	return Audio{Samples: samples, SampleRate: cueRate}
}
