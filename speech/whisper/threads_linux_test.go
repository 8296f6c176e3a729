package whisper

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// performanceCores on fake sysfs trees of the machines it must tell apart.
func TestPerformanceCores(t *testing.T) {
	t.Parallel()
	type cpu struct {
		core     string // core_cpus_list
		capacity int    // 0: no cpu_capacity file
	}
	tests := []struct {
		name       string
		cpus       []cpu
		intelP     string // cpu_core/cpus, "" when not a hybrid Intel chip
		allowed    []int  // nil: all
		want       int
		noTopology bool
	}{
		{name: "four cores, two threads each", cpus: []cpu{{"0,4", 0}, {"1,5", 0}, {"2,6", 0}, {"3,7", 0}, {"0,4", 0}, {"1,5", 0}, {"2,6", 0}, {"3,7", 0}}, want: 4},
		{name: "no SMT", cpus: []cpu{{"0", 0}, {"1", 0}}, want: 2},
		{name: "Intel hybrid: 2 P-cores with SMT, 4 E-cores", cpus: []cpu{{"0-1", 0}, {"0-1", 0}, {"2-3", 0}, {"2-3", 0}, {"4", 0}, {"5", 0}, {"6", 0}, {"7", 0}}, intelP: "0-3", want: 2},
		{name: "big.LITTLE by capacity", cpus: []cpu{{"0", 512}, {"1", 512}, {"2", 512}, {"3", 512}, {"4", 1024}, {"5", 1024}}, want: 2},
		{name: "affinity leaves one core", cpus: []cpu{{"0,2", 0}, {"1,3", 0}, {"0,2", 0}, {"1,3", 0}}, allowed: []int{0, 2}, want: 1},
		{name: "sysfs says nothing", cpus: []cpu{{"", 0}, {"", 0}}, noTopology: true, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			var all []int
			for i, c := range tt.cpus {
				all = append(all, i)
				dir := filepath.Join(root, "system", "cpu", "cpu"+strconv.Itoa(i))
				if err := os.MkdirAll(filepath.Join(dir, "topology"), 0o755); err != nil {
					t.Fatal(err)
				}
				if !tt.noTopology {
					os.WriteFile(filepath.Join(dir, "topology", "core_cpus_list"), []byte(c.core+"\n"), 0o644)
				}
				if c.capacity > 0 {
					os.WriteFile(filepath.Join(dir, "cpu_capacity"), []byte(strconv.Itoa(c.capacity)+"\n"), 0o644)
				}
			}
			if tt.intelP != "" {
				os.MkdirAll(filepath.Join(root, "cpu_core"), 0o755)
				os.WriteFile(filepath.Join(root, "cpu_core", "cpus"), []byte(tt.intelP+"\n"), 0o644)
			}
			allowed := tt.allowed
			if allowed == nil {
				allowed = all
			}
			if got := performanceCores(root, allowed); got != tt.want {
				t.Errorf("performanceCores = %d, want %d", got, tt.want)
			}
		})
	}
	if n := DefaultThreads(); n < 1 || n > MaxThreads {
		t.Errorf("DefaultThreads() = %d on this machine", n)
	}
}

func TestParseCPUList(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"0-3,8,10-11": 7, "5": 1, "": 0, "3-1": 0, "x": 0} {
		if got := len(parseCPUList(in)); got != want {
			t.Errorf("parseCPUList(%q) has %d CPUs, want %d", in, got, want)
		}
	}
}
