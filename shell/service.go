package shell

// OutputLimit is how many bytes of a command's stdout the Runner keeps: a
// Service's answers are held to the same bound as a command's output.
func (r *Runner) OutputLimit() int { return r.outputLimit }

// ResolveDir is the folder a Request's WorkingDirectory names for this
// Runner, or why Run would refuse it, in the words Run would use.
func (r *Runner) ResolveDir(dir string) (string, error) { return resolveDir(dir, r.home) }
