//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"strings"
)

// The run request is the one message on every command's path, and the
// larger part of it is the environment: tens of variables. Like every
// message between the runner and the zygote it travels in a compact binary
// form: a tag byte, varints and length-prefixed strings.
const runWireTag = 0

const (
	runWireReadOnly = 1 << 0
	runWireMemory   = 1 << 1 // a memory cap follows the flags
	runWireHide     = 1 << 2 // the paths to hide follow env
	runWireDisk     = 1 << 3 // a disk quota follows the memory cap
	runWireScratch  = 1 << 4 // the last descriptor is the run's scratch file system (scratch_userns_linux.go)
	runWireScope    = 1 << 5 // an approved run's scope follows the paths to hide
	runWireMounts   = 1 << 6 // with a scope: its kept and hidden places inside writable ones are held by mounts (Spec.Mounts)
)

// The scope's flags, in one byte after its three lists.
const (
	scopeWireNetwork = 1 << iota
	scopeWireAgent
	scopeWireSignals
)

// appendRunRequest encodes a run request: the tag, the id, the flags, then
// dir, tmp, argv and env as length-prefixed strings, and with
// runWireHide the paths to hide. scratch says a scratch file system's
// descriptor goes with the request, last.
func appendRunRequest(b []byte, id uint64, s Spec, scratch bool) []byte {
	b = append(b, runWireTag)
	b = binary.AppendUvarint(b, id)
	var flags byte
	if s.ReadOnly {
		flags |= runWireReadOnly
	}
	if s.MemoryLimit > 0 {
		flags |= runWireMemory
	}
	if len(s.Hide) > 0 {
		flags |= runWireHide
	}
	if s.DiskLimit > 0 {
		flags |= runWireDisk
	}
	if scratch {
		flags |= runWireScratch
	}
	if s.scoped() {
		flags |= runWireScope
		if s.Mounts {
			flags |= runWireMounts
		}
	}
	b = append(b, flags)
	if s.MemoryLimit > 0 {
		b = binary.AppendUvarint(b, uint64(s.MemoryLimit))
	}
	if s.DiskLimit > 0 {
		b = binary.AppendUvarint(b, uint64(s.DiskLimit))
	}
	b = appendWireString(b, s.Dir)
	b = appendWireString(b, s.TmpDir)
	b = binary.AppendUvarint(b, uint64(len(s.Argv)))
	for _, a := range s.Argv {
		b = appendWireString(b, a)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Env)))
	for _, kv := range s.Env {
		b = appendWireString(b, kv)
	}
	if len(s.Hide) > 0 {
		b = binary.AppendUvarint(b, uint64(len(s.Hide)))
		for _, p := range s.Hide {
			b = appendWireString(b, p)
		}
	}
	if s.scoped() {
		sc := s.Scope
		for _, list := range [][]string{sc.Write, sc.Remove, sc.Keep, sc.NoRemove} {
			b = binary.AppendUvarint(b, uint64(len(list)))
			for _, p := range list {
				b = appendWireString(b, p)
			}
		}
		var f byte
		if sc.Network {
			f |= scopeWireNetwork
		}
		if sc.Agent {
			f |= scopeWireAgent
		}
		if sc.Signals {
			f |= scopeWireSignals
		}
		b = append(b, f)
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
	if flags&runWireMemory != 0 {
		if m.MemLimit = int64(d.uvarint()); m.MemLimit <= 0 {
			d.bad = true
		}
	}
	if flags&runWireDisk != 0 {
		if m.DiskLimit = int64(d.uvarint()); m.DiskLimit <= 0 {
			d.bad = true
		}
	}
	m.Scratch = flags&runWireScratch != 0
	m.Mounts = flags&runWireMounts != 0
	if flags&^(runWireReadOnly|runWireMemory|runWireHide|runWireDisk|runWireScratch|runWireScope|runWireMounts) != 0 || m.Mounts && flags&runWireScope == 0 {
		d.bad = true
	}
	m.Dir = d.string()
	m.TmpDir = d.string()
	m.Argv = d.strings()
	m.Env = d.strings()
	if flags&runWireHide != 0 {
		if m.Hide = d.strings(); len(m.Hide) == 0 {
			d.bad = true
		}
	}
	if flags&runWireScope != 0 {
		m.Scope.Write = d.strings()
		m.Scope.Remove = d.strings()
		m.Scope.Keep = d.strings()
		m.Scope.NoRemove = d.strings()
		f := d.byte()
		m.Scope.Network, m.Scope.Agent, m.Scope.Signals = f&scopeWireNetwork != 0, f&scopeWireAgent != 0, f&scopeWireSignals != 0
		if f&^(scopeWireNetwork|scopeWireAgent|scopeWireSignals) != 0 || !m.ReadOnly {
			d.bad = true
		}
		m.Scoped = true
	}
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

func (d *wireDecoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1) // zig-zag, as binary.AppendVarint writes it
	if u&1 != 0 {
		v = ^v
	}
	return v
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

// Every other message is a tag byte, the run's id where it has one, and
// one number or string: started{id, pid}, exit{id, code, reason}, error{id, text},
// ready{pid} and term{id}. One encoding for all of them, so the zygote and
// the runner carry no JSON at all.
const (
	replyStartedTag = 1
	replyExitTag    = 2
	replyErrorTag   = 3
	msgReadyTag     = 4
	msgTermTag      = 5
)

// appendMsg encodes a message other than a run request.
func appendMsg(b []byte, m zygoteMsg) []byte {
	switch m.Op {
	case "started":
		b = binary.AppendUvarint(append(b, replyStartedTag), m.ID)
		return binary.AppendVarint(b, int64(m.PID))
	case "exit":
		b = binary.AppendUvarint(append(b, replyExitTag), m.ID)
		b = binary.AppendVarint(b, int64(m.Code))
		return binary.AppendUvarint(b, uint64(m.Reason))
	case "error":
		b = binary.AppendUvarint(append(b, replyErrorTag), m.ID)
		return appendWireString(b, m.Err)
	case "ready":
		return binary.AppendVarint(append(b, msgReadyTag), int64(m.PID))
	case "term":
		return binary.AppendUvarint(append(b, msgTermTag), m.ID)
	}
	panic("zygote: no encoding for message " + m.Op) // a programming error, caught by the tests
}

// appendReply encodes a reply on a run's own socket.
func appendReply(b []byte, m zygoteMsg) []byte { return appendMsg(b, m) }

// decodeMsg reads any message, run requests included.
func decodeMsg(pkt []byte) (zygoteMsg, error) {
	if len(pkt) == 0 {
		return zygoteMsg{}, errBadReply
	}
	if pkt[0] == runWireTag {
		return decodeRunRequest(pkt)
	}
	d := wireDecoder{s: string(pkt[1:])}
	var m zygoteMsg
	num := func() int {
		v := d.varint()
		if v != int64(int(v)) {
			d.bad = true
		}
		return int(v)
	}
	switch pkt[0] {
	case replyStartedTag:
		m.Op, m.ID = "started", d.uvarint()
		m.PID = num()
	case replyExitTag:
		m.Op, m.ID = "exit", d.uvarint()
		m.Code = num()
		m.Reason = int(d.uvarint())
	case replyErrorTag:
		m.Op, m.ID = "error", d.uvarint()
		m.Err = strings.Clone(d.string()) // outlives the packet buffer
	case msgReadyTag:
		m.Op = "ready"
		m.PID = num()
	case msgTermTag:
		m.Op, m.ID = "term", d.uvarint()
	default:
		return zygoteMsg{}, errBadReply
	}
	if d.bad || d.s != "" {
		return zygoteMsg{}, errBadReply
	}
	return m, nil
}

// decodeReply reads what appendReply wrote.
func decodeReply(pkt []byte) (zygoteMsg, error) { return decodeMsg(pkt) }

var errBadReply = errors.New("malformed message from the command runner")
