package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
	"github.com/hark-sh/hark/shell/scope"
)

// Audit decisions: what happened to a proposed command.
const (
	DecisionAuto           = "auto"            // safe tier, ran without asking
	DecisionApproved       = "approved"        // the user approved it
	DecisionAllowed        = "allowed"         // confirm tier run without asking: a rule of the user's allows it
	DecisionDenied         = "denied"          // the user denied it
	DecisionNotAsked       = "not-asked"       // nobody could be asked (no terminal, Hark not running); not run
	DecisionRefused        = "refused"         // forbidden tier, never run
	DecisionUnconfirmedRun = "unconfirmed-run" // confirm tier run without asking: confirmation is off
	DecisionTimeout        = "timeout"         // nobody answered in time; not run
	DecisionCancelled      = "cancelled"       // the request was cancelled while waiting; not run
	DecisionTrashed        = "trashed"         // the user chose Move to Trash: Hark moved the targets, the command did not run
	DecisionWidened        = "widened"         // the run was stopped at the edge of its scope, and the user allowed what it needed, for that run
	DecisionUnlimited      = "unlimited"       // the run was stopped at the edge of its scope, and the user let it run without limits
)

// AuditEntry is one line of the audit log: one decision about one command.
type AuditEntry struct {
	Time             time.Time      `json:"time"`
	ConversationID   string         `json:"conversationId"`
	Command          string         `json:"command"`
	WorkingDirectory string         `json:"workingDirectory"`
	Purpose          string         `json:"purpose"`
	Tier             shell.Tier     `json:"tier"`
	Reasons          []shell.Reason `json:"reasons"`
	Decision         string         `json:"decision"`
	DecidedBy        string         `json:"decidedBy"`
	Executed         bool           `json:"executed"`
	ExitCode         *int           `json:"exitCode"` // null when the command did not run
	DurationMs       int64          `json:"durationMs"`
	Sandbox          string         `json:"sandbox"`
	TimedOut         bool           `json:"timedOut,omitempty"`
	// Cancelled: the command ran and was stopped because the request was
	// cancelled (its exit code is then the stop signal's, not a failure).
	Cancelled bool `json:"cancelled,omitempty"`
	// Rule is the user's rule that decided ("rule 2: always allow git
	// commit in ~/src"), or the floor that kept one from applying.
	Rule string `json:"rule,omitempty"`
	// DenyReason is what the user said when denying.
	DenyReason string `json:"denyReason,omitempty"`
	// HeardAnswer is the transcript of a spoken answer (decidedBy
	// "voice"): the words the decision was read from.
	HeardAnswer string `json:"heardAnswer,omitempty"`
	// Preview is what the approval showed the command would touch.
	Preview *preview.Preview `json:"preview,omitempty"`
	// Scope is what the kernel held the run to: the places it could
	// change, and whether it could use the network, the ssh agent or
	// signals.
	Scope *scope.Scope `json:"scope,omitempty"`
	// Trashed lists what Move to Trash moved, by original path.
	Trashed []string `json:"trashed,omitempty"`
	// Client is the program that asked over MCP ("Claude Desktop"); empty
	// for the local model's calls.
	Client string `json:"client,omitempty"`
}

// AuditLog appends entries to a JSON-lines file. Each entry is written with
// one write call and fsynced before Append returns, so a crash loses at most
// the entry being written and never corrupts earlier ones.
type AuditLog struct {
	Path string
	mu   sync.Mutex
}

// NewAuditLog returns a log at path (settings.Paths.Audit).
func NewAuditLog(path string) *AuditLog { return &AuditLog{Path: path} }

// Append writes e as one line.
func (l *AuditLog) Append(e AuditEntry) error {
	if e.Reasons == nil {
		e.Reasons = []shell.Reason{}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w (check that %s is writable)", err, l.Path)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	return f.Close()
}

// ReadAudit returns the entries in the log, oldest first, and how many lines
// could not be read (a torn last line after a crash, or a hand edit).
func ReadAudit(path string) (entries []AuditEntry, bad int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e AuditEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			bad++
			continue
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return entries, bad, fmt.Errorf("audit: %w", err)
	}
	return entries, bad, nil
}
