package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
)

// trashListMax is how many trashed names a result spells out.
const trashListMax = 10

// trashOffered says whether the user may answer this confirm-tier call with
// Move to Trash: a Trash is configured and the command is a plain deletion
// under home.
func (r *run) trashOffered(ta toolArgs, v shell.Verdict) bool {
	if r.a.o.Trash == nil || v.Tier != shell.Confirm {
		return false
	}
	_, err := trash.PlanFor(ta.Command, ta.WorkingDirectory, r.a.o.Home)
	return err == nil
}

// moveToTrash does what the user chose instead of the command: it works out
// the targets again (the folder may have changed while the user decided),
// lists find's matches with the same find in the read-only sandbox, and
// moves what the deletion would have removed to the Trash. The command
// itself never runs. It returns the result for the model and the original
// paths moved, for the audit log.
func (r *run) moveToTrash(ctx context.Context, ta toolArgs) (shell.Result, []string) {
	a := r.a
	res := shell.Result{Command: ta.Command, WorkingDirectory: ta.WorkingDirectory, Purpose: ta.Purpose, ExitCode: -1}
	fail := func(why string) (shell.Result, []string) {
		res.Error = "The user chose Move to Trash, but nothing was moved or deleted: " + why + ". Tell the user; do not delete the files another way."
		return res, nil
	}
	plan, err := trash.PlanFor(ta.Command, ta.WorkingDirectory, a.o.Home)
	if err != nil {
		return fail("Hark could not work out the targets again (" + err.Error() + ")")
	}
	paths := plan.Paths
	if plan.Find != "" {
		wd := ta.WorkingDirectory
		if filepath.Clean(wd) == filepath.Clean(a.o.Home) {
			wd = "~"
		}
		fv := a.o.Classifier.ClassifyIn(plan.Find, wd)
		if fv.Tier != shell.Safe {
			return fail("the listing `" + plan.Find + "` is not read-only by Hark's policy (" + reasonText(fv.Reasons) + ")")
		}
		start := a.o.now()
		lr := a.o.Executor.Run(ctx, shell.Request{Command: plan.Find, WorkingDirectory: ta.WorkingDirectory,
			Purpose: PurposeChecking, Verdict: fv, Sandbox: shell.SandboxReadOnly})
		r.m.CommandTimeMs += a.o.now().Sub(start).Milliseconds()
		res.Sandbox = lr.Sandbox
		switch {
		case ctx.Err() != nil:
			return fail("the request was cancelled")
		case !lr.Executed || lr.TimedOut || lr.ExitCode != 0:
			return fail("listing what find would delete failed (" + strings.TrimSpace(lr.Error) + ")")
		case lr.Truncated:
			return fail("find lists more files than Hark can hold; narrow the command")
		}
		if paths, err = plan.FindPaths(lr.Output); err != nil {
			return fail(err.Error())
		}
	}
	ok, problems := plan.Check(paths)
	if len(ok) == 0 && len(problems) == 0 {
		res.Success, res.ExitCode = true, 0
		res.Output = "Nothing to move: the deletion would have removed nothing."
		return res, nil
	}
	var rec trash.Record
	if len(ok) > 0 {
		rec, err = a.o.Trash.Trash(ctx, ta.Command, ok)
		if err != nil {
			problems = append(problems, err)
		}
	}
	var moved []string
	for _, it := range rec.Items {
		moved = append(moved, it.Original)
	}
	if len(moved) > 0 {
		res.Output = fmt.Sprintf("Moved %s to the Trash instead of deleting: %s. The command itself did not run. "+
			"The user can put them back with Undo last trash in Hark's menu or `hark undo`.", items(len(moved)), nameList(moved))
	}
	if len(problems) == 0 {
		res.Success, res.ExitCode = true, 0
		return res, moved
	}
	res.ExitCode = 1
	res.Error = "Not moved to the Trash: " + errors.Join(problems...).Error()
	if len(moved) == 0 {
		res.Error += ". Nothing was moved or deleted."
	}
	return res, moved
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// nameList spells out the first trashListMax paths.
func nameList(paths []string) string {
	if len(paths) <= trashListMax {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:trashListMax], ", ") + fmt.Sprintf(" and %d more", len(paths)-trashListMax)
}
