package agent

import (
	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

// approvalAction is what happens to a valid call before anybody is asked.
type approvalAction int

const (
	// actRefuse: the call never runs and nobody is asked; approval.Why is
	// the tool result's error, worded for the model.
	actRefuse approvalAction = iota + 1
	// actRun: the call runs at once. approval.Decision says on what
	// grounds: DecisionAuto (safe tier, the executor's read-only sandbox),
	// DecisionAllowed (a rule) or DecisionUnconfirmedRun (confirmation
	// off); the last two run as an approved command does.
	actRun
	// actAsk: a person decides, through the Confirmer.
	actAsk
)

// approval is decide's answer. Decision and By are what the audit log
// records for actRefuse and actRun; for actAsk the Confirmer's answer
// supplies them.
type approval struct {
	Action   approvalAction
	Decision string
	By       string
	Why      string
}

// decide is the single place that says whether a classified call is
// refused, run or put to the user, from the policy's verdict v, the
// rules' decision rd on it, and whether confirmation is on. It is pure so
// that the order of the checks can be pinned by a table: a forbidden tier
// beats every rule, a never rule beats everything else, an allow rule
// beats the tier, an ask rule beats both the safe tier and confirmation
// off, and confirmation off only ever skips the question for a call that
// would otherwise be asked about.
//
// deniedBefore says the user already denied this very command, in the
// same folder, earlier in the request: it is refused without asking again,
// since asking twice turns a denial into a matter of persistence. Only the
// policy's and the user's standing refusals come before it, because their
// message says more.
//
// The protected paths need no case here: rules.Store reports an allow
// rule they block as no rule at all (rd.Kind "" with rd.Floor set), so
// the call falls back to its tier like any call no rule matched.
func decide(v shell.Verdict, rd rules.Decision, confirmOn, deniedBefore bool) approval {
	switch {
	case v.Tier == shell.Forbidden:
		return approval{Action: actRefuse, Decision: DecisionRefused, By: ByPolicy,
			Why: "Refused: Hark never runs this kind of command (" + reasonText(v.Reasons) + "). Do not try another way to do the same; tell the user what to run themselves if it is really needed."}
	case rd.Kind == rules.Never:
		rule := "a never rule"
		if rd.Rule != nil {
			rule = "\"" + rd.Rule.String() + "\""
		}
		return approval{Action: actRefuse, Decision: DecisionRefused, By: ByRule,
			Why: "Refused by the user's rule " + rule + ": Hark will not run this. Do not try another way to do the same; say what you would have done."}
	case deniedBefore:
		return approval{Action: actRefuse, Decision: DecisionDenied, By: ByDenial,
			Why: "Not run: the user already denied this exact command in this request, so Hark did not ask again. Do not propose it again; say what you would have done and stop."}
	case rd.Kind == rules.Allow:
		// A confirm-tier command writes by nature, so an allowed one runs
		// as an approved one does: outside the read-only sandbox.
		return approval{Action: actRun, Decision: DecisionAllowed, By: ByRule}
	case v.Tier == shell.Safe && rd.Kind != rules.Ask:
		return approval{Action: actRun, Decision: DecisionAuto, By: ByPolicy}
	case !confirmOn && rd.Kind != rules.Ask:
		// The confirm tier and any tier we do not know: the user chose not
		// to be asked, and only an ask rule of their own overrides that.
		return approval{Action: actRun, Decision: DecisionUnconfirmedRun, By: ByPolicy}
	default: // the confirm tier, an ask rule, and any tier we do not know
		return approval{Action: actAsk}
	}
}
