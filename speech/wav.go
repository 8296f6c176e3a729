package speech

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// ErrUnsupportedWAV is wrapped by every error about a file that is not a WAV
// file Hark can read, so callers can tell a bad input from an I/O failure.
var ErrUnsupportedWAV = errors.New("unsupported WAV file")

const (
	wavFormatPCM        = 0x0001
	wavFormatFloat      = 0x0003
	wavFormatExtensible = 0xFFFE
)

// The tail shared by the KSDATAFORMAT_SUBTYPE GUIDs for PCM and IEEE float;
// the first two bytes hold the format code.
var wavSubtypeTail = []byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

// ReadWAVFile reads a WAV file into mono Audio; see DecodeWAV.
func ReadWAVFile(path string) (Audio, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Audio{}, err
	}
	a, err := DecodeWAV(data)
	if err != nil {
		return Audio{}, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// DecodeWAV decodes a RIFF WAVE file: integer PCM of 8, 16, 24 or 32 bits,
// IEEE float of 32 or 64 bits, plain or WAVE_FORMAT_EXTENSIBLE, any number of
// channels (averaged into mono) and any sample rate (kept; resample with
// To16k). Other files give an error wrapping ErrUnsupportedWAV that says what
// was found and how to convert it.
func DecodeWAV(data []byte) (Audio, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrUnsupportedWAV, fmt.Sprintf(format, args...))
	}
	if len(data) < 12 || string(data[8:12]) != "WAVE" {
		return Audio{}, bad("not a RIFF WAVE file; convert it with e.g. `sox IN -r 16000 -c 1 -b 16 OUT.wav`")
	}
	switch string(data[0:4]) {
	case "RIFF":
	case "RF64", "BW64":
		return Audio{}, bad("64-bit RIFF (%s) is not supported; convert it with `sox IN -b 16 OUT.wav`", data[0:4])
	default:
		return Audio{}, bad("not a RIFF WAVE file; convert it with e.g. `sox IN -r 16000 -c 1 -b 16 OUT.wav`")
	}
	var (
		haveFmt                bool
		format, channels, bits int
		rate, blockAlign       int
		pcm                    []byte
		haveData               bool
		rest                   = data[12:]
	)
	for len(rest) >= 8 && !haveData {
		id := string(rest[0:4])
		size := binary.LittleEndian.Uint32(rest[4:8])
		body := rest[8:]
		switch {
		case id == "data" && uint64(size) > uint64(len(body)):
			// Writers that stream to a pipe cannot seek back to fill in the
			// size and leave a placeholder (0xFFFFFFFF, or sox's large
			// guess); the samples then run to the end of the file.
		case uint64(size) > uint64(len(body)):
			return Audio{}, bad("chunk %q declares %d bytes but only %d remain; the file is truncated", id, size, len(body))
		default:
			body = body[:size]
		}
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return Audio{}, bad("fmt chunk is %d bytes, expected at least 16", len(body))
			}
			format = int(binary.LittleEndian.Uint16(body[0:2]))
			channels = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			blockAlign = int(binary.LittleEndian.Uint16(body[12:14]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
			if format == wavFormatExtensible {
				if len(body) < 40 {
					return Audio{}, bad("WAVE_FORMAT_EXTENSIBLE fmt chunk is %d bytes, expected 40", len(body))
				}
				guid := body[24:40]
				if !bytes.Equal(guid[2:], wavSubtypeTail) {
					return Audio{}, bad("WAVE_FORMAT_EXTENSIBLE with a non-PCM, non-float subformat; convert it with `sox IN -b 16 OUT.wav`")
				}
				format = int(binary.LittleEndian.Uint16(guid[0:2]))
			}
			haveFmt = true
		case "data":
			pcm = body
			haveData = true
		}
		// Chunks are padded to an even size.
		next := 8 + len(body) + len(body)&1
		if next > len(rest) {
			next = len(rest)
		}
		rest = rest[next:]
	}
	if !haveFmt {
		return Audio{}, bad("no fmt chunk before the samples")
	}
	if !haveData {
		return Audio{}, bad("no data chunk")
	}
	if channels < 1 {
		return Audio{}, bad("%d channels", channels)
	}
	if rate < 1000 || rate > 768000 {
		return Audio{}, bad("sample rate %d Hz is out of range", rate)
	}
	width := bits / 8
	if bits%8 != 0 || width < 1 {
		return Audio{}, bad("%d-bit samples are not supported (8, 16, 24, 32-bit integer or 32, 64-bit float are)", bits)
	}
	if blockAlign != width*channels {
		return Audio{}, bad("block align %d does not match %d channels of %d bits", blockAlign, channels, bits)
	}
	var decode func(b []byte) float32
	switch {
	case format == wavFormatPCM && bits == 8:
		decode = func(b []byte) float32 { return (float32(b[0]) - 128) / 128 }
	case format == wavFormatPCM && bits == 16:
		decode = func(b []byte) float32 { return float32(int16(binary.LittleEndian.Uint16(b))) / (1 << 15) }
	case format == wavFormatPCM && bits == 24:
		decode = func(b []byte) float32 {
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			return float32(v) / (1 << 23)
		}
	case format == wavFormatPCM && bits == 32:
		decode = func(b []byte) float32 { return float32(float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31)) }
	case format == wavFormatFloat && bits == 32:
		decode = func(b []byte) float32 { return clamp(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	case format == wavFormatFloat && bits == 64:
		decode = func(b []byte) float32 { return clamp(float32(math.Float64frombits(binary.LittleEndian.Uint64(b)))) }
	case format == wavFormatPCM || format == wavFormatFloat:
		return Audio{}, bad("%d-bit %s samples are not supported; convert with `sox IN -b 16 OUT.wav`", bits, map[int]string{wavFormatPCM: "integer", wavFormatFloat: "float"}[format])
	default:
		return Audio{}, bad("compressed format 0x%04x (only PCM and float are read); convert with `sox IN -b 16 OUT.wav`", format)
	}
	frames := len(pcm) / blockAlign
	out := make([]float32, frames)
	scale := 1 / float32(channels)
	for i := range frames {
		frame := pcm[i*blockAlign : (i+1)*blockAlign]
		var sum float32
		for c := range channels {
			sum += decode(frame[c*width:])
		}
		out[i] = sum * scale
	}
	return Audio{Samples: out, SampleRate: rate}, nil
}

// clamp keeps float samples, which may legally exceed full scale, in [-1, 1];
// NaN becomes silence rather than poisoning every later computation.
func clamp(v float32) float32 {
	switch {
	case v != v:
		return 0
	case v > 1:
		return 1
	case v < -1:
		return -1
	}
	return v
}

// WriteWAV writes a as a mono 16-bit PCM WAV file, the format whisper.cpp's
// own tools and every audio program read. Samples beyond full scale are
// clipped.
func WriteWAV(w io.Writer, a Audio) error {
	if err := a.Validate(); err != nil {
		return err
	}
	dataLen := 2 * len(a.Samples)
	if dataLen > math.MaxUint32-36 {
		return fmt.Errorf("recording too long for a WAV file (%s)", a.Duration())
	}
	bw := bufio.NewWriter(w)
	hdr := make([]byte, 44)
	copy(hdr[0:4], "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:8], uint32(36+dataLen))
	copy(hdr[8:16], "WAVEfmt ")
	binary.LittleEndian.PutUint32(hdr[16:20], 16)
	binary.LittleEndian.PutUint16(hdr[20:22], wavFormatPCM)
	binary.LittleEndian.PutUint16(hdr[22:24], 1)
	binary.LittleEndian.PutUint32(hdr[24:28], uint32(a.SampleRate))
	binary.LittleEndian.PutUint32(hdr[28:32], uint32(a.SampleRate*2))
	binary.LittleEndian.PutUint16(hdr[32:34], 2)
	binary.LittleEndian.PutUint16(hdr[34:36], 16)
	copy(hdr[36:40], "data")
	binary.LittleEndian.PutUint32(hdr[40:44], uint32(dataLen))
	if _, err := bw.Write(hdr); err != nil {
		return err
	}
	var b [2]byte
	for _, s := range a.Samples {
		binary.LittleEndian.PutUint16(b[:], uint16(toInt16(s)))
		if _, err := bw.Write(b[:]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// toInt16 uses the same 1/32768 scale as the reader, so a write and a read
// give back each sample to within rounding; only +1.0 itself is clipped.
func toInt16(s float32) int16 {
	v := math.Round(float64(clamp(s)) * 32768)
	return int16(min(v, 32767))
}

// WriteWAVFile writes a to path as 16-bit PCM through a temporary file in the
// same folder, so an interrupted write never leaves half a file under path.
func WriteWAVFile(path string, a Audio) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := WriteWAV(f, a); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
