package exectest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestWrittenProgramsStartWhileOthersFork writes and runs scripts from many
// goroutines at once, each of which also forks: with plain os.WriteFile
// this fails with "text file busy" within a few hundred rounds on two
// cores; written here, every script starts.
func TestWrittenProgramsStartWhileOthersFork(t *testing.T) {
	dir := t.TempDir()
	const workers, rounds = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				path := filepath.Join(dir, fmt.Sprintf("prog-%d-%d", w, r))
				WriteScript(t, path, "#!/bin/sh\necho ran\n")
				out, err := exec.Command(path).Output()
				if err != nil || string(out) != "ran\n" {
					errs <- err
					return
				}
				os.Remove(path)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a written script did not start: %v", err)
	}
}

// TestWriteProgramSetsTheMode: an existing file's mode and the umask do
// not decide the mode; the owner can always execute.
func TestWriteProgramSetsTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	WriteProgram(t, path, []byte("#!/bin/sh\n"), 0o644)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o744 {
		t.Fatalf("mode %v (err %v), want 0744", fi.Mode().Perm(), err)
	}
}
