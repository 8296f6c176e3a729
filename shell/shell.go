// Package shell decides whether a shell command may run and runs it carefully.
//
// Policy classifies a command on its bash parse tree into one of three tiers
// (safe, confirm, forbidden) with a human reason for every offending part.
// Runner executes a command in its own process group with a timeout, bounded
// output capture and, for the safe tier, an OS sandbox, and reports a Result
// that always marshals to valid JSON.
package shell

import (
	"bytes"
	"encoding/json"

	"github.com/hark-sh/hark/shell/scope"
)

// SandboxMode says how the Runner should confine a command.
type SandboxMode string

const (
	// SandboxAuto confines a safe-tier command to the read-only sandbox
	// and any other to the scope it was approved with (Request.Scope; the
	// agent gives every call one). A Request without a scope that is not
	// safe runs unconfined, as only tests and "Run without limits" ask.
	SandboxAuto SandboxMode = "auto"
	// SandboxReadOnly always applies the read-only, no-network sandbox.
	SandboxReadOnly SandboxMode = "read-only"
	// SandboxOff never confines: "Run without limits".
	SandboxOff SandboxMode = "off"
)

// Values of Result.Sandbox.
const (
	SandboxApplied     = "read-only"   // the OS sandbox confined the command
	SandboxScoped      = "scoped"      // the OS sandbox held the command to its approved scope (Result.Scope)
	SandboxNotApplied  = "off"         // no sandbox was requested
	SandboxUnavailable = "unavailable" // requested, but the OS offers none; the command ran anyway
)

// Result is what running (or refusing to run) a command produced. It is the
// tool result sent back to the model, so it must always marshal to valid JSON.
type Result struct {
	Success          bool     `json:"success"`
	Command          string   `json:"command"`
	WorkingDirectory string   `json:"workingDirectory"`
	Purpose          string   `json:"purpose"`
	Tier             Tier     `json:"tier"`
	Reasons          []Reason `json:"reasons"`
	Executed         bool     `json:"executed"`
	ExitCode         int      `json:"exitCode"`
	Output           string   `json:"output"` // captured stdout, cleaned and capped
	Error            string   `json:"error"`  // captured stderr, or why Hark did not run the command
	TimedOut         bool     `json:"timedOut"`
	Truncated        bool     `json:"truncated"`
	ExecutionTimeMs  int64    `json:"executionTimeMs"`
	Sandbox          string   `json:"sandbox"`
	// Rule is the user's rule that decided, when one did: the model learns
	// that a rule, not a person, allowed, asked or refused.
	Rule string `json:"rule,omitempty"`
	// Scope is what the kernel held a scoped run to.
	Scope *scope.Scope `json:"scope,omitempty"`
}

// JSON encodes the result. Strings are already valid UTF-8 after capture, and
// encoding/json replaces anything invalid, so this cannot produce bad JSON.
// HTML escaping is off so that && and > in commands stay readable.
func (r Result) JSON() []byte {
	if r.Reasons == nil {
		r.Reasons = []Reason{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // unreachable for this type; keep the contract anyway
		b, _ := json.Marshal(map[string]any{"success": false, "error": err.Error()})
		return b
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
