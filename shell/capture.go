package shell

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// DefaultOutputLimit is how many bytes of stdout, and separately of stderr,
// a Result keeps: the first half and the last half of the stream.
const DefaultOutputLimit = 16 << 10

// capture is an io.Writer that keeps the head and the tail of a stream and
// counts the rest. Memory stays at the limit whatever the volume: the head
// fills once, the tail is a ring that overwrites itself. Cleaning (escape
// sequences, carriage returns, invalid UTF-8) happens once, on the kept bytes,
// when the command has finished, so the hot path is a copy.
type capture struct {
	mu       sync.Mutex
	head     []byte // first headMax bytes of the stream
	headMax  int
	ring     []byte // last bytes of the stream after the head; len grows to cap, then wraps
	ringMax  int
	ringNext int   // where the next byte goes once the ring is full
	total    int64 // every byte ever written
}

func newCapture(limit int) *capture {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	// The buffers are allocated on first use: most commands print little
	// or nothing on one of their streams.
	return &capture{headMax: limit / 2, ringMax: limit - limit/2}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if c.head == nil {
		c.head = make([]byte, 0, c.headMax)
	}
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	ringMax := c.ringMax
	if c.ring == nil {
		c.ring = make([]byte, 0, ringMax)
	}
	if len(p) >= ringMax { // only the last ringMax bytes can survive
		c.ring = append(c.ring[:0], p[len(p)-ringMax:]...)
		c.ringNext = 0
		return n, nil
	}
	if room := ringMax - len(c.ring); room > 0 { // still filling
		k := min(room, len(p))
		c.ring = append(c.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // full: overwrite the oldest bytes
		k := copy(c.ring[c.ringNext:], p)
		p = p[k:]
		c.ringNext = (c.ringNext + k) % ringMax
	}
	return n, nil
}

// ReadFrom copies r into the capture through a small buffer. os/exec copies
// a command's output with io.Copy, which would otherwise allocate 32 KiB per
// stream per command for bytes that are mostly thrown away.
func (c *capture) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 4<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			c.Write(buf[:k])
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// tail returns the ring's bytes in stream order.
func (c *capture) tail() []byte {
	if len(c.ring) < cap(c.ring) || c.ringNext == 0 {
		return bytes.Clone(c.ring)
	}
	out := make([]byte, 0, len(c.ring))
	out = append(out, c.ring[c.ringNext:]...)
	return append(out, c.ring[:c.ringNext]...)
}

// omittedMarker is what stands in for the bytes a capped stream lost.
func omittedMarker(n int64) string {
	return "\n… [" + strconv.FormatInt(n, 10) + " bytes omitted] …\n"
}

// String returns the cleaned output and whether anything was cut. A cut
// never splits a UTF-8 sequence, and prefers a line boundary when one is near,
// so the reader sees whole lines on both sides of the marker.
func (c *capture) String() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tail()
	kept := int64(len(c.head) + len(tail))
	if kept == c.total { // nothing lost: head and tail are contiguous
		return cleanOutput(append(bytes.Clone(c.head), tail...)), false
	}
	head := trimHeadEnd(c.head)
	tail = trimTailStart(tail)
	omitted := c.total - int64(len(head)) - int64(len(tail))
	return cleanOutput(head) + omittedMarker(omitted) + cleanOutput(tail), true
}

// trimHeadEnd cuts the head after its last newline when that is within the
// last quarter, else before an incomplete UTF-8 sequence at its end.
func trimHeadEnd(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 && i >= len(b)-len(b)/4 {
		return b[:i+1]
	}
	// Back up over at most utf8.UTFMax-1 bytes of an unfinished sequence.
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf { // ASCII: whatever follows is complete or absent
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return b[:len(b)-k]
			}
			break
		}
	}
	return b
}

// trimTailStart starts the tail after its first newline when that is within
// the first quarter, else at the first byte that can start a UTF-8 sequence.
func trimTailStart(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)/4 {
		return b[i+1:]
	}
	for k := 0; k < utf8.UTFMax-1 && k < len(b); k++ {
		if utf8.RuneStart(b[k]) {
			return b[k:]
		}
	}
	return b
}

// cleanOutput turns terminal output into plain text: escape sequences (CSI,
// OSC, DCS and the other ESC forms) are dropped, a carriage return that is not
// part of CRLF rewinds to the start of the line so that progress bars keep
// only their last state, backspace erases, other control characters go, and
// invalid UTF-8 becomes U+FFFD. The result is always valid UTF-8.
func cleanOutput(b []byte) string {
	const (
		ground = iota
		escape
		escInter // ESC followed by intermediate bytes, waiting for a final byte
		csi
		str    // OSC, DCS, SOS, PM, APC: runs until BEL or ESC \
		strEsc // ESC seen inside a string
	)
	// maxSeq bounds how much an unterminated sequence may swallow, so binary
	// output that happens to contain ESC ] does not erase the rest.
	const maxSeq = 256
	out := make([]byte, 0, len(b))
	state, seqLen := ground, 0
	lineStart := 0     // index in out where the current line begins
	pendingCR := false // a lone CR: the next visible byte rewinds the line
	for i := 0; i < len(b); i++ {
		c := b[i]
		if state != ground {
			seqLen++
			if seqLen > maxSeq {
				state = ground
			}
		}
		switch state {
		case escape:
			switch {
			case c == '[':
				state = csi
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				state = str
			case c >= 0x20 && c <= 0x2f:
				state = escInter
			default: // a final byte (ESC 7, ESC c, …) or garbage: the sequence ends
				state = ground
			}
			continue
		case escInter:
			if c < 0x20 || c > 0x2f {
				state = ground
			}
			continue
		case csi:
			if c >= 0x40 && c <= 0x7e || c < 0x20 || c > 0x7e {
				state = ground
			}
			continue
		case str:
			switch c {
			case 0x07:
				state = ground
			case 0x1b:
				state = strEsc
			}
			continue
		case strEsc:
			if c == '\\' {
				state = ground
				continue
			}
			state = str
			if c == 0x1b {
				state = strEsc
			}
			continue
		}
		// ground
		switch {
		case c == 0x1b:
			state, seqLen = escape, 0
			continue
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				continue // CRLF is a newline; the LF does the work
			}
			pendingCR = true
			continue
		case c == '\n':
			out = append(out, '\n')
			lineStart, pendingCR = len(out), false
			continue
		case c == '\b':
			if len(out) > lineStart {
				_, size := utf8.DecodeLastRune(out[lineStart:])
				out = out[:len(out)-size]
			}
			continue
		case c == '\t':
		case c < 0x20 || c == 0x7f:
			continue
		}
		if pendingCR {
			out, pendingCR = out[:lineStart], false
		}
		out = append(out, c)
	}
	return validUTF8(out)
}

// validUTF8 replaces every invalid byte with U+FFFD and drops C1 control
// characters, which some terminals treat as escape sequence introducers.
func validUTF8(b []byte) string {
	if utf8.Valid(b) && !bytes.ContainsFunc(b, isC1) {
		return string(b)
	}
	var sb bytes.Buffer
	sb.Grow(len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteRune(utf8.RuneError)
		case isC1(r):
		default:
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }
