package policy

import "strings"

// diskutilForbidden are diskutil verbs (compared in lower case, as diskutil
// does) that erase or repartition disks.
var diskutilForbidden = []string{"erasedisk", "erasevolume", "zerodisk", "secureerase", "partitiondisk", "reformat", "randomdisk", "erasecd", "splitpartition", "mergepartitions", "deletecontainer", "deletevolume", "deletevolumegroup", "deletesnapshot", "delete", "deletelvg", "deletelv", "addpartition", "resizevolume", "resizecontainer"}

func diskutilCheck(in *invocation) {
	args := in.args
	if len(args) > 0 && args[0].val == "quiet" {
		args = args[1:]
	}
	// The verb comes first: an option before it is no verb diskutil
	// knows, and could only hide which one runs.
	if len(args) > 0 && args[0].option() && !versionQuery(args) {
		in.confirmOpt(args[0].val, "cannot tell what diskutil does")
		return
	}
	var words []string
	for _, a := range args {
		if a.expanded {
			in.confirmOpt(a.val, "cannot tell what diskutil does")
			return
		}
		if !a.option() {
			words = append(words, strings.ToLower(a.val))
		}
	}
	if len(words) == 0 {
		return
	}
	verb := words[0]
	if (verb == "apfs" || verb == "cs" || verb == "appleraid" || verb == "corestorage") && len(words) > 1 {
		verb = words[1]
	}
	if contains(diskutilForbidden, verb) {
		in.forbidOpt(verb, "erasing or repartitioning a disk is never run")
		return
	}
	switch verb {
	case "list", "info", "information", "listfilesystems", "listsnapshots", "listcryptousers", "listvolumegroups", "activity":
		return
	}
	in.confirmOpt(verb, "changes disks or volumes")
}

// partitionCheck: partition tools may list; anything else rewrites a disk.
func partitionCheck(listing ...string) check {
	return func(in *invocation) {
		if len(in.args) == 1 && versionQuery(in.args) {
			return
		}
		// Every option must be a listing one: sgdisk runs all the
		// options it is given, so `sgdisk -p -Z disk` prints, then zaps.
		lists := false
		for _, a := range in.args {
			if !a.plain() {
				break
			}
			if a.option() && !contains(listing, a.val) {
				lists = false
				break
			}
			lists = lists || contains(listing, a.val)
		}
		if lists {
			return
		}
		in.forbid("rewriting a partition table is never run")
	}
}

// gptCheck: `gpt [-r] show [-l|-u] disk` only prints.
func gptCheck(in *invocation) {
	ops := operands(in.args)
	if len(ops) > 0 && ops[0].val == "show" {
		for _, a := range in.args {
			if !a.plain() || a.option() && !contains([]string{"-r", "-l", "-u", "-v"}, a.val) {
				in.forbid("rewriting a partition table is never run")
				return
			}
		}
		return
	}
	in.forbid("rewriting a partition table is never run")
}

// hdparmCheck: hdparm's security erase, sector writes and firmware
// downloads destroy a disk's contents; anything else changes settings.
func hdparmCheck(in *invocation) {
	for _, a := range in.args {
		for _, l := range []string{"--security-erase", "--security-erase-enhanced", "--write-sector", "--make-bad-sector",
			"--trim-sector-ranges", "--trim-sector-ranges-stdin", "--dco-restore", "--fwdownload", "--fwdownload-mode3",
			"--fwdownload-mode3-max", "--fwdownload-mode7", "--security-set-pass", "--user-master"} {
			if a.val == l {
				in.forbidOpt(a.val, "erasing a disk is never run")
				return
			}
		}
	}
	in.confirm("changes disk settings")
}

// nvmeCheck: formatting, sanitizing or zeroing an NVMe drive erases it.
func nvmeCheck(in *invocation) {
	if ops := operands(in.args); len(ops) > 0 {
		switch ops[0].val {
		case "format", "sanitize", "write-zeroes", "write-uncor", "delete-ns", "detach-ns", "fw-download", "fw-commit", "dsm", "set-feature", "format-nvm":
			in.forbidOpt(ops[0].val, "erasing a disk is never run")
			return
		}
	}
	in.confirm("works with disk hardware")
}

// cryptsetupCheck: formatting a LUKS device or erasing its key slots
// makes its contents unreadable for good.
func cryptsetupCheck(in *invocation) {
	// Any operand: an option's value (--type luks2) may come before the verb.
	for _, a := range operands(in.args) {
		switch strings.ToLower(a.val) {
		case "luksformat", "erase", "lukserase", "reencrypt", "tcryptformat":
			in.forbidOpt(a.val, "erasing a disk is never run")
			return
		}
	}
	in.confirm("works with encrypted disks")
}

// badblocksCheck: -w writes patterns over the whole device.
func badblocksCheck(in *invocation) {
	if f, ok := hasFlag(in.args, "w"); ok {
		in.forbidOpt(f, "erasing a disk is never run")
		return
	}
	in.confirm("tests disk hardware")
}

func mountCheck(in *invocation) {
	if f, ok := hasFlag(in.args, "a", "--all"); ok {
		in.confirmOpt(f, "mounts file systems")
		return
	}
	if len(operands(in.args)) > 0 {
		in.confirm("mounts file systems")
	}
}
