package trash

import "golang.org/x/sys/unix"

// renameatExcl is renameat that fails with EEXIST rather than replace.
func renameatExcl(olddirfd int, old string, newdirfd int, new string) error {
	return unix.Renameat2(olddirfd, old, newdirfd, new, unix.RENAME_NOREPLACE)
}
