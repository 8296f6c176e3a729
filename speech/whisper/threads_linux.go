package whisper

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultThreads is the number of physical performance cores this process
// may run on, at most MaxThreads. whisper.cpp's threads wait for the
// slowest of them at every step, so a second hardware thread of a core
// (SMT) or an efficiency core adds waiting, not speed.
func DefaultThreads() int {
	var set unix.CPUSet
	var allowed []int
	if unix.SchedGetaffinity(0, &set) == nil {
		for cpu := 0; cpu < 1024 && len(allowed) < set.Count(); cpu++ {
			if set.IsSet(cpu) {
				allowed = append(allowed, cpu)
			}
		}
	}
	if n := performanceCores("/sys/devices", allowed); n > 0 {
		return clampThreads(n)
	}
	return clampThreads(runtime.NumCPU())
}

// performanceCores counts the physical cores among the allowed CPUs that
// are of the fastest kind, reading sysfs under root (/sys/devices): on
// Intel's hybrid chips only the cores listed in cpu_core/cpus (not
// cpu_atom); on chips that give each CPU a capacity (Arm big.LITTLE), the
// ones with the highest; and each core once however many hardware threads
// it has (topology/core_cpus_list). It returns 0 when sysfs does not say.
func performanceCores(root string, allowed []int) int {
	if len(allowed) == 0 {
		return 0
	}
	if list, err := os.ReadFile(filepath.Join(root, "cpu_core", "cpus")); err == nil {
		if fast := parseCPUList(strings.TrimSpace(string(list))); len(fast) > 0 {
			allowed = intersect(allowed, fast)
		}
	}
	capacity := map[int]int{}
	best := 0
	for _, cpu := range allowed {
		b, err := os.ReadFile(filepath.Join(root, "system", "cpu", "cpu"+strconv.Itoa(cpu), "cpu_capacity"))
		if err != nil {
			capacity = nil
			break
		}
		c, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		capacity[cpu] = c
		best = max(best, c)
	}
	cores := map[string]bool{}
	for _, cpu := range allowed {
		if capacity != nil && capacity[cpu] < best {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "system", "cpu", "cpu"+strconv.Itoa(cpu), "topology", "core_cpus_list"))
		if err != nil {
			b, err = os.ReadFile(filepath.Join(root, "system", "cpu", "cpu"+strconv.Itoa(cpu), "topology", "thread_siblings_list"))
		}
		if err != nil {
			return 0
		}
		cores[strings.TrimSpace(string(b))] = true
	}
	return len(cores)
}

// parseCPUList reads the kernel's CPU list format: "0-3,8,10-11".
func parseCPUList(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out
}

func intersect(a, b []int) []int {
	in := map[int]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []int
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}
