package trash

import "golang.org/x/sys/unix"

// renameatExcl is renameat that fails with EEXIST rather than replace.
func renameatExcl(olddirfd int, old string, newdirfd int, new string) error {
	return unix.RenameatxNp(olddirfd, old, newdirfd, new, unix.RENAME_EXCL)
}
