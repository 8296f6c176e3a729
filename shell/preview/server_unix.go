//go:build unix

package preview

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"
)

// serverMain is `hark __preview -server`: the preview server, started
// once by a Previewer through shell.Runner.StartService, so inside the
// read-only sandbox like the one-shot helper. Its stdout is a socket: it
// says serverReady, then answers one request line with one answer line
// until the socket closes.
//
// One request at a time, and each starts from scratch: the request names
// its folder, which the server enters before it looks (so nothing of the
// last request's folder is left), a fresh analyzer computes the preview,
// and the preview engine keeps no state of its own between calls (its
// tables are fixed at start). What one tree can do to the next preview is
// therefore what it could do to the one-shot helper: nothing but take
// time, which the Previewer's bound cuts off by ending the server.
func serverMain() int {
	var st syscall.Stat_t
	if err := syscall.Fstat(1, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		fmt.Fprintln(os.Stderr, "hark "+HelperCommand+" "+ServerArg+": stdout is not the previewer's socket; this entry point is internal")
		return 2
	}
	conn := os.Stdout
	in := bufio.NewReaderSize(conn, 64<<10)
	if _, err := conn.WriteString(serverReady + "\n"); err != nil {
		return 1
	}
	for {
		line, err := readLine(in, maxRequest)
		if err != nil {
			return 0 // the Previewer closed its end, or Hark exited
		}
		b, err := json.Marshal(serve(line))
		if err != nil {
			b, _ = json.Marshal(answer{Error: err.Error()})
		}
		if _, err := conn.Write(append(b, '\n')); err != nil {
			return 0
		}
		// Leave while well inside the sandbox's CPU-time limit, which a
		// long-lived process would otherwise reach one day in the middle
		// of a preview: the Previewer starts a fresh server next time.
		if cpuUsed() > cpuBudget {
			return 0
		}
	}
}

// cpuBudget is half the sandbox's soft RLIMIT_CPU (20 s).
const cpuBudget = 10 * time.Second

func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return cpuBudget + 1 // unknown: start afresh rather than risk the limit
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serve answers one request line.
func serve(line []byte) answer {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Error: "bad request: " + err.Error()}
	}
	// chdir by name, as the one-shot helper's shell entered its folder: a
	// folder one may enter but not list previews the same either way, and
	// os.Getwd then reads it as that helper did ($PWD when it names this
	// folder, else the kernel's path).
	if err := os.Chdir(req.Dir); err != nil {
		return answer{Error: "no working folder: " + err.Error()}
	}
	dir, err := os.Getwd()
	if err != nil {
		return answer{Error: "no working folder: " + err.Error()}
	}
	// Back to / once done: the next request enters its own folder anyway,
	// and an idle server should pin no folder (or mount) of the user's.
	defer os.Chdir("/")
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, req.Deadline))
	defer cancel()
	return answer{Preview: compute(ctx, req.Command, dir, os.Environ())}
}
