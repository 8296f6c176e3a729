package policy

// Tier is the policy's verdict on a command.
type Tier string

const (
	// Safe commands are provably read-only and run without asking.
	Safe Tier = "safe"
	// Confirm commands may change the machine and run only after the user agrees.
	Confirm Tier = "confirm"
	// Forbidden commands are never run and nobody is asked.
	Forbidden Tier = "forbidden"
)

// Reason explains one offending part of a command.
type Reason struct {
	Command string `json:"command"` // the part of the command the reason is about, e.g. "rm -rf build"
	Why     string `json:"why"`     // human text, e.g. "rm: deletes files"
}

// Verdict is the policy's classification of a whole command line.
type Verdict struct {
	Command string   `json:"command"`
	Tier    Tier     `json:"tier"`
	Reasons []Reason `json:"reasons"`
}
