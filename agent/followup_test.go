package agent

import (
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// afterRequest is what the agent leaves in c once request has ended at
// at with answer: the request and the answer in Messages, its metrics in
// Runs, and Updated.
func afterRequest(c *Conversation, request, answer string, at time.Time) {
	c.Messages = append(c.Messages, api.Message{Role: "user", Content: request})
	if answer != "" {
		c.Messages = append(c.Messages, api.Message{Role: "assistant", Content: answer})
	}
	c.Runs = append(c.Runs, RunMetrics{Request: request, Started: at})
	c.Updated = at
}

// TestWalkSplitsIntoConversations replays the eight requests of walk 6's
// session (ux-walk-6/walk/history-show.txt) at their pace, each request
// choosing its conversation as the app and hark ask do, and checks the
// split: unrelated requests start a conversation of their own, and a
// retry of the request before (after an error, a timeout, a denial)
// stays with it.
func TestWalkSplitsIntoConversations(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 6, 16, 51, 57, 0, time.Local)
	steps := []struct {
		at      time.Duration // since the first request
		request string
		answer  string
		cont    bool
	}{
		{0, "how much disk space is left", "", false}, // ended in an error
		{40 * time.Second, "how much disk space is left", "You have 77 GB free on your main disk.", true},
		{75 * time.Second, "make a release notes folder in my webapp project", "Created release_notes_v2.", false}, // timed out
		{2*time.Minute + 50*time.Second, "make a release notes folder in my webapp project", "Created release_notes_v2 in your webapp project.", true},
		{3*time.Minute + 20*time.Second, "delete the old builds in my Downloads", "The old_builds folder is no longer in your Downloads.", false}, // denied
		{4 * time.Minute, "tidy up my project logs", "Tidied up.", false},
		// The same words as two requests ago, not as the request before:
		// nothing says it belongs to the deletion rather than the logs.
		{4*time.Minute + 40*time.Second, "delete the old builds in my Downloads", "The old_builds folder is no longer in your Downloads.", false},
		{5*time.Minute + 50*time.Second, "free up some space", "Understood — I left the video alone.", false},
	}
	var prev *Conversation
	convs := 0
	for i, s := range steps {
		now := start.Add(s.at)
		c, continued := ConversationFor(prev, s.request, now)
		if continued != s.cont {
			t.Errorf("request %d %q: continued=%v, want %v", i+1, s.request, continued, s.cont)
		}
		if continued != (c == prev) {
			t.Errorf("request %d %q: continued=%v but the conversation is %p after %p", i+1, s.request, continued, c, prev)
		}
		if !continued {
			convs++
			if c.Created != now || c.Updated != now || len(c.Messages) != 0 {
				t.Errorf("request %d: the new conversation %+v is not fresh at %v", i+1, c, now)
			}
		}
		// The request takes a little while; Updated is when it ended.
		afterRequest(c, s.request, s.answer, now.Add(20*time.Second))
		prev = c
	}
	if convs != 6 {
		t.Errorf("%d conversations, want 6", convs)
	}
}

// TestFollowsUp is the rule itself: within FollowUpWindow of the last
// update, a request continues the conversation when it refers back to it,
// repeats its last request, or answers the model's question.
func TestFollowsUp(t *testing.T) {
	t.Parallel()
	last := time.Date(2026, 12, 6, 16, 55, 0, 0, time.UTC)
	conv := func(request, answer string) *Conversation {
		c := &Conversation{ID: "c", Created: last.Add(-time.Minute)}
		afterRequest(c, request, answer, last)
		return c
	}
	logs := conv("list the logs in my webapp project", "There are 4 log files in ~/Projects/webapp/logs.")
	asked := conv("delete the old builds", "There are old_builds and old_builds_2. Which one should I delete?")
	asked2 := conv("delete the old builds", "Which one should I delete — old_builds or old_builds_2? **")
	cases := []struct {
		name    string
		c       *Conversation
		request string
		after   time.Duration
		want    bool
	}{
		{"refers to them", logs, "and delete them too", time.Minute, true},
		{"does it again", logs, "do it again", time.Minute, true},
		{"what about", logs, "What about the api project?", time.Minute, true},
		{"how about", logs, "how about the api one", time.Minute, true},
		{"those", logs, "move those to my Backups", time.Minute, true},
		{"there", logs, "what else is in there", time.Minute, true},
		{"instead", logs, "archive the logs instead", time.Minute, true},
		{"the rest", logs, "show me the rest", time.Minute, true},
		{"the other", logs, "list the other project's logs", time.Minute, true},
		{"undo", logs, "undo", time.Minute, true},
		{"why", logs, "why?", time.Minute, true},
		{"also", logs, "list the api logs also", time.Minute, true},
		{"same", logs, "the same for api", time.Minute, true},
		{"starts with and", logs, "And the api project.", time.Minute, true},
		{"starts with now", logs, "Now, zip the biggest", time.Minute, true},
		{"starts with then", logs, "then email me a summary", time.Minute, true},
		{"contraction", logs, "what's that one", time.Minute, true},
		{"repeats the request", logs, "list the logs in my webapp project", time.Minute, true},
		{"repeats it as heard", logs, "List the logs in my web app project.", time.Minute, true},
		{"answers the question", asked, "old_builds_2 please", 2 * time.Minute, true},
		{"answers a question with markup after it", asked2, "old_builds", 2 * time.Minute, true},
		{"unrelated", logs, "how much disk space is left", time.Minute, false},
		{"unrelated, soon after", logs, "make a release notes folder", time.Second, false},
		{"and inside a request", logs, "find photos of cats and dogs", time.Minute, false},
		{"now inside a request", logs, "what is playing right now", time.Minute, false},
		{"a word that only contains a cue", logs, "list itinerary files in Documents", time.Minute, false},
		{"is there", logs, "is there any space left on the disk", time.Minute, false},
		{"are there", logs, "are there any large files in Downloads", time.Minute, false},
		{"that as a relative", logs, "find files that are older than a week", time.Minute, false},
		{"that as a relative, has", logs, "list the folders that have no files", time.Minute, false},
		{"that as a pointer", logs, "delete that", time.Minute, true},
		{"that one is", logs, "that one is too big, zip it", time.Minute, true},
		{"move them there", logs, "copy the report there", time.Minute, true},
		{"a follow-up at the window", logs, "and delete them too", FollowUpWindow, false},
		{"a follow-up past the window", logs, "and delete them too", FollowUpWindow + time.Minute, false},
		{"a retry past the window", logs, "list the logs in my webapp project", 20 * time.Minute, false},
		{"an answer past the window", asked, "old_builds_2", time.Hour, false},
		{"no conversation", nil, "and delete them too", time.Minute, false},
		{"an empty conversation", &Conversation{ID: "e", Created: last, Updated: last}, "and delete them too", time.Minute, false},
		{"an empty request", logs, "  ", time.Minute, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := FollowsUp(c.c, c.request, last.Add(c.after)); got != c.want {
				t.Errorf("FollowsUp(%q, %v after) = %v, want %v", c.request, c.after, got, c.want)
			}
		})
	}
}

// A request that ended with a tool call unanswered by an answer (an error
// after the command ran) has no question to answer: the last message is
// the tool's.
func TestFollowsUpNeedsTheAnswerLast(t *testing.T) {
	t.Parallel()
	last := time.Date(2026, 12, 6, 16, 55, 0, 0, time.UTC)
	c := &Conversation{ID: "c", Updated: last,
		Messages: []api.Message{
			{Role: "user", Content: "delete the old builds"},
			{Role: "assistant", Content: "Which one?"},
			{Role: "user", Content: "old_builds"},
			{Role: "tool", Content: `{"output":"done?"}`},
		},
		Runs: []RunMetrics{{Request: "delete the old builds"}, {Request: "old_builds"}}}
	if FollowsUp(c, "thanks a lot", last.Add(time.Minute)) {
		t.Error("a question two requests back still counts as the last answer")
	}
}
