package shell

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "hello\nworld\n", "hello\nworld\n"},
		{"SGR colour", "\x1b[1;31mred\x1b[0m and \x1b[32mgreen\x1b[m\n", "red and green\n"},
		{"cursor movement and erase", "a\x1b[2K\x1b[1Gb\x1b[?25l\n", "ab\n"},
		{"OSC title ended by BEL", "\x1b]0;my title\x07text", "text"},
		{"OSC hyperlink ended by ST", "\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS string", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"charset designation", "\x1b(Bplain\x1b)0", "plain"},
		{"two-byte escapes", "\x1b7saved\x1b8\x1bc", "saved"},
		{"CRLF is a newline", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"progress bar keeps last state", "10%\r50%\r100%\ndone\n", "100%\ndone\n"},
		{"trailing CR keeps the line", "working 99%\r", "working 99%"},
		{"CR then CRLF", "abc\r\r\n", "abc\n"},
		{"backspace erases", "ab\bc\n", "ac\n"},
		{"man page overstrike", "N\bNA\bAM\bME\bE", "NAME"},
		{"backspace at line start does nothing", "x\n\by", "x\ny"},
		{"tabs stay", "a\tb", "a\tb"},
		{"other controls go", "a\x00b\x07c\x7fd\x01", "abcd"},
		{"invalid UTF-8 replaced", "ok \xff\xfe end", "ok \uFFFD\uFFFD end"},
		{"truncated rune replaced", "caf\xc3", "caf\uFFFD"},
		{"valid multibyte kept", "naïve — 日本 🎉", "naïve — 日本 🎉"},
		{"C1 controls dropped", "a\u009b31mb", "a31mb"},
		{"unterminated escape is bounded", "\x1b]" + strings.Repeat("x", 300) + "visible", strings.Repeat("x", 300-255) + "visible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := cleanOutput([]byte(tt.in))
			if got != tt.want {
				t.Errorf("cleanOutput(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("result is not valid UTF-8: %q", got)
			}
		})
	}
}

func TestCaptureKeepsEverythingUnderTheLimit(t *testing.T) {
	t.Parallel()
	c := newCapture(64)
	for _, chunk := range []string{"0123456789", "abcdefghij", "\x1b[1mbold\x1b[0m\n"} {
		if n, err := c.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	got, cut := c.String()
	if want := "0123456789abcdefghijbold\n"; got != want || cut {
		t.Errorf("String() = %q, %v; want %q, false", got, cut, want)
	}
}

func TestCaptureHeadAndTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		limit    int
		writes   []string
		wantHead string // cleaned text before the marker
		wantTail string // cleaned text after it
		omitted  int
	}{
		{
			name:     "one big write",
			limit:    8,
			writes:   []string{"abcdefghijklmnopqrstuvwxyz"},
			wantHead: "abcd", wantTail: "wxyz", omitted: 18,
		},
		{
			name:     "many small writes wrap the ring",
			limit:    8,
			writes:   []string{"abc", "def", "ghi", "jkl", "mno", "pqr", "stu", "vwx", "yz"},
			wantHead: "abcd", wantTail: "wxyz", omitted: 18,
		},
		{
			name:     "exactly one byte over",
			limit:    8,
			writes:   []string{"123456789"},
			wantHead: "1234", wantTail: "6789", omitted: 1,
		},
		{
			name:   "cuts at line boundaries near the edges",
			limit:  36,
			writes: []string{"aaaaaaa\nbbbbbbb\nccccccc\n", strings.Repeat("x", 100), "\nyyyyyyy\nzzzzzzz\n"},
			// The head's 18 bytes end two bytes into "ccccccc"; its last newline
			// is in the last quarter, so the partial line goes. The tail's 18
			// bytes start with "x\n", a partial line, which goes too.
			wantHead: "aaaaaaa\nbbbbbbb\n", wantTail: "yyyyyyy\nzzzzzzz\n", omitted: 24 + 100 + 17 - 16 - 16,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCapture(tt.limit)
			for _, w := range tt.writes {
				c.Write([]byte(w))
			}
			got, cut := c.String()
			want := tt.wantHead + omittedMarker(int64(tt.omitted)) + tt.wantTail
			if got != want || !cut {
				t.Errorf("String() = %q, %v; want %q, true", got, cut, want)
			}
		})
	}
}

// A cut must never leave half a UTF-8 sequence on either side of the marker.
func TestCaptureDoesNotSplitRunes(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{7, 8, 9, 10, 11, 12, 13} {
		c := newCapture(limit)
		in := strings.Repeat("é日🎉", 50) // 2-, 3- and 4-byte runes, no newlines
		c.Write([]byte(in))
		got, cut := c.String()
		if !cut {
			t.Fatalf("limit %d: nothing cut", limit)
		}
		if strings.ContainsRune(got, utf8.RuneError) {
			t.Errorf("limit %d: a rune was split: %q", limit, got)
		}
		head, tail, ok := strings.Cut(got, "\n… [")
		if !ok {
			t.Fatalf("limit %d: no marker in %q", limit, got)
		}
		_, tail, _ = strings.Cut(tail, "] …\n")
		if !strings.HasPrefix(in, head) || !strings.HasSuffix(in, tail) {
			t.Errorf("limit %d: head %q / tail %q are not the stream's ends", limit, head, tail)
		}
		omitted := omittedCount(t, got)
		if len(head)+len(tail)+omitted != len(in) {
			t.Errorf("limit %d: %d kept + %d omitted != %d written", limit, len(head)+len(tail), omitted, len(in))
		}
	}
}

// Memory must not grow with the volume written: the buffers keep the
// capacity they were created with.
func TestCaptureMemoryIsBounded(t *testing.T) {
	t.Parallel()
	c := newCapture(DefaultOutputLimit)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for range 160 {                                         // 10 MiB
		c.Write(chunk)
	}
	if cap(c.head) != DefaultOutputLimit/2 || cap(c.ring) != DefaultOutputLimit-DefaultOutputLimit/2 {
		t.Errorf("buffers grew: head cap %d, ring cap %d", cap(c.head), cap(c.ring))
	}
	got, cut := c.String()
	if !cut || len(got) > DefaultOutputLimit+64 {
		t.Errorf("String() kept %d bytes, cut=%v", len(got), cut)
	}
}

// omittedCount extracts the number from an omitted-bytes marker.
func omittedCount(t *testing.T, s string) int {
	t.Helper()
	_, rest, ok := strings.Cut(s, "… [")
	num, _, ok2 := strings.Cut(rest, " bytes omitted] …")
	n, err := strconv.Atoi(num)
	if !ok || !ok2 || err != nil {
		t.Fatalf("no omitted-bytes marker in %.200q", s)
	}
	return n
}
