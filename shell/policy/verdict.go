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
	Command  string   `json:"command"`  // the part of the command the reason is about, e.g. "rm -rf build"
	Why      string   `json:"why"`      // human text, e.g. "rm: deletes files"
	Category Category `json:"category"` // what kind of harm, for the approval UI and the audit log
}

// Category says what kind of harm a reason is about, so that the approval
// prompt and the audit log can group and mark reasons without reading
// their text.
type Category string

// The categories. Every reason has one.
const (
	Delete    Category = "delete"    // removes files or data
	Write     Category = "write"     // creates or changes files
	Network   Category = "network"   // reaches another machine
	Code      Category = "code"      // runs other code: interpreters, command strings, hooks, variables that load code
	Privilege Category = "privilege" // escalates privileges or changes accounts and secrets
	Disk      Category = "disk"      // erases or repartitions disks
	Process   Category = "process"   // stops processes, runs in the background, fork bombs
	Package   Category = "package"   // installs or removes software
	System    Category = "system"    // changes settings, services, power, the terminal
	Parse     Category = "parse"     // the command cannot be read reliably: parse errors, hidden text, nesting
	Unknown   Category = "unknown"   // a program Hark does not know to be read-only
)

// Verdict is the policy's classification of a whole command line.
type Verdict struct {
	Command string   `json:"command"`
	Tier    Tier     `json:"tier"`
	Reasons []Reason `json:"reasons"`
}
