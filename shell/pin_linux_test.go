package shell

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// pinTree is a throwaway home with a fake ~/.ssh, another folder, and the
// folder a command is approved in (at depth levels below home).
func pinTree(t *testing.T, depth int) (home, ssh, wd string) {
	t.Helper()
	home = t.TempDir()
	ssh = filepath.Join(home, ".ssh")
	wd = home
	for i := range depth {
		wd = filepath.Join(wd, []string{"a", "b", "proj"}[3-depth+i])
	}
	for _, d := range []string{ssh, filepath.Join(ssh, "proj"), filepath.Join(ssh, "b", "proj"), filepath.Join(home, "other"), wd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ssh, "id_rsa"), []byte("KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, ssh, wd
}

func ranHere(root string) []string {
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "ran-here" {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func aside(p string, put func() error) error {
	if err := os.Rename(p, p+".aside"); err != nil {
		return err
	}
	return put()
}

// TestEscapePinnedFolder: a folder pinned (as at approval) and then made to
// name another folder is refused by Run, in every way a command starts,
// sandboxed or not, and the command runs nowhere. Named TestEscape… so the
// nobody run of that suite runs it too.
func TestEscapePinnedFolder(t *testing.T) {
	swaps := []struct {
		name  string
		depth int
		swap  func(home, ssh, wd string) error
	}{
		{"link to ~/.ssh", 1, func(home, ssh, wd string) error {
			return aside(wd, func() error { return os.Symlink(ssh, wd) })
		}},
		{"relative link to ~/.ssh", 1, func(home, ssh, wd string) error {
			return aside(wd, func() error { return os.Symlink(".ssh", wd) })
		}},
		{"parent swapped for a link", 2, func(home, ssh, wd string) error {
			p := filepath.Dir(wd)
			return aside(p, func() error { return os.Symlink(ssh, p) })
		}},
		{"grandparent swapped for a link", 3, func(home, ssh, wd string) error {
			p := filepath.Dir(filepath.Dir(wd))
			return aside(p, func() error { return os.Symlink(ssh, p) })
		}},
		{"renamed over", 1, func(home, ssh, wd string) error {
			return syscall.Rename(filepath.Join(home, "other"), wd)
		}},
		{"another ordinary folder", 1, func(home, ssh, wd string) error {
			return aside(wd, func() error { return os.Mkdir(wd, 0o755) })
		}},
		{"deleted and made again", 1, func(home, ssh, wd string) error {
			if err := os.Remove(wd); err != nil {
				return err
			}
			return os.Mkdir(wd, 0o755)
		}},
		{"deleted", 1, func(home, ssh, wd string) error { return os.Remove(wd) }},
	}
	tiers := []struct {
		name    string
		verdict Verdict
	}{{"approved", confirmed}, {"sandboxed", Verdict{Tier: Safe}}}
	for _, m := range runModes() {
		for _, tier := range tiers {
			if tier.verdict.Tier == Safe && m.direct {
				continue // Linux sandboxes only through the helper; direct is macOS's way
			}
			for _, s := range swaps {
				t.Run(m.name+"/"+tier.name+"/"+s.name, func(t *testing.T) {
					home, ssh, wd := pinTree(t, s.depth)
					r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh"})
					m.apply(r)
					pin, err := PinDir(wd)
					if err != nil {
						t.Fatal(err)
					}
					defer pin.Close()
					if err := s.swap(home, ssh, wd); err != nil {
						t.Fatal(err)
					}
					cmd := "pwd -P; ls; touch ran-here"
					if tier.verdict.Tier == Safe {
						cmd = "pwd -P; ls; echo ran-here" // the sandbox writes nowhere
					}
					res := r.Run(context.Background(), Request{Command: cmd, WorkingDirectory: wd, Verdict: tier.verdict, Pin: pin})
					if got := ranHere(home); res.Executed || len(got) != 0 || strings.Contains(res.Output, "ran-here") {
						t.Fatalf("ran after the folder changed (%v): %s", got, res.JSON())
					}
					if !strings.Contains(res.Error, "changed after the command was approved") || !strings.Contains(res.Error, "Nothing ran") {
						t.Errorf("the result should say the folder changed: %q", res.Error)
					}
				})
			}
			t.Run(m.name+"/"+tier.name+"/unchanged", func(t *testing.T) {
				home, _, wd := pinTree(t, 2)
				r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh"})
				m.apply(r)
				pin, err := PinDir(wd)
				if err != nil {
					t.Fatal(err)
				}
				defer pin.Close()
				res := r.Run(context.Background(), Request{Command: "pwd -P; echo $PWD", WorkingDirectory: wd, Verdict: tier.verdict, Pin: pin})
				if !res.Success || res.Output != wd+"\n"+wd+"\n" {
					t.Fatalf("an unchanged pinned folder should run there, with $PWD its name: %s", res.JSON())
				}
			})
		}
	}
}

// TestEscapePinnedFolderRace: the folder is swapped for a link to ~/.ssh
// and back while pinned runs start, a different number of times each run;
// a run may start in the folder (under its name or its name moved aside)
// or be refused, never in ~/.ssh.
func TestEscapePinnedFolderRace(t *testing.T) {
	const runs = 40
	for _, m := range runModes() {
		t.Run(m.name, func(t *testing.T) {
			home, ssh, wd := pinTree(t, 1)
			r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh"})
			m.apply(r)
			ran := 0
			for i := range runs {
				pin, err := PinDir(wd)
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() {
					defer close(done)
					for k := range 1 + i%7 {
						if os.Rename(wd, wd+".aside") != nil {
							t.Error("could not move the folder aside")
							return
						}
						os.Symlink(ssh, wd)
						for range (i + k) % 11 {
							runtime.Gosched()
						}
						os.Remove(wd)
						os.Rename(wd+".aside", wd)
						for range (i * k) % 5 {
							runtime.Gosched()
						}
					}
				}()
				res := r.Run(context.Background(), Request{Command: "pwd -P; touch ran-here", WorkingDirectory: wd, Verdict: confirmed, Pin: pin})
				<-done
				pin.Close()
				if res.Executed {
					ran++
					if got := strings.TrimSpace(res.Output); got != wd && got != wd+".aside" {
						t.Errorf("run %d started in %q: %s", i, got, res.JSON())
					}
				} else if !strings.Contains(res.Error, "changed after the command was approved") && !strings.Contains(res.Error, "does not exist") {
					t.Errorf("run %d refused for another reason: %s", i, res.Error)
				}
				if got := ranHere(ssh); len(got) != 0 {
					t.Fatalf("run %d ran in ~/.ssh: %v", i, got)
				}
				os.Remove(filepath.Join(wd, "ran-here"))
			}
			t.Logf("%d runs, %d started in the pinned folder, the rest refused", runs, ran)
		})
	}
}

// BenchmarkRunPinned is the cost of the pin on a short approved command
// through the zygote: pinned (PinDir, the check, the descriptor passed)
// against the same run by path, in the same run.
func BenchmarkRunPinned(b *testing.B) {
	home := b.TempDir()
	wd := filepath.Join(home, "src", "project", "sub")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		b.Fatal(err)
	}
	r := NewRunner(RunnerOptions{Shell: "/bin/sh", Home: home})
	for _, pinned := range []bool{false, true} {
		b.Run(map[bool]string{false: "by-path", true: "pinned"}[pinned], func(b *testing.B) {
			for b.Loop() {
				req := Request{Command: "true", WorkingDirectory: wd, Verdict: confirmed}
				if pinned {
					pin, err := PinDir(wd)
					if err != nil {
						b.Fatal(err)
					}
					req.Pin = pin
				}
				if res := r.Run(context.Background(), req); !res.Success {
					b.Fatal(res.JSON())
				}
				req.Pin.Close()
			}
		})
	}
}

// TestEscapePinnedFolderUnreadable: a folder its user may enter but not
// list (mode 0311 here; 0711 homes are common) is held and run in like
// any other, sandboxed or not, and a swap of it is still refused. Run as
// nobody by the escape suite; as root, who reads every folder, it shows
// only that nothing else broke.
func TestEscapePinnedFolderUnreadable(t *testing.T) {
	for _, tier := range []struct {
		name    string
		verdict Verdict
	}{{"approved", confirmed}, {"sandboxed", Verdict{Tier: Safe}}} {
		t.Run(tier.name, func(t *testing.T) {
			home, ssh, wd := pinTree(t, 2)
			if err := os.Chmod(wd, 0o311); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(wd, 0o755) })
			if f, err := os.Open(wd); err == nil {
				f.Close()
				if !isRoot() {
					t.Fatalf("the folder of mode 0311 could be opened for reading")
				}
			}
			r := testRunner(t, RunnerOptions{Home: home, Shell: "/bin/sh"})
			pin, err := PinDir(wd)
			if err != nil {
				t.Fatalf("a folder that can be entered but not listed was not held: %v", err)
			}
			defer pin.Close()
			res := r.Run(context.Background(), Request{Command: "pwd -P", WorkingDirectory: wd, Verdict: tier.verdict, Pin: pin})
			if !res.Success || res.Output != wd+"\n" {
				t.Fatalf("did not run in the held folder: %s", res.JSON())
			}
			if err := aside(wd, func() error { return os.Symlink(ssh, wd) }); err != nil {
				t.Fatal(err)
			}
			res = r.Run(context.Background(), Request{Command: "pwd -P", WorkingDirectory: wd, Verdict: tier.verdict, Pin: pin})
			if res.Executed || !strings.Contains(res.Error, "changed after the command was approved") {
				t.Fatalf("ran after the folder was swapped: %s", res.JSON())
			}
		})
	}
}
