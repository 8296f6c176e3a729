//go:build !linux && !darwin

package trash

// renameNoReplace renames old to new unless new exists. Without an atomic
// no-replace rename the check and the rename are two steps.
func renameNoReplace(old, new string) error { return renameChecked(old, new) }
