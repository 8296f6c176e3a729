package speech

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// ErrNoSpeech means a recording was too short or too quiet to hold speech. It
// is not a failure: the caller tells the user "didn't catch that" and goes
// back to idle instead of sending silence to whisper, which would answer with
// phantom text such as "Thank you." that an agent might then act on.
var ErrNoSpeech = errors.New("didn't catch that")

// Gate decides whether a recording may hold speech. The zero value is not
// useful; start from DefaultGate.
type Gate struct {
	MinDuration time.Duration // shorter recordings are an accidental tap of the key
	SpeechDBFS  float64       // a 20 ms frame this loud (RMS) or louder counts as voiced
	MinVoiced   time.Duration // voiced frames needed in total: one syllable is about 100 ms
	// SteadyDB: a recording of a second or more whose loud frames are within
	// this many dB of its quiet frames is steady noise (a fan, hum), not
	// speech, which always comes and goes between syllables.
	SteadyDB float64
}

// DefaultGate suits a built-in or headset microphone at normal gain: room
// noise sits around -60 to -50 dBFS, speech at -35 to -10 dBFS.
var DefaultGate = Gate{
	MinDuration: 300 * time.Millisecond,
	SpeechDBFS:  -45,
	MinVoiced:   100 * time.Millisecond,
	SteadyDB:    6,
}

// Level summarises the loudness of a recording in dBFS (0 is full scale;
// digital silence is reported as -120).
type Level struct {
	Duration  time.Duration
	PeakDBFS  float64       // loudest sample
	RMSDBFS   float64       // whole recording
	LoudDBFS  float64       // 95th percentile of 20 ms frame RMS: the speech, if any
	NoiseDBFS float64       // 10th percentile of frame RMS: the background
	Voiced    time.Duration // frames at or above the gate's SpeechDBFS
}

const frameDur = 20 * time.Millisecond

func dbfs(power float64) float64 {
	if power <= 1e-12 {
		return -120
	}
	return 10 * math.Log10(power)
}

// Measure computes the Level of a, counting frames as voiced by g.
func (g Gate) Measure(a Audio) Level {
	lv := Level{Duration: a.Duration(), PeakDBFS: -120, RMSDBFS: -120, LoudDBFS: -120, NoiseDBFS: -120}
	if a.SampleRate <= 0 || len(a.Samples) == 0 {
		return lv
	}
	frame := max(1, a.SampleRate*int(frameDur/time.Millisecond)/1000)
	var total, peak float64
	var frames []float64
	voiced := 0
	for start := 0; start < len(a.Samples); start += frame {
		chunk := a.Samples[start:min(start+frame, len(a.Samples))]
		var sum float64
		for _, s := range chunk {
			v := float64(s)
			sum += v * v
			peak = max(peak, math.Abs(v))
		}
		total += sum
		db := dbfs(sum / float64(len(chunk)))
		frames = append(frames, db)
		if db >= g.SpeechDBFS && len(chunk) == frame {
			voiced++
		}
	}
	lv.PeakDBFS = dbfs(peak * peak)
	lv.RMSDBFS = dbfs(total / float64(len(a.Samples)))
	slices.Sort(frames)
	lv.LoudDBFS = frames[(len(frames)-1)*95/100]
	lv.NoiseDBFS = frames[(len(frames)-1)*10/100]
	lv.Voiced = time.Duration(voiced) * frameDur
	return lv
}

// Check measures a and returns an error wrapping ErrNoSpeech, with the reason,
// when it should not be transcribed.
func (g Gate) Check(a Audio) (Level, error) {
	lv := g.Measure(a)
	switch {
	case lv.Duration < g.MinDuration:
		return lv, fmt.Errorf("%w: the recording lasted %s; hold the key while you speak", ErrNoSpeech, lv.Duration.Round(time.Millisecond))
	case lv.Voiced < g.MinVoiced:
		return lv, fmt.Errorf("%w: no speech was heard (loudest %.0f dBFS); speak closer to the microphone or check the input device and its level", ErrNoSpeech, lv.LoudDBFS)
	case lv.Duration >= time.Second && lv.LoudDBFS-lv.NoiseDBFS < g.SteadyDB:
		return lv, fmt.Errorf("%w: only steady background noise was heard (%.0f dBFS)", ErrNoSpeech, lv.LoudDBFS)
	}
	return lv, nil
}

// NearSilent reports a recording whose speech, if any, is so faint or so short
// that whisper's usual hallucinations are likelier than real words.
func (l Level) NearSilent() bool {
	return l.LoudDBFS < -40 || l.Voiced < 300*time.Millisecond
}

// CheckSpeech is DefaultGate.Check.
func CheckSpeech(a Audio) (Level, error) { return DefaultGate.Check(a) }

// Measure is DefaultGate.Measure.
func Measure(a Audio) Level { return DefaultGate.Measure(a) }

// Prepare readies a recording for whisper: it resamples to 16 kHz and checks
// for speech. The error wraps ErrNoSpeech when there is nothing to transcribe.
func Prepare(a Audio) (Audio, Level, error) {
	a16, err := a.To16k()
	if err != nil {
		return Audio{}, Level{}, err
	}
	lv, err := CheckSpeech(a16)
	return a16, lv, err
}
