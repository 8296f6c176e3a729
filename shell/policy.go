package shell

// Policy classifies shell commands into tiers. It is safe for concurrent use
// and holds no per-call state.
type Policy struct{}

// NewPolicy returns the default policy.
func NewPolicy() *Policy { return &Policy{} }

// Classify returns the verdict for command. It never runs anything and never
// looks at anything but the command text. Until the full classifier lands,
// every command needs confirmation.
func (p *Policy) Classify(command string) Verdict {
	return Verdict{Command: command, Tier: Confirm, Reasons: []Reason{{Command: command, Why: "not yet classified: needs your confirmation"}}}
}
