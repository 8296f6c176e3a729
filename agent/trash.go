package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/trash"
)

// trashListMax is how many trashed names a result spells out.
const trashListMax = 10

// TrashInstead moves a plain deletion's targets to the Trash instead of
// running it: what the agent does when the user answers Move to Trash, and
// what `hark exec` offers at its prompt.
type TrashInstead struct {
	Bin        *trash.Bin
	Classifier Classifier // classifies find's listing, which must be read-only
	Executor   Executor   // runs that listing in the read-only sandbox
	Home       string
	now        func() time.Time
}

// Offered says whether a confirm-tier command in wd may be answered with
// Move to Trash: a Trash is configured and the command is a plain deletion
// under home.
func (t TrashInstead) Offered(command, wd string, v shell.Verdict) bool {
	if t.Bin == nil || v.Tier != shell.Confirm {
		return false
	}
	_, err := trash.PlanFor(command, wd, t.Home)
	return err == nil
}

// Move does what the user chose instead of the command: it works out the
// targets again (the folder may have changed while the user decided), lists
// find's matches with the same find in the read-only sandbox, and moves what
// the deletion would have removed to the Trash. The command itself never
// runs. It returns the result for the model and the original paths moved,
// for the audit log.
func (t TrashInstead) Move(ctx context.Context, command, wd, purpose string) (shell.Result, []string) {
	res, moved, _ := t.move(ctx, command, wd, purpose, "The user chose Move to Trash")
	return res, moved
}

func (r *run) trashInstead() TrashInstead {
	o := r.a.o
	return TrashInstead{Bin: o.Trash, Classifier: o.Classifier, Executor: o.Executor, Home: o.Home, now: o.now}
}

func (r *run) trashOffered(ta toolArgs, v shell.Verdict) bool {
	return r.trashInstead().Offered(ta.Command, ta.WorkingDirectory, v)
}

func (r *run) moveToTrash(ctx context.Context, ta toolArgs) (shell.Result, []string) {
	return r.moveToTrashAs(ctx, ta, "The user chose Move to Trash")
}

func (r *run) moveToTrashAs(ctx context.Context, ta toolArgs, who string) (shell.Result, []string) {
	if why := ta.Pin.Changed(); why != "" {
		return shell.Result{Command: ta.Command, WorkingDirectory: ta.WorkingDirectory, Purpose: ta.Purpose, ExitCode: -1, Sandbox: shell.SandboxNotApplied,
			Error: who + ", but nothing was moved or deleted: the folder " + ta.WorkingDirectory + " changed after the command was approved (" + why + "). Nothing ran; ask for the command again to have it checked in the folder as it is now."}, nil
	}
	res, moved, listing := r.trashInstead().move(ctx, ta.Command, ta.WorkingDirectory, ta.Purpose, who)
	r.m.CommandTimeMs += listing.Milliseconds()
	return res, moved
}

// trashUnasked handles a plain deletion under home that runs without a
// question (decision is DecisionAllowed or DecisionUnconfirmedRun): its
// targets go to the Trash, never away for good, and the result says why,
// so the model and the user read "moved to the Trash", not "ran".
func (r *run) trashUnasked(ctx context.Context, ta toolArgs, decision string, f *callFate) {
	because := r.unaskedBecause
	if because == "" {
		because = "Confirmation is off"
	}
	why := because + ", so Hark did not ask; it moves deletions it runs without asking to the Trash"
	if decision == DecisionAllowed {
		why = "One of the user's rules allows this deletion without asking; Hark moves such deletions to the Trash"
	}
	f.res, f.trashed = r.moveToTrashAs(ctx, ta, why)
	if f.res.Success {
		r.m.Trashed++
		r.m.trashedNames(f.trashed)
		if f.res.Output != "" {
			f.res.Output = why + ". " + f.res.Output
		}
	} else {
		r.m.TrashFailed++
	}
}

// countDeleted counts a plain deletion under home that ran because the
// user approved it (Delete, where Move to Trash was the other answer) and
// succeeded: its targets are gone for good, and the ending says so by name
// instead of "1 command ran". A find's matches are not listed, so it is
// counted without names.
func (r *run) countDeleted(ta toolArgs, v shell.Verdict, f *callFate) {
	if !f.runIt || f.decision != DecisionApproved || v.Tier != shell.Confirm || !f.res.Executed || f.res.ExitCode != 0 {
		return
	}
	plan, err := trash.PlanFor(ta.Command, ta.WorkingDirectory, r.a.o.Home)
	if err != nil {
		return
	}
	r.m.Deleted++
	for _, p := range plan.Paths {
		r.m.DeletedNames = append(r.m.DeletedNames, filepath.Base(p))
	}
}

// move is Move, also returning how long find's listing ran.
// who starts the sentence of a failure ("The user chose Move to Trash"),
// since a rule's deletion goes this way too.
func (t TrashInstead) move(ctx context.Context, command, wd, purpose, who string) (res shell.Result, moved []string, listing time.Duration) {
	now := t.now
	if now == nil {
		now = time.Now
	}
	res = shell.Result{Command: command, WorkingDirectory: wd, Purpose: purpose, ExitCode: -1, Sandbox: shell.SandboxNotApplied}
	fail := func(why string) (shell.Result, []string, time.Duration) {
		res.Error = who + ", but nothing was moved or deleted: " + why + ". Tell the user; do not delete the files another way."
		return res, nil, listing
	}
	if t.Bin == nil {
		return fail("no Trash is set up")
	}
	plan, err := trash.PlanFor(command, wd, t.Home)
	if err != nil {
		return fail("Hark could not work out the targets again (" + err.Error() + ")")
	}
	paths := plan.Paths
	if plan.Find != "" {
		cwd := wd
		if filepath.Clean(cwd) == filepath.Clean(t.Home) {
			cwd = "~"
		}
		fv := t.Classifier.ClassifyIn(plan.Find, cwd)
		if fv.Tier != shell.Safe {
			return fail("the listing `" + plan.Find + "` is not read-only by Hark's policy (" + reasonText(fv.Reasons) + ")")
		}
		start := now()
		lr := t.Executor.Run(ctx, shell.Request{Command: plan.Find, WorkingDirectory: wd,
			Purpose: PurposeChecking, Verdict: fv, Sandbox: shell.SandboxReadOnly})
		listing = now().Sub(start)
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
		return res, nil, listing
	}
	var rec trash.Record
	if len(ok) > 0 {
		rec, err = t.Bin.Trash(ctx, command, ok)
		if err != nil {
			problems = append(problems, err)
		}
	}
	for _, it := range rec.Items {
		moved = append(moved, it.Original)
	}
	if len(moved) > 0 {
		res.Output = fmt.Sprintf("Moved %s to the Trash instead of deleting: %s. The command itself did not run. "+
			"The user can put them back with Undo last trash in Hark's menu or `hark undo`.", items(len(moved)), nameList(moved))
	}
	var plain []string
	why := ""
	for _, it := range rec.Items {
		if it.NoPutBack != "" {
			plain, why = append(plain, it.Original), it.NoPutBack
		}
	}
	if len(plain) > 0 {
		res.Output += fmt.Sprintf(" %s moved into the Trash folder directly, not through Finder (%s), so Finder's Put Back "+
			"does not know where they came from; Undo last trash and `hark undo` still do: %s.", items(len(plain)), why, nameList(plain))
	}
	if len(problems) == 0 {
		res.Success, res.ExitCode = true, 0
		return res, moved, listing
	}
	res.ExitCode = 1
	res.Error = "Not moved to the Trash: " + errors.Join(problems...).Error()
	if len(moved) == 0 {
		res.Error += ". Nothing was moved or deleted."
	}
	return res, moved, listing
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
