package speech

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wavFile builds a WAV file by hand, so the reader is tested against the
// format itself rather than against our own writer.
type wavFile struct {
	format     uint16 // 1 PCM, 3 float, 0xFFFE extensible
	subformat  uint16 // for extensible
	channels   int
	rate       int
	bits       int
	frames     [][]float64 // frames[i][channel] in [-1, 1]
	extraChunk bool        // a LIST chunk of odd size before the data
	dataSize   *uint32     // override the data chunk size
}

func (w wavFile) bytes() []byte {
	width := w.bits / 8
	var data bytes.Buffer
	for _, fr := range w.frames {
		for _, v := range fr {
			b := make([]byte, width)
			switch {
			case (w.format == 3 || w.subformat == 3) && w.bits == 32:
				binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
			case (w.format == 3 || w.subformat == 3) && w.bits == 64:
				binary.LittleEndian.PutUint64(b, math.Float64bits(v))
			case w.bits == 8:
				b[0] = byte(int(math.Round(v*127)) + 128)
			default:
				iv := int64(math.Round(v * float64(int64(1)<<(w.bits-1)-1)))
				for i := range width {
					b[i] = byte(iv >> (8 * i))
				}
			}
			data.Write(b)
		}
	}
	var fmtChunk bytes.Buffer
	le := func(v any) { binary.Write(&fmtChunk, binary.LittleEndian, v) }
	le(w.format)
	le(uint16(w.channels))
	le(uint32(w.rate))
	le(uint32(w.rate * w.channels * width))
	le(uint16(w.channels * width))
	le(uint16(w.bits))
	if w.format == 0xFFFE {
		le(uint16(22))
		le(uint16(w.bits))
		le(uint32(0))
		le(w.subformat)
		fmtChunk.Write(wavSubtypeTail)
	}
	var out bytes.Buffer
	chunk := func(id string, body []byte, size uint32) {
		out.WriteString(id)
		binary.Write(&out, binary.LittleEndian, size)
		out.Write(body)
		if len(body)%2 == 1 {
			out.WriteByte(0)
		}
	}
	out.WriteString("RIFF\x00\x00\x00\x00WAVE")
	chunk("fmt ", fmtChunk.Bytes(), uint32(fmtChunk.Len()))
	if w.extraChunk {
		chunk("LIST", []byte("INFOx"), 5)
	}
	size := uint32(data.Len())
	if w.dataSize != nil {
		size = *w.dataSize
	}
	chunk("data", data.Bytes(), size)
	b := out.Bytes()
	binary.LittleEndian.PutUint32(b[4:8], uint32(len(b)-8))
	return b
}

func frames(channels int, values ...float64) [][]float64 {
	var out [][]float64
	for i := 0; i+channels <= len(values); i += channels {
		out = append(out, values[i:i+channels])
	}
	return out
}

func TestDecodeWAV(t *testing.T) {
	t.Parallel()
	mono := frames(1, 0, 0.5, -0.5, 0.25, -1, 0.999)
	placeholder := uint32(0xFFFFFFFF)
	cases := []struct {
		name string
		file wavFile
		want []float64
		tol  float64
	}{
		{"pcm 8-bit", wavFile{format: 1, channels: 1, rate: 8000, bits: 8, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1.0 / 64},
		{"pcm 16-bit", wavFile{format: 1, channels: 1, rate: 16000, bits: 16, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-4},
		{"pcm 24-bit", wavFile{format: 1, channels: 1, rate: 44100, bits: 24, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-6},
		{"pcm 32-bit", wavFile{format: 1, channels: 1, rate: 48000, bits: 32, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-6},
		{"float 32-bit", wavFile{format: 3, channels: 1, rate: 48000, bits: 32, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-7},
		{"float 64-bit", wavFile{format: 3, channels: 1, rate: 48000, bits: 64, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-7},
		{"float beyond full scale is clipped", wavFile{format: 3, channels: 1, rate: 16000, bits: 32, frames: frames(1, 1.5, -2)}, []float64{1, -1}, 0},
		{"extensible pcm 24-bit", wavFile{format: 0xFFFE, subformat: 1, channels: 1, rate: 96000, bits: 24, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-6},
		{"extensible float", wavFile{format: 0xFFFE, subformat: 3, channels: 1, rate: 48000, bits: 32, frames: mono}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-7},
		{"stereo mixed down", wavFile{format: 1, channels: 2, rate: 44100, bits: 16, frames: frames(2, 0.5, 0.5, 0.5, -0.5, 1, 0)}, []float64{0.5, 0, 0.5}, 1e-4},
		{"six channels mixed down", wavFile{format: 0xFFFE, subformat: 3, channels: 6, rate: 48000, bits: 32, frames: frames(6, 0.6, 0.6, 0, 0, 0, 0)}, []float64{0.2}, 1e-6},
		{"odd-sized chunk before data", wavFile{format: 1, channels: 1, rate: 16000, bits: 16, frames: mono, extraChunk: true}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-4},
		{"streamed, size left open", wavFile{format: 1, channels: 1, rate: 16000, bits: 16, frames: mono, dataSize: &placeholder}, []float64{0, 0.5, -0.5, 0.25, -1, 0.999}, 1e-4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := DecodeWAV(tc.file.bytes())
			if err != nil {
				t.Fatal(err)
			}
			if a.SampleRate != tc.file.rate {
				t.Errorf("rate %d, want %d", a.SampleRate, tc.file.rate)
			}
			if len(a.Samples) != len(tc.want) {
				t.Fatalf("%d samples %v, want %v", len(a.Samples), a.Samples, tc.want)
			}
			for i, w := range tc.want {
				if math.Abs(float64(a.Samples[i])-w) > tc.tol {
					t.Errorf("sample %d = %v, want %v ± %v", i, a.Samples[i], w, tc.tol)
				}
			}
		})
	}
}

func TestDecodeWAVErrors(t *testing.T) {
	t.Parallel()
	good := wavFile{format: 1, channels: 1, rate: 16000, bits: 16, frames: frames(1, 0, 0.5)}.bytes()
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a RIFF WAVE"},
		{"mp3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00"), "not a RIFF WAVE"},
		{"rf64", mutate(func(b []byte) []byte { copy(b, "RF64"); return b }), "64-bit RIFF"},
		{"a-law", wavFile{format: 6, channels: 1, rate: 8000, bits: 8, frames: frames(1, 0)}.bytes(), "compressed format 0x0006"},
		{"12-bit", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[34:], 12); return b }), "12-bit"},
		{"float 16-bit", wavFile{format: 3, channels: 1, rate: 16000, bits: 16, frames: frames(1, 0)}.bytes(), "16-bit float"},
		{"no data chunk", good[:36], "no data chunk"},
		{"truncated fmt", good[:30], "truncated"},
		{"zero channels", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[22:], 0); return b }), "0 channels"},
		{"absurd rate", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[24:], 7); return b }), "sample rate 7 Hz"},
		{"extensible, unknown subformat", wavFile{format: 0xFFFE, subformat: 2, channels: 1, rate: 16000, bits: 16, frames: frames(1, 0)}.bytes(), "compressed format 0x0002"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeWAV(tc.data)
			if !errors.Is(err, ErrUnsupportedWAV) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrUnsupportedWAV mentioning %q", err, tc.want)
			}
		})
	}
}

// TestWAVRoundTrip: what WriteWAV writes, DecodeWAV reads back within 16-bit
// precision, sox reads it as 16-bit mono (CI installs sox; elsewhere that
// part is left out when soxi is missing), and no temporary file remains.
func TestWAVRoundTrip(t *testing.T) {
	t.Parallel()
	for _, rate := range []int{16000, 44100} {
		in := sample(chirp(100, 5000, 0.5, 0.8), rate, 0.5)
		in = append(in, 1.5, -1.5) // clipped on write
		dir := t.TempDir()
		path := filepath.Join(dir, "out.wav")
		if err := WriteWAVFile(path, Audio{Samples: in, SampleRate: rate}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadWAVFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.SampleRate != rate || len(got.Samples) != len(in) {
			t.Fatalf("read %d samples at %d Hz, want %d at %d", len(got.Samples), got.SampleRate, len(in), rate)
		}
		for i, v := range in {
			want := math.Max(-1, math.Min(1, float64(v)))
			if math.Abs(float64(got.Samples[i])-want) > 1.0/32768 {
				t.Fatalf("sample %d: %v, want %v", i, got.Samples[i], want)
			}
		}
		// The atomic write goes through a temporary file in the same folder;
		// only the result may remain there.
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != "out.wav" {
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name()
			}
			t.Errorf("folder holds %v, want only out.wav (temporary files left behind?)", names)
		}
		if _, err := exec.LookPath("soxi"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("soxi is missing in CI; .ci/run installs sox")
			}
		} else {
			out, err := exec.Command("soxi", path).CombinedOutput()
			if err != nil {
				t.Fatalf("soxi: %v\n%s", err, out)
			}
			for _, want := range []string{"Channels       : 1", "16-bit", "Signed Integer PCM"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("soxi does not report %q:\n%s", want, out)
				}
			}
		}
	}
}

func TestWriteWAVRejectsNoRate(t *testing.T) {
	t.Parallel()
	if err := WriteWAV(&bytes.Buffer{}, Audio{Samples: []float32{0}}); err == nil {
		t.Fatal("no error for audio without a sample rate")
	}
}

func TestMixDown(t *testing.T) {
	t.Parallel()
	got := MixDown([]float32{1, 0, 0.5, 0.5, 0.2}, 2)
	want := []float32{0.5, 0.5}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("MixDown = %v, want %v (partial frame dropped)", got, want)
	}
}

// FuzzDecodeWAV: no input makes the reader panic, and whatever it accepts
// is a valid Audio within full scale.
func FuzzDecodeWAV(f *testing.F) {
	f.Add(wavFile{format: 1, channels: 2, rate: 16000, bits: 16, frames: frames(2, 0, 0.5, -0.5, 1)}.bytes())
	f.Add(wavFile{format: 0xFFFE, subformat: 3, channels: 1, rate: 48000, bits: 32, frames: frames(1, 0.1)}.bytes())
	f.Add(wavFile{format: 1, channels: 1, rate: 8000, bits: 24, frames: frames(1, 0.1), extraChunk: true}.bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeWAV(data)
		if err != nil {
			return
		}
		if a.SampleRate <= 0 {
			t.Fatalf("accepted audio with rate %d", a.SampleRate)
		}
		for _, v := range a.Samples {
			if !(v >= -1 && v <= 1) {
				t.Fatalf("sample %v outside [-1, 1]", v)
			}
		}
	})
}
