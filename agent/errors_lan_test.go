package agent

import (
	"context"
	"errors"
	"net"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// From macOS 15 an app needs the user's consent to reach the local
// network, and without it a connection to a server on another machine
// fails with "no route to host", while Terminal's hark works: the error
// says where to allow it, on macOS, for a host not on this machine only.
func TestLocalNetworkHint(t *testing.T) {
	t.Parallel()
	noRoute := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		name, goos, host string
		err              error
		want             bool
	}{
		{"LAN, no route", "darwin", "http://192.168.1.5:11434", noRoute, true},
		{"LAN name, no route in words", "darwin", "http://studio.local:11434", errors.New("dial tcp 192.168.1.5:11434: connect: no route to host"), true},
		{"this machine", "darwin", "http://127.0.0.1:11434", noRoute, false},
		{"localhost", "darwin", "http://localhost:11434", noRoute, false},
		{"refused: the server is down, not blocked", "darwin", "http://192.168.1.5:11434", refused, false},
		{"Linux asks nobody", "linux", "http://192.168.1.5:11434", noRoute, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := localNetworkHint(c.goos, c.host, c.err)
			if got := strings.Contains(h, "Privacy & Security › Local Network"); got != c.want {
				t.Errorf("hint %q, want one naming Local Network: %v", h, c.want)
			}
		})
	}
	// On this machine's OS the hint joins the unreachable server's message.
	e := classify(context.Background(), noRoute, "http://192.168.1.5:11434", "m")
	if !errors.Is(e, ErrOllamaUnreachable) || !strings.Contains(e.Error(), "not running at http://192.168.1.5:11434") ||
		!strings.HasSuffix(e.Error(), localNetworkHint(runtime.GOOS, "http://192.168.1.5:11434", noRoute)) {
		t.Errorf("classify: %v", e)
	}
}
