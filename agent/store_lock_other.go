//go:build !unix

package agent

// lockPath has no advisory locks to take here: writers in one process are
// still ordered by the Store's mutex.
func lockPath(string) func() { return func() {} }
