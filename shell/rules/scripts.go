package rules

import (
	"strings"

	"github.com/hark-sh/hark/shell/plan"
	"github.com/hark-sh/hark/shell/policy"
)

// Programs whose script can name files to write (sed's w, W and s///w,
// awk's print > "file") or commands to run (sed's e, awk's system() and
// pipes). Those names are inside a script, not arguments, so a folder
// scope cannot see them; the policy's verdict does not carry them either
// (sed -i reports the in-place edit and stops reading), so the rules read
// the scripts themselves.
var scriptPrograms = map[string]string{
	"sed": "sed", "gsed": "sed",
	"awk": "awk", "gawk": "awk", "mawk": "awk", "nawk": "awk",
}

// hiddenWrites says why no allow rule may cover c because of what its
// script does, or "". The files a script writes are seen by neither a
// folder scope nor the floor, so a script that writes, runs commands, or
// is read from a file (-f) keeps every allow rule off. Each script is put
// to the policy alone (`sed -e SCRIPT`, `awk -- PROGRAM`), which reads sed
// scripts in full and awk programs coarsely; on top of that, an awk
// program with any '>', '|' or system in it counts as writing.
func (s *Store) hiddenWrites(c call, wd string) string {
	family, ok := scriptPrograms[c.program]
	if !ok {
		return ""
	}
	var scripts, bsd []string
	var fromFile bool
	if family == "sed" {
		scripts, bsd, fromFile = sedScripts(c.args)
	} else {
		scripts, fromFile = awkPrograms(c.args)
	}
	if fromFile {
		return "its script comes from a file, which Hark does not read"
	}
	for _, sc := range scripts {
		probe := c.program + " -e " + quote(sc)
		if family == "awk" {
			probe = c.program + " -- " + quote(sc)
		}
		v := s.classify(probe, wd)
		for _, r := range v.Reasons {
			if r.Category == policy.Code || r.Category == policy.Network {
				return "its script runs commands or opens connections (" + r.Why + ")"
			}
		}
		if v.Tier != policy.Safe {
			return "its script writes files that neither the folder check nor the protected paths see (" + reasonList(v.Reasons) + ")"
		}
		if family == "awk" && (strings.ContainsAny(sc, ">|") || strings.Contains(sc, "system")) {
			return "its program may write to a file or a command (a '>', '|' or system in it), which neither the folder check nor the protected paths see"
		}
	}
	// BSD sed reads `-i SUFFIX SCRIPT`: the second operand may be the
	// script. It is read leniently, since GNU sed takes it for a file: only
	// a script that surely writes or runs something counts.
	for _, sc := range bsd {
		for _, r := range s.classify(c.program+" -e "+quote(sc), wd).Reasons {
			if strings.Contains(r.Why, "cannot read") {
				continue
			}
			if r.Category == policy.Code || r.Category == policy.Write {
				return "its script, as BSD sed reads it, writes files or runs commands (" + r.Why + ")"
			}
		}
	}
	return ""
}

// sedScripts are the scripts of a sed command line (plan.ReadSed); bsd
// is the operand BSD sed takes for the script after a bare -i. fromFile is
// true for -f.
func sedScripts(args []string) (scripts, bsd []string, fromFile bool) {
	sed := plan.ReadSed(args, false)
	if sed.FromFile {
		return nil, nil, true
	}
	if sed.BareI && sed.ScriptOperand && len(sed.Files) > 0 {
		bsd = []string{args[sed.Files[0]]}
	}
	return sed.Scripts, bsd, false
}

// awkPrograms are the programs of an awk command line (plan.ReadAwk);
// fromFile is true for -f, -i, -E, -l and their long forms.
func awkPrograms(args []string) (progs []string, fromFile bool) {
	awk := plan.ReadAwk(args)
	if awk.FromFile {
		return nil, true
	}
	return awk.Programs, false
}
