package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/rules"
)

// The rule decisions decide sees, as rules.Store reports them. A floor is
// an allow rule a protected path kept from applying: no kind, Floor set.
var (
	noRule    = rules.Decision{}
	allowRule = rules.Decision{Kind: rules.Allow, Number: 1, Rule: &rules.Rule{Kind: rules.Allow, Program: "git", Words: []string{"commit"}}}
	askRule   = rules.Decision{Kind: rules.Ask, Number: 2, Rule: &rules.Rule{Kind: rules.Ask, Program: "ls"}}
	neverRule = rules.Decision{Kind: rules.Never, Number: 3, Rule: &rules.Rule{Kind: rules.Never, Program: "git", Words: []string{"push"}}}
	floorHit  = rules.Decision{Floor: "~/.ssh", Why: "your rule 1 would allow it, but it touches ~/.ssh, which always asks"}
)

// unknownTier stands for a tier a newer classifier might invent.
const unknownTier shell.Tier = "mystery"

// TestDecideTable pins the order of the approval checks, one row per case
// handleOne has to tell apart.
func TestDecideTable(t *testing.T) {
	t.Parallel()
	refusedByPolicy := approval{Action: actRefuse, Decision: DecisionRefused, By: ByPolicy}
	refusedByRule := approval{Action: actRefuse, Decision: DecisionRefused, By: ByRule}
	auto := approval{Action: actRun, Decision: DecisionAuto, By: ByPolicy}
	allowed := approval{Action: actRun, Decision: DecisionAllowed, By: ByRule}
	unconfirmed := approval{Action: actRun, Decision: DecisionUnconfirmedRun, By: ByPolicy}
	ask := approval{Action: actAsk}

	for _, c := range []struct {
		name      string
		tier      shell.Tier
		rd        rules.Decision
		confirmOn bool
		want      approval
		why       string // a piece the refusal must carry
	}{
		// Forbidden is refused by the policy before any rule is read.
		{"forbidden", shell.Forbidden, noRule, true, refusedByPolicy, "never runs this kind of command"},
		{"forbidden beats always-allow", shell.Forbidden, allowRule, true, refusedByPolicy, "never runs"},
		{"forbidden beats never: the policy is named", shell.Forbidden, neverRule, true, refusedByPolicy, "never runs"},
		{"forbidden with confirmation off", shell.Forbidden, noRule, false, refusedByPolicy, "never runs"},
		{"forbidden with allow and confirmation off", shell.Forbidden, allowRule, false, refusedByPolicy, "never runs"},

		// A never rule beats everything below the forbidden tier.
		{"never on safe", shell.Safe, neverRule, true, refusedByRule, `rule "never run git push"`},
		{"never on confirm", shell.Confirm, neverRule, true, refusedByRule, "never run git push"},
		{"never with confirmation off", shell.Confirm, neverRule, false, refusedByRule, "never run git push"},
		{"never on unknown tier", unknownTier, neverRule, false, refusedByRule, "will not run this"},

		// An allow rule runs a confirm-tier call unasked.
		{"allow on confirm", shell.Confirm, allowRule, true, allowed, ""},
		{"allow with confirmation off is still the rule's", shell.Confirm, allowRule, false, allowed, ""},
		{"allow beats the safe tier's auto", shell.Safe, allowRule, true, allowed, ""},
		{"allow on unknown tier", unknownTier, allowRule, true, allowed, ""},

		// The safe tier runs at once, in the read-only sandbox.
		{"safe runs at once", shell.Safe, noRule, true, auto, ""},
		{"safe with confirmation off", shell.Safe, noRule, false, auto, ""},
		{"safe with a floor", shell.Safe, floorHit, true, auto, ""},

		// An ask rule asks, even for a safe call and with confirmation off.
		{"ask on safe", shell.Safe, askRule, true, ask, ""},
		{"ask on safe with confirmation off", shell.Safe, askRule, false, ask, ""},
		{"ask on confirm", shell.Confirm, askRule, true, ask, ""},
		{"ask on confirm with confirmation off", shell.Confirm, askRule, false, ask, ""},
		{"ask on unknown tier with confirmation off", unknownTier, askRule, false, ask, ""},

		// The confirm tier asks unless confirmation is off.
		{"confirm asks", shell.Confirm, noRule, true, ask, ""},
		{"confirm with confirmation off", shell.Confirm, noRule, false, unconfirmed, ""},
		{"unknown tier asks", unknownTier, noRule, true, ask, ""},
		{"unknown tier with confirmation off", unknownTier, noRule, false, unconfirmed, ""},
		{"empty tier asks", "", noRule, true, ask, ""},

		// A protected path blocks an allow rule: the call asks as its
		// tier does. Confirmation off is not a rule, so the floor does
		// not hold against it; that is the behaviour Options.NoConfirm
		// documents ("runs confirm-tier commands without asking").
		{"floor asks despite an allow rule", shell.Confirm, floorHit, true, ask, ""},
		{"floor with confirmation off", shell.Confirm, floorHit, false, unconfirmed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := shell.Verdict{Command: "x", Tier: c.tier, Reasons: []shell.Reason{{Command: "x", Why: "reason one"}}}
			got := decide(v, c.rd, c.confirmOn, false)
			why := got.Why
			got.Why = ""
			if got != c.want {
				t.Fatalf("decide(%s, %+v, confirmOn=%v) = %+v, want %+v", c.tier, c.rd, c.confirmOn, got, c.want)
			}
			if (c.want.Action == actRefuse) != (why != "") {
				t.Fatalf("refusal text %q for action %d", why, got.Action)
			}
			if !strings.Contains(why, c.why) {
				t.Fatalf("refusal %q does not say %q", why, c.why)
			}
			if c.want.Action == actRefuse && !strings.Contains(why, "Do not try another way") {
				t.Fatalf("refusal %q does not tell the model to stop", why)
			}
		})
	}
}

// TestDecideForbiddenNamesReasons checks that the forbidden refusal
// carries the policy's reasons, which the model relays to the user.
func TestDecideForbiddenNamesReasons(t *testing.T) {
	t.Parallel()
	v := shell.Verdict{Command: "sudo rm x", Tier: shell.Forbidden, Reasons: []shell.Reason{
		{Command: "sudo", Why: "sudo: privilege escalation"}, {Command: "rm", Why: "deletes"}}}
	if got := decide(v, noRule, true, false).Why; !strings.Contains(got, "(sudo: privilege escalation; deletes)") {
		t.Fatalf("refusal %q does not list the reasons", got)
	}
	v.Reasons = nil
	if got := decide(v, noRule, true, false).Why; !strings.Contains(got, "(forbidden by policy)") {
		t.Fatalf("refusal without reasons says %q", got)
	}
}

// TestDecideNeverWithoutRule: a never decision missing its rule (no store
// makes one, but a Decision is a plain value) is still a refusal.
func TestDecideNeverWithoutRule(t *testing.T) {
	t.Parallel()
	got := decide(shell.Verdict{Tier: shell.Safe}, rules.Decision{Kind: rules.Never}, true, false)
	if got.Action != actRefuse || got.By != ByRule || !strings.Contains(got.Why, "a never rule") {
		t.Fatalf("decide = %+v", got)
	}
}

// TestDecideInvariants sweeps every combination of the inputs for the
// promises that must hold whatever the order of the checks becomes.
func TestDecideInvariants(t *testing.T) {
	t.Parallel()
	tiers := []shell.Tier{shell.Safe, shell.Confirm, shell.Forbidden, unknownTier, ""}
	rds := []rules.Decision{noRule, allowRule, askRule, neverRule, floorHit}
	for _, tier := range tiers {
		for _, rd := range rds {
			for _, on := range []bool{true, false} {
				for _, denied := range []bool{false, true} {
					name := fmt.Sprintf("%s/%q/floor=%q/confirmOn=%v/denied=%v", tier, rd.Kind, rd.Floor, on, denied)
					got := decide(shell.Verdict{Tier: tier}, rd, on, denied)
					switch {
					// A command the user denied in this request is never run
					// nor asked about again, whatever the rules say.
					case denied && got.Action != actRefuse:
						t.Errorf("%s: a denied command gave %+v", name, got)
					case denied && tier != shell.Forbidden && rd.Kind != rules.Never && got.By != ByDenial:
						t.Errorf("%s: the refusal does not name the denial: %+v", name, got)
					case tier == shell.Forbidden && (got.Action != actRefuse || got.By != ByPolicy):
						t.Errorf("%s: forbidden gave %+v", name, got)
					case rd.Kind == rules.Never && got.Action != actRefuse:
						t.Errorf("%s: never rule gave %+v", name, got)
					case !denied && tier != shell.Forbidden && rd.Kind == rules.Ask && got.Action != actAsk:
						t.Errorf("%s: ask rule gave %+v", name, got)
					case got.Action == actRun && got.Decision == DecisionAuto && tier != shell.Safe:
						t.Errorf("%s: ran as read-only without the safe tier: %+v", name, got)
					case got.Action == actRun && got.Decision == DecisionUnconfirmedRun && on:
						t.Errorf("%s: ran unconfirmed with confirmation on: %+v", name, got)
					case got.Action == actAsk && (got.Decision != "" || got.By != ""):
						t.Errorf("%s: ask carries an audit decision: %+v", name, got)
					}
				}
			}
		}
	}
}
