// Package speech holds the audio side of voice input that needs no hardware:
// the Audio type every stage passes along, WAV reading and writing, resampling
// to the 16 kHz whisper.cpp expects (with a real anti-aliasing filter), level
// measurement that keeps silence away from the transcriber, trimming to the
// speech a voice activity detector found, a Stream that transcribes chunks cut
// at pauses while the user is still speaking, and cleanup of the phantom text
// whisper produces on non-speech. It is pure Go so it builds and tests
// everywhere, including the macOS cross-build without cgo.
package speech

import (
	"fmt"
	"time"
)

// WhisperRate is the sample rate whisper.cpp's models are trained on; every
// recording is brought to it before transcription.
const WhisperRate = 16000

// Audio is a mono recording: samples in [-1, 1] at SampleRate samples per
// second. Stages hand it on by value; the slice is not copied, so a stage that
// wants to change samples makes its own copy first.
type Audio struct {
	Samples    []float32
	SampleRate int
}

// Duration is how long the recording lasts.
func (a Audio) Duration() time.Duration {
	if a.SampleRate <= 0 {
		return 0
	}
	return time.Duration(len(a.Samples)) * time.Second / time.Duration(a.SampleRate)
}

// Validate reports an Audio that no stage can work with.
func (a Audio) Validate() error {
	if a.SampleRate <= 0 {
		return fmt.Errorf("audio has no sample rate (%d); it must be set to the rate the samples were recorded at", a.SampleRate)
	}
	return nil
}

// To16k returns a at WhisperRate, resampling when needed. Audio already at
// 16 kHz is returned as it is.
func (a Audio) To16k() (Audio, error) {
	return Resample(a, WhisperRate)
}

// MixDown averages interleaved frames of channels samples into one mono
// channel. Averaging (rather than summing) keeps the result in [-1, 1], and
// taking every channel rather than the first keeps a voice that a stereo
// microphone placed mostly on one side. A trailing partial frame is dropped.
func MixDown(interleaved []float32, channels int) []float32 {
	if channels <= 1 {
		out := make([]float32, len(interleaved))
		copy(out, interleaved)
		return out
	}
	frames := len(interleaved) / channels
	out := make([]float32, frames)
	scale := 1 / float32(channels)
	for i := range frames {
		var sum float32
		for _, s := range interleaved[i*channels : (i+1)*channels] {
			sum += s
		}
		out[i] = sum * scale
	}
	return out
}
