package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hark-sh/hark/shell"
)

// CallRequest is one call of the tool that arrives from outside a
// conversation with the local model: another agent on the machine, through
// `hark mcp`. It meets the same classify → decide → confirm → run → record
// path as a call of the loop, so there is no second policy to keep in step.
type CallRequest struct {
	// Arguments is the call's JSON object: command, workingDirectory,
	// purpose, as in the tool's schema.
	Arguments json.RawMessage
	// Client names who asks ("Claude Desktop"); the approval shows it and
	// the audit log records it.
	Client string
	// Confirmer asks the user; nil means nobody can, so nothing that needs
	// a confirmation runs.
	Confirmer Confirmer
	// NoConfirm runs confirm-tier commands without asking, as the
	// confirmation switch does for spoken requests. The caller decides
	// whether it applies to its clients at all.
	NoConfirm bool
	// NoConfirmBecause is why NoConfirm is set, in the words a result
	// gives the caller ("hark exec was given --yes"); "": the user switched
	// confirmation off.
	NoConfirmBecause string
	// OnEvent sees the call's progress; nil: none.
	OnEvent func(Event)
	// PrivateDirs are folders a call may not name as its workingDirectory,
	// nor any folder inside them, symlinks resolved: credentials and
	// Hark's own settings, rules and audit log, which another program has
	// no business running commands in. A read-only command that reads
	// one of them (or a file on the list) asks first instead of running
	// by itself; nil: PrivateLocations of home for that rule, and no
	// folder rule.
	PrivateDirs []string
	// Session, when set, is shared by all calls of one caller (one hark
	// mcp session): a command the user denied in it is refused when asked
	// for again, without asking the user a second time.
	Session *Session
	// ConfirmTimeout, when positive, is how long the approval waits;
	// zero: Options.ConfirmTimeout.
	ConfirmTimeout time.Duration
}

// Session is what the calls of one outside caller share: the commands
// the user denied (or left unanswered), by command and folder, as one
// request of the voice loop remembers them. A caller that asks again for
// what the user refused is answered at once and the user is not asked
// again. The zero Session is ready; it is safe for concurrent calls.
type Session struct {
	mu     sync.Mutex
	denied map[string]bool
	// inRow counts the user's denials in a row across the calls; at
	// maxDenials the user is asked nothing more in this session.
	inRow int
}

// ErrInvalidCall wraps every problem with a CallRequest's arguments; the
// message says what to send instead.
var ErrInvalidCall = errors.New("invalid call")

// NotAsked is the error a Confirmer returns when it could not put the
// command to the user at all (the app that shows approvals is not
// running). Why becomes the result's error, worded for the caller, so the
// result says how to fix it rather than that the user said no.
//
// By names who could not ask, for the audit log's decidedBy
// (ByNoTerminal); "" is the policy.
type NotAsked struct{ Why, By string }

func (n *NotAsked) Error() string { return n.Why }

// maxArgumentBytes bounds a call's arguments: a command line longer than
// this is no command a person could approve.
const maxArgumentBytes = 256 << 10

// externalCalls numbers the calls from outside, for unique pending IDs.
var externalCalls atomic.Int64

// Handle validates one external call and answers it as the loop answers a
// model's call: forbidden is refused, safe runs at once in the read-only
// sandbox, anything else is put to req.Confirmer. The error is only for
// arguments that cannot be used (errors.Is ErrInvalidCall); the command's
// own failure, a denial or a refusal is in the Result.
//
// Unlike the local model's calls, whose folders are forgiven (relative
// ones resolve under home), an external caller must name an absolute
// folder that exists: it has its own idea of a current folder, and
// guessing another one would run the command somewhere it did not mean.
func (a *Agent) Handle(ctx context.Context, req CallRequest) (shell.Result, error) {
	ta, err := externalArgs(req.Arguments, a.o.Home, req.PrivateDirs)
	if err != nil {
		return shell.Result{}, fmt.Errorf("%w: %v", ErrInvalidCall, err)
	}
	defer ta.Pin.Close() // also on the refusals before the call is handled
	n := externalCalls.Add(1)
	id := "ext-" + sanitizeID(req.Client) + "-" + newID(a.o.now())
	onEvent := req.OnEvent
	if onEvent == nil {
		onEvent = func(Event) {}
	}
	c := &Conversation{ID: id}
	r := &run{a: a, c: c, start: a.o.now(), confirmer: req.Confirmer, onEvent: onEvent, noConfirm: req.NoConfirm,
		client: req.Client, confirmTimeout: a.o.ConfirmTimeout, external: true, private: req.PrivateDirs,
		unaskedBecause: req.NoConfirmBecause}
	if req.ConfirmTimeout > 0 {
		r.confirmTimeout = req.ConfirmTimeout
	}
	if s := req.Session; s != nil {
		s.mu.Lock()
		r.denials.seen = maps.Clone(s.denied)
		r.denials.byUser = s.inRow
		s.mu.Unlock()
		if r.denials.byUser >= maxDenials && r.confirmer != nil {
			// As a spoken request stops after so many denials: a client
			// must not wear the user down with one rewording after
			// another. What needs no approval still runs.
			r.confirmer = ConfirmerFunc(func(context.Context, Pending) (Decision, error) {
				return Decision{}, &NotAsked{Why: fmt.Sprintf("not run: the user denied %d commands from this client in a row, so Hark asks nothing more in this session; "+
					"do not try again: ask the user what they want done instead (restarting the client's Hark server starts afresh)", maxDenials)}
			})
		}
	}
	seed := r.denials.byUser
	res, _ := r.handleOne(ctx, int(n-1), ta)
	if s := req.Session; s != nil {
		s.mu.Lock()
		if len(r.denials.seen) > 0 {
			if s.denied == nil {
				s.denied = map[string]bool{}
			}
			maps.Copy(s.denied, r.denials.seen)
		}
		// Calls may overlap: each adds its own outcome to the count. Only
		// the user's yes ends a run of denials; a read-only command that
		// ran by itself does not.
		switch {
		case r.m.Approved > 0:
			s.inRow = 0
		case r.denials.byUser > seed:
			s.inRow++
		}
		s.mu.Unlock()
	}
	return res, nil
}

// externalArgs checks an external call's arguments with the model's rules,
// and then the stricter folder rules of Handle.
func externalArgs(raw json.RawMessage, home string, private []string) (toolArgs, error) {
	if len(raw) > maxArgumentBytes {
		return toolArgs{}, fmt.Errorf("the arguments are %d bytes; at most %d are accepted", len(raw), maxArgumentBytes)
	}
	var args api.ToolCallFunctionArguments
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return toolArgs{}, fmt.Errorf("the arguments must be one JSON object with a string \"command\" (%v)", err)
	}
	ta, err := validateCall(api.ToolCall{Function: api.ToolCallFunction{Name: ToolName, Arguments: args}}, home)
	if err != nil {
		return ta, err
	}
	if wd, _ := args.Get("workingDirectory"); wd != nil {
		s := strings.TrimSpace(wd.(string)) // validateCall checked it is a string
		switch {
		case s == "":
		case s != "~" && !strings.HasPrefix(s, "~/") && !filepath.IsAbs(s):
			return ta, fmt.Errorf("argument \"workingDirectory\" must be an absolute path, not %q", s)
		default:
			fi, err := os.Stat(ta.WorkingDirectory)
			switch {
			case err != nil:
				return ta, fmt.Errorf("argument \"workingDirectory\": the folder %s does not exist or cannot be read", ta.WorkingDirectory)
			case !fi.IsDir():
				return ta, fmt.Errorf("argument \"workingDirectory\": %s is not a folder", ta.WorkingDirectory)
			}
		}
	}
	// The folder is held from here on, and the check below is of the
	// folder held: one resolution for both, so a link swapped in between
	// can neither pass the check nor change where the command runs.
	pin, err := shell.PinDir(ta.WorkingDirectory)
	if err != nil {
		return ta, fmt.Errorf("argument \"workingDirectory\": %v", err)
	}
	for _, d := range []string{ta.WorkingDirectory, pin.Path} {
		if p := privateDir(d, private); p != "" {
			pin.Close()
			return ta, fmt.Errorf("argument \"workingDirectory\": %s is inside %s, which holds credentials or Hark's own settings; commands from other programs do not run there", ta.WorkingDirectory, p)
		}
	}
	ta.Pin = pin
	return ta, nil
}

// privateDir is the folder of private that holds dir (both with symlinks
// resolved, so that a link elsewhere does not lead in), or "". Case is
// ignored: macOS file systems ignore it by default, so ~/.SSH there is
// ~/.ssh; elsewhere such a name is only kept out too.
func privateDir(dir string, private []string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	for _, p := range private {
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			rp = filepath.Clean(p)
		}
		rp = strings.ToLower(rp)
		for _, d := range []string{filepath.Clean(dir), real} {
			if d = strings.ToLower(d); d == rp || strings.HasPrefix(d, rp+string(filepath.Separator)) {
				return p
			}
		}
	}
	return ""
}

// sanitizeID keeps an ID to letters, digits and dashes, whatever a client
// calls itself.
func sanitizeID(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 24 {
			break
		}
	}
	if out := strings.Trim(b.String(), "-"); out != "" {
		return out
	}
	return "client"
}

// ToolParameters is the JSON Schema of the tool's arguments, the one the
// local model is given, for other callers to publish (hark mcp).
func ToolParameters() json.RawMessage {
	b, err := json.Marshal(toolSchema().Function.Parameters)
	if err != nil {
		panic("agent: the tool schema does not marshal: " + err.Error()) // a literal above; cannot happen at run time
	}
	return b
}
