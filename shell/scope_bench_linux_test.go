package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell/scope"
)

// BenchmarkApprovedRun measures what holding an approved run to its scope
// costs against running it without limits, both through the same runner
// and zygote. Each confined run is timed next to an unconfined one,
// alternating which goes first, and x-unconfined is the ratio of the two
// totals: pairing keeps it honest on a machine whose load drifts. The
// work is a small build's: make a folder, write and read a few files. The
// "project" variant is scoped to the project (the zygote's path); "repo"
// to a project that is a git repository, whose hooks and settings the run
// holds by mounts in a namespace of its own (made by the zygote's child as
// root, by a helper of the run's own otherwise: the slower path); "home"
// to a home folder that holds start-up files and keys, held the same way,
// where the run may remove nothing (so its work leaves its folder behind),
// and whose kept folders that do not exist yet are made for each run and
// taken away after; "git" to the repository for a line of git alone,
// which keeps the zygote's path.
func BenchmarkApprovedRun(b *testing.B) {
	if ok, _ := SandboxStatus(); !ok {
		b.Skip("no OS sandbox here")
	}
	const work = "mkdir -p out && for i in 1 2 3 4 5 6 7 8; do echo $i > out/f$i; done && cat out/* > all.txt && rm -r out"
	for _, v := range []string{"project", "repo", "git", "home"} {
		b.Run(v, func(b *testing.B) {
			home := b.TempDir()
			for _, p := range []string{".bashrc", ".profile", ".ssh/id_rsa", ".config/hark/settings.json"} {
				os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755)
				os.WriteFile(filepath.Join(home, p), []byte("x\n"), 0o644)
			}
			dir := filepath.Join(home, "proj")
			os.Mkdir(dir, 0o755)
			if v == "repo" || v == "git" {
				os.MkdirAll(filepath.Join(dir, ".git/hooks"), 0o755)
				os.WriteFile(filepath.Join(dir, ".git/config"), []byte("[core]\n"), 0o644)
			}
			r := NewRunner(RunnerOptions{Shell: "/bin/sh", Home: home, Timeout: 10 * time.Second})
			r.Run(context.Background(), Request{Command: "true", Verdict: confirmed, Sandbox: SandboxOff}) // the zygote starts once per Hark
			in := scope.Input{Dir: dir, Home: home, Programs: [][]string{{"make"}}, Own: []string{filepath.Join(home, ".ssh")}}
			if v == "home" {
				in.Dir = home
			}
			if v == "git" {
				in.Programs = [][]string{{"git", "commit"}}
			}
			sc := scope.Build(in)
			work := work
			if v == "home" {
				work = strings.TrimSuffix(work, " && rm -r out")
			}
			confined := Request{Command: work, WorkingDirectory: in.Dir, Verdict: confirmed, Scope: &sc, Hide: []string{filepath.Join(home, ".ssh")}}
			open := Request{Command: work, WorkingDirectory: in.Dir, Verdict: confirmed, Sandbox: SandboxOff}
			run := func(req Request, want string) time.Duration {
				t := time.Now()
				if res := r.Run(context.Background(), req); !res.Success || res.Sandbox != want {
					b.Fatalf("%s", res.JSON())
				}
				return time.Since(t)
			}
			var base, held time.Duration
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					base += run(open, SandboxNotApplied)
				}
				held += run(confined, SandboxScoped)
				if i%2 == 1 {
					base += run(open, SandboxNotApplied)
				}
				i++
			}
			b.ReportMetric(float64(held)/float64(base), "x-unconfined")
		})
	}
}
