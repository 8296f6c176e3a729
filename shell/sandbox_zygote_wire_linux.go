//go:build linux

package shell

import (
	"encoding/binary"
	"encoding/json"
	"errors"
)

// The run request is the one message on every command's path, and the
// larger part of it is the environment: tens of variables. It travels in a
// compact binary form rather than JSON, because decoding that much JSON in
// the zygote sits between the request's arrival and the fork. The other
// messages are small and stay JSON; a JSON packet starts with '{', a run
// packet with runWireTag.
const runWireTag = 0

const runWireReadOnly = 1 << 0

// appendRunRequest encodes a run request: the tag, the id, the flags, then
// dir, tmp, argv and env as length-prefixed strings.
func appendRunRequest(b []byte, id uint64, s zygoteSpec) []byte {
	b = append(b, runWireTag)
	b = binary.AppendUvarint(b, id)
	var flags byte
	if s.readOnly {
		flags |= runWireReadOnly
	}
	b = append(b, flags)
	b = appendWireString(b, s.dir)
	b = appendWireString(b, s.tmpDir)
	b = binary.AppendUvarint(b, uint64(len(s.argv)))
	for _, a := range s.argv {
		b = appendWireString(b, a)
	}
	b = binary.AppendUvarint(b, uint64(len(s.env)))
	for _, kv := range s.env {
		b = appendWireString(b, kv)
	}
	return b
}

func appendWireString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errBadRunRequest = errors.New("malformed run request")

// decodeRunRequest reads what appendRunRequest wrote. The strings share one
// copy of the packet, so the caller may reuse pkt.
func decodeRunRequest(pkt []byte) (zygoteMsg, error) {
	if len(pkt) == 0 || pkt[0] != runWireTag {
		return zygoteMsg{}, errBadRunRequest
	}
	d := wireDecoder{s: string(pkt[1:])}
	m := zygoteMsg{Op: "run", ID: d.uvarint()}
	flags := d.byte()
	m.ReadOnly = flags&runWireReadOnly != 0
	m.Dir = d.string()
	m.TmpDir = d.string()
	m.Argv = d.strings()
	m.Env = d.strings()
	if d.bad || d.s != "" {
		return zygoteMsg{}, errBadRunRequest
	}
	return m, nil
}

type wireDecoder struct {
	s   string
	bad bool
}

func (d *wireDecoder) uvarint() uint64 {
	var v uint64
	var shift uint
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			d.s = d.s[i+1:]
			return v
		}
		shift += 7
	}
	d.bad = true
	d.s = ""
	return 0
}

func (d *wireDecoder) byte() byte {
	if len(d.s) == 0 {
		d.bad = true
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *wireDecoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)) {
		d.bad = true
		d.s = ""
		return ""
	}
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

func (d *wireDecoder) strings() []string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)) { // every string takes at least a byte
		d.bad = true
		d.s = ""
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
		if d.bad {
			return nil
		}
	}
	return out
}

// The "started" and "exit" replies, on every command's path too, are a tag
// byte, the run's id and the number (PID or exit code) as varints. Errors
// carry text and stay JSON.
const (
	replyStartedTag = 1
	replyExitTag    = 2
)

// appendReply encodes a reply to a run.
func appendReply(b []byte, m zygoteMsg) []byte {
	var tag byte
	var v int
	switch m.Op {
	case "started":
		tag, v = replyStartedTag, m.PID
	case "exit":
		tag, v = replyExitTag, m.Code
	default:
		j, _ := json.Marshal(m)
		return append(b, j...)
	}
	b = append(b, tag)
	b = binary.AppendUvarint(b, m.ID)
	return binary.AppendVarint(b, int64(v))
}

// decodeReply reads what appendReply wrote.
func decodeReply(pkt []byte) (zygoteMsg, error) {
	if len(pkt) == 0 {
		return zygoteMsg{}, errBadReply
	}
	var m zygoteMsg
	switch pkt[0] {
	case replyStartedTag, replyExitTag:
	default:
		err := json.Unmarshal(pkt, &m)
		return m, err
	}
	id, n := binary.Uvarint(pkt[1:])
	if n <= 0 {
		return zygoteMsg{}, errBadReply
	}
	v, k := binary.Varint(pkt[1+n:])
	if k <= 0 || 1+n+k != len(pkt) || v != int64(int(v)) {
		return zygoteMsg{}, errBadReply
	}
	m.ID = id
	if pkt[0] == replyStartedTag {
		m.Op, m.PID = "started", int(v)
	} else {
		m.Op, m.Code = "exit", int(v)
	}
	return m, nil
}

var errBadReply = errors.New("malformed reply from the command runner")
