//go:build linux

package sandbox

import (
	"reflect"
	"testing"

	"github.com/hark-sh/hark/shell/scope"
)

func TestRunRequestWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		id      uint64
		spec    Spec
		scratch bool
	}{
		{"plain", 1, Spec{Argv: []string{"/bin/sh", "-c", "true"}, Dir: "/home/u", Env: []string{"PATH=/usr/bin", "HOME=/home/u"}}, false},
		{"sandboxed", 1 << 40, Spec{Argv: []string{"/bin/sh", "-c", "ls"}, Dir: "/", Env: []string{"TMPDIR=/tmp/x"}, ReadOnly: true, TmpDir: "/tmp/x"}, false},
		{"empty strings and no env", 7, Spec{Argv: []string{"/bin/sh", "-c", ""}}, false},
		{"sandboxed with a memory cap", 5, Spec{Argv: []string{"/bin/sh", "-c", "ls"}, ReadOnly: true, TmpDir: "/tmp/y", MemoryLimit: 4 << 30}, false},
		{"sandboxed with a disk quota", 6, Spec{Argv: []string{"/bin/sh", "-c", "ls"}, ReadOnly: true, TmpDir: "/tmp/y", MemoryLimit: 4 << 30, DiskLimit: 2 << 30}, false},
		{"sandboxed with paths to hide", 9, Spec{Argv: []string{"/bin/sh", "-c", "ls"}, ReadOnly: true, TmpDir: "/tmp/z", Hide: []string{"/home/u/.ssh", "/home/u/.aws"}}, false},
		{"sandboxed with a scratch file system", 8, Spec{Argv: []string{"/bin/sh", "-c", "ls"}, ReadOnly: true, TmpDir: "/tmp/y", DiskLimit: 2 << 30}, true},
		{"an approved run holding mounts", 10, Spec{Argv: []string{"/bin/sh", "-c", "make"}, ReadOnly: true, TmpDir: "/tmp/w", Hide: []string{"/home/u/.ssh"}, Mounts: true,
			Scope: &scope.Scope{Write: []string{"/home/u/p"}, Remove: []string{"/home/u/p/old"}, Keep: []string{"/home/u/p/.git/hooks/"}, NoRemove: []string{"/home/u/p"}, Network: true}}, false},
		{"long and non-ASCII values", 300, Spec{Argv: []string{"/bin/sh", "-c", "echo é\x00"}, Env: []string{"X=" + string(make([]byte, 300))}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pkt := appendRunRequest(nil, c.id, c.spec, c.scratch)
			got, err := decodeRunRequest(pkt)
			if err != nil {
				t.Fatal(err)
			}
			want := zygoteMsg{Op: "run", ID: c.id, Argv: c.spec.Argv, Env: c.spec.Env, Dir: c.spec.Dir, ReadOnly: c.spec.ReadOnly, TmpDir: c.spec.TmpDir, MemLimit: c.spec.MemoryLimit, DiskLimit: c.spec.DiskLimit, Hide: c.spec.Hide, Scratch: c.scratch}
			if len(want.Env) == 0 {
				want.Env = []string{}
			}
			if c.spec.Scope != nil {
				want.Scope, want.Scoped, want.Mounts = *c.spec.Scope, true, c.spec.Mounts
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded %+v, want %+v", got, want)
			}
			// Every proper prefix is malformed, and so is trailing junk.
			for i := range len(pkt) {
				if _, err := decodeRunRequest(pkt[:i]); err == nil {
					t.Fatalf("a packet cut at %d of %d bytes decoded", i, len(pkt))
				}
			}
			if _, err := decodeRunRequest(append(pkt, 0)); err == nil {
				t.Error("a packet with a trailing byte decoded")
			}
		})
	}
	t.Run("mounts without a scope", func(t *testing.T) {
		t.Parallel()
		pkt := appendRunRequest(nil, 1, Spec{Argv: []string{"/bin/sh"}, ReadOnly: true, Mounts: true}, false)
		pkt[2] |= runWireMounts // appendRunRequest sends it only with a scope
		if _, err := decodeRunRequest(pkt); err == nil {
			t.Error("a request to hold mounts without a scope decoded")
		}
	})
	t.Run("unknown flag", func(t *testing.T) {
		t.Parallel()
		pkt := appendRunRequest(nil, 1, Spec{Argv: []string{"/bin/sh"}}, false)
		pkt[2] |= 1 << 7 // the flags byte, after the tag and a one-byte id
		if _, err := decodeRunRequest(pkt); err == nil {
			t.Error("a request with an unknown flag decoded")
		}
	})
	t.Run("huge count", func(t *testing.T) {
		t.Parallel()
		pkt := []byte{runWireTag, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}
		if _, err := decodeRunRequest(pkt); err == nil {
			t.Error("a count beyond the packet decoded")
		}
	})
}

// Every message has the one binary encoding: it decodes to what was
// encoded, and no cut or padded packet decodes at all.
func TestMessageWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		msg  zygoteMsg
	}{
		{"started", zygoteMsg{Op: "started", ID: 3, PID: 4194304}},
		{"exit zero", zygoteMsg{Op: "exit", ID: 1 << 33}},
		{"exit by signal", zygoteMsg{Op: "exit", ID: 9, Code: 137}},
		{"exit negative", zygoteMsg{Op: "exit", ID: 9, Code: -1}},
		{"exit past the memory cap", zygoteMsg{Op: "exit", ID: 9, Code: 137, Reason: exitMemory}},
		{"error", zygoteMsg{Op: "error", ID: 2, Err: "could not start /bin/nosh: no such file; set another shell"}},
		{"error without text", zygoteMsg{Op: "error", ID: 2}},
		{"ready", zygoteMsg{Op: "ready", PID: 77}},
		{"term", zygoteMsg{Op: "term", ID: 12345678901}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pkt := appendMsg(nil, c.msg)
			if pkt[0] == '{' {
				t.Errorf("a message is JSON: %q", pkt)
			}
			got, err := decodeMsg(pkt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.msg) {
				t.Errorf("decoded %+v, want %+v", got, c.msg)
			}
			for i := range len(pkt) {
				if _, err := decodeMsg(pkt[:i]); err == nil {
					t.Errorf("a message cut at %d of %d bytes decoded", i, len(pkt))
				}
			}
			if _, err := decodeMsg(append(pkt, 0)); err == nil {
				t.Error("a message with a trailing byte decoded")
			}
		})
	}
	if _, err := decodeMsg([]byte{'{', '}'}); err == nil {
		t.Error("a JSON packet decoded")
	}
}
