// Package exectest writes programs that a test then runs. A file this
// process has open for writing cannot be executed ("text file busy"), and a
// fork made by any other goroutine while the file is open carries a copy of
// that descriptor until its child execs or exits, so a script written with
// a plain os.WriteFile fails now and then to start when parallel tests
// fork beside it. Writing under syscall.ForkLock closes that window: no
// fork of this process can start while the file is open. Tests import it;
// nothing else.
package exectest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// WriteProgram writes content to path with mode perm (made executable by
// its owner at least) so that the file can be executed as soon as it
// returns, whatever other goroutines fork meanwhile.
func WriteProgram(t testing.TB, path string, content []byte, perm os.FileMode) {
	t.Helper()
	if err := writeProgram(path, content, perm|0o100); err != nil {
		t.Fatalf("writing the program %s: %v", path, err)
	}
}

// WriteScript writes a script, owner-only, as WriteProgram does.
func WriteScript(t testing.TB, path, content string) {
	t.Helper()
	WriteProgram(t, path, []byte(content), 0o700)
}

func writeProgram(path string, content []byte, perm os.FileMode) error {
	// A read lock: writers here do not wait for one another, only forks
	// (which take the lock for writing) wait for every open file to close.
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(path, content, perm); err != nil {
		return err
	}
	// WriteFile keeps an existing file's mode, and the umask may have
	// taken bits off a new one.
	return os.Chmod(path, perm)
}

// NobodyCopy copies the running test binary, as name, into a new folder
// that every user can read, and makes beside it a work folder every user
// can write: what a test needs to run itself again as an unprivileged user.
// Both go when the test ends.
func NobodyCopy(t testing.TB, name string) (bin, work string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hark-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin, work = filepath.Join(dir, name), filepath.Join(dir, "work")
	WriteProgram(t, bin, src, 0o755)
	if err := os.Mkdir(work, 0o777); err != nil {
		t.Fatal(err)
	}
	// Past the umask, which Mkdir and MkdirTemp honour.
	for path, mode := range map[string]os.FileMode{dir: 0o755, work: 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	return bin, work
}
