package agent

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Conversation is one thread of requests with the model. Follow-up requests
// ("now delete the biggest one") go to the same Conversation so the model
// sees what came before; an unrelated request starts a new one
// (ConversationFor says which).
//
// Messages hold everything sent to and received from the model except the
// system prompt, which is rendered afresh for every request (the date
// changes): user requests, assistant replies with their tool calls (the
// arguments keep command, workingDirectory and purpose), and tool results.
type Conversation struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"` // from the first request
	Created  time.Time     `json:"created"`
	Updated  time.Time     `json:"updated"`
	Model    string        `json:"model"`
	Messages []api.Message `json:"messages"`
	Runs     []RunMetrics  `json:"runs"` // one per request, in order
	// Unfinished are the requests still running when the file was last
	// written, each by its own process (the app, `hark ask`): where its
	// messages so far lie in Messages, so that its next save replaces
	// them while the others' requests stay (Store.SaveRequest). A request
	// that ended stored its metrics in Runs and is no longer here.
	Unfinished []Unfinished `json:"unfinished,omitempty"`
}

// Unfinished places a running request's messages in Messages:
// Messages[Start:Start+Len].
type Unfinished struct {
	Key   string `json:"key"`
	Start int    `json:"start"`
	Len   int    `json:"len"`
}

// NewConversation starts an empty conversation with a fresh ID.
func NewConversation() *Conversation { return newConversationAt(time.Now()) }

func newConversationAt(now time.Time) *Conversation {
	return &Conversation{ID: newID(now), Created: now, Updated: now}
}

// newID is sortable by creation time and unique enough for one machine;
// it is also a safe file name.
func newID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// titleFrom shortens the first request to one line for lists.
func titleFrom(request string) string {
	t := strings.Join(strings.Fields(request), " ")
	const max = 60
	if utf8.RuneCountInString(t) <= max {
		return t
	}
	r := []rune(t)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

// Outcomes of a request, in RunMetrics.Outcome.
const (
	OutcomeCompleted = "completed"  // the model gave a final answer
	OutcomeTurnLimit = "turn-limit" // stopped after MaxTurns model turns
	OutcomeCancelled = "cancelled"  // the caller cancelled the context
	OutcomeError     = "error"      // Ollama failed; Error says how
)

// RunMetrics describe one request. They are stored with the conversation and
// summarised by `hark stats`.
type RunMetrics struct {
	Request            string    `json:"request"`
	Started            time.Time `json:"started"`
	Turns              int       `json:"turns"`     // model turns (chat calls)
	ToolCalls          int       `json:"toolCalls"` // every call the model made, valid or not
	Commands           int       `json:"commands"`  // commands actually run
	ConfirmationsAsked int       `json:"confirmationsAsked"`
	Approved           int       `json:"approved"`
	Denied             int       `json:"denied"`             // includes timeouts
	TimedOut           int       `json:"timedOut,omitempty"` // approvals nobody answered in time
	Refused            int       `json:"refused"`
	NotAsked           int       `json:"notAsked,omitempty"` // needed an approval nobody could be asked for (no terminal)
	Failed             int       `json:"failed,omitempty"`   // commands run that exited with an error
	ReadOnly           int       `json:"readOnly,omitempty"` // of Commands, those in the read-only tier
	ReadOnlyFailed     int       `json:"readOnlyFailed,omitempty"`
	Trashed            int       `json:"trashed,omitempty"`     // deletions answered with Move to Trash, all moved
	TrashFailed        int       `json:"trashFailed,omitempty"` // Move to Trash chosen, not everything moved
	// TrashedNames are the names (last path element) of what Move to
	// Trash moved, for the ending to say.
	TrashedNames []string `json:"trashedNames,omitempty"`
	// Deleted counts the plain deletions the user answered with Delete
	// that ran and succeeded, and DeletedNames what they named: gone for
	// good, which the ending says instead of "1 command ran".
	Deleted       int      `json:"deleted,omitempty"`
	DeletedNames  []string `json:"deletedNames,omitempty"`
	ModelTimeMs   int64    `json:"modelTimeMs"`   // waiting for the model
	CommandTimeMs int64    `json:"commandTimeMs"` // running commands
	TotalTimeMs   int64    `json:"totalTimeMs"`
	Success       bool     `json:"success"`
	Outcome       string   `json:"outcome"`
	Error         string   `json:"error,omitempty"`
	Compacted     bool     `json:"compacted,omitempty"`   // older turns were shortened or dropped to fit the context
	Corrections   int      `json:"corrections,omitempty"` // corrective turns after unusable replies
}

// Outcome is what Run returns: the final answer (empty unless the request
// completed) and the metrics also appended to Conversation.Runs.
type Outcome struct {
	Answer  string
	Metrics RunMetrics
}

// Deeds is what the conversation did: the first request that changed
// something (titleFrom-shortened; "" when none did) and the sum of every
// request's tally.
func (c *Conversation) Deeds() (headline string, total Tally) {
	for _, m := range c.Runs {
		t := m.Tally()
		if headline == "" && t.CouldChange() {
			headline = titleFrom(m.Request)
		}
		total.Ran += t.Ran
		total.Failed += t.Failed
		total.ReadOnly += t.ReadOnly
		total.ReadOnlyFailed += t.ReadOnlyFailed
		total.Denied += t.Denied
		total.TimedOut += t.TimedOut
		total.Refused += t.Refused
		total.NotAsked += t.NotAsked
		total.Trashed += t.Trashed
		total.TrashFailed += t.TrashFailed
		total.Deleted += t.Deleted
	}
	return headline, total
}

// Name is what every surface calls the conversation: the app's Recent
// conversations and its transcript, hark ask's "continuing …", hark
// history and hark history show. It is the first request that changed
// something, which is what a person remembers a conversation by, else the
// first request (Title), else the ID.
func (c *Conversation) Name() string {
	headline, _ := c.Deeds()
	return conversationName(headline, c.Title, c.ID)
}

// conversationName is the first of headline, title and id that says
// something; Conversation.Name and Summary.Name both choose by it.
func conversationName(headline, title, id string) string {
	for _, n := range []string{headline, title} {
		if n = strings.TrimSpace(n); n != "" {
			return n
		}
	}
	return id
}

// trashedNames records the names of what Move to Trash moved, by their
// original paths.
func (m *RunMetrics) trashedNames(paths []string) {
	for _, p := range paths {
		m.TrashedNames = append(m.TrashedNames, filepath.Base(p))
	}
}

// Tally is what Hark knows about the request's commands, for its ending.
// Records written before timeouts were counted apart show them as denials.
func (m RunMetrics) Tally() Tally {
	return Tally{Ran: m.Commands, Failed: m.Failed, ReadOnly: m.ReadOnly, ReadOnlyFailed: m.ReadOnlyFailed, Denied: max(m.Denied-m.TimedOut, 0), TimedOut: m.TimedOut, Refused: m.Refused, NotAsked: m.NotAsked,
		Trashed: m.Trashed, TrashFailed: m.TrashFailed, TrashedWhat: trashedWhat(m.TrashedNames), TrashedItems: len(m.TrashedNames),
		Deleted: m.Deleted, DeletedWhat: deletedWhat(m.DeletedNames), DeletedItems: len(m.DeletedNames)}
}
