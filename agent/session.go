package agent

import (
	"context"
	"sync"
)

// Session holds the current conversation for a long-running caller such as
// the menu-bar app: each Run continues it, until NewConversation starts
// afresh. Requests run one at a time; a second Run waits for the first.
type Session struct {
	a    *Agent
	runs sync.Mutex // one request at a time
	mu   sync.Mutex // guards conv
	conv *Conversation
}

// NewSession starts a session that continues c, or a new conversation when
// c is nil.
func NewSession(a *Agent, c *Conversation) *Session { return &Session{a: a, conv: c} }

// Run sends request as the next message of the current conversation.
func (s *Session) Run(ctx context.Context, request string, ro RequestOptions) (Outcome, error) {
	s.runs.Lock()
	defer s.runs.Unlock()
	s.mu.Lock()
	if s.conv == nil {
		s.conv = NewConversation()
	}
	c := s.conv
	s.mu.Unlock()
	return s.a.RunWith(ctx, c, request, ro)
}

// NewConversation makes the next Run start a new conversation. A request
// already running finishes in the old one.
func (s *Session) NewConversation() {
	s.mu.Lock()
	s.conv = nil
	s.mu.Unlock()
}

// ConversationID is the current conversation's ID, or "" before the first
// request of a new one.
func (s *Session) ConversationID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conv == nil {
		return ""
	}
	return s.conv.ID
}
