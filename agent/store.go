package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// DefaultKeep is how many conversations the history keeps.
const DefaultKeep = 100

// Store keeps conversations as one JSON file each in a folder. Every write
// is atomic (temp file, fsync, rename), so a crash leaves either the old or
// the new file; only the newest Keep conversations are kept.
type Store struct {
	Dir  string
	Keep int // 0: DefaultKeep
	// Warn reports a corrupt file that was moved aside; nil prints nothing.
	Warn func(msg string)

	mu      sync.Mutex
	fileOps Files
	// write replaces a file atomically; tests inject faults here.
	write func(path string, data []byte, perm os.FileMode) error
}

// Files are the file operations a Store needs. The caller injects them
// (cmd/hark passes app/settings' atomic writer) so the agent does not
// depend on the app that uses it.
type Files struct {
	// WriteAtomic replaces path with data so that a crash leaves the old
	// file or the new one, never a torn one.
	WriteAtomic func(path string, data []byte, perm os.FileMode) error
	// MoveAside renames a corrupt file out of the way and returns its new
	// name, so it is kept for the user rather than lost.
	MoveAside func(path string) (string, error)
}

// NewStore returns a Store for dir (settings.Paths.History) using files.
func NewStore(dir string, files Files) *Store {
	return &Store{Dir: dir, fileOps: files, write: files.WriteAtomic}
}

// Summary is a conversation as listed, without its messages.
type Summary struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Model    string    `json:"model"`
	Messages int       `json:"messages"`
	Requests int       `json:"requests"`
	// Last is how the latest request went; nil before the first one.
	Last *RunMetrics `json:"last,omitempty"`
	// Headline is the first request that changed something (moved to the
	// Trash, or ran a command outside the read-only tier); "" when none
	// did. Total is what all its requests' commands came to.
	Headline string `json:"headline,omitempty"`
	Total    Tally  `json:"total"`
}

// Name is the conversation's name, as Conversation.Name gives it.
func (s Summary) Name() string { return conversationName(s.Headline, s.Title, s.ID) }

// ErrNoConversation is returned by Load and Latest when there is none.
var ErrNoConversation = errors.New("no such conversation")

func (s *Store) path(id string) string { return filepath.Join(s.Dir, id+".json") }

func validID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\`) && !strings.HasPrefix(id, ".")
}

// lock orders the writers of the history: those of this Store by its
// mutex, those of other processes (the app, hark ask, hark mcp) by an
// advisory lock on a file beside the folder (history.lock beside
// history/), so that the folder holds only conversations.
func (s *Store) lock() (unlock func()) {
	s.mu.Lock()
	dir := filepath.Clean(s.Dir)
	if s.Dir == "" || os.MkdirAll(filepath.Dir(dir), 0o700) != nil {
		return s.mu.Unlock // the write that follows says what is wrong
	}
	release := lockPath(dir + ".lock")
	return func() { release(); s.mu.Unlock() }
}

// Save writes c as it is, replacing what is stored, and then drops the
// oldest conversations beyond Keep. A request of the agent saves with
// SaveRequest instead, which keeps what other processes added.
func (s *Store) Save(c *Conversation) error {
	if !validID(c.ID) {
		return fmt.Errorf("history: conversation ID %q cannot be a file name", c.ID)
	}
	unlock := s.lock()
	defer unlock()
	return s.writeLocked(c)
}

// maxUnfinished bounds Conversation.Unfinished: a request whose process
// died never ends, and its entry (the least recently saved) is dropped
// once this many are open, its messages left where they are.
const maxUnfinished = 16

// SaveRequest stores one request of c: its messages, c.Messages[from:],
// and when done its metrics (the last of c.Runs). It adds them to the
// conversation as stored, read afresh under the lock, so that two
// processes continuing the same conversation (the app and hark ask) both
// keep every request: key names the request, and its next save replaces
// what this one stored. A request still running stays after the finished
// ones; one that ends is placed before every request still running, so
// requests and their metrics keep one order. Once done, c is the stored
// conversation, the other processes' requests included.
func (s *Store) SaveRequest(c *Conversation, key string, from int, done bool) error {
	if !validID(c.ID) {
		return fmt.Errorf("history: conversation ID %q cannot be a file name", c.ID)
	}
	from = min(max(from, 0), len(c.Messages))
	var run []RunMetrics
	runs := c.Runs
	if done && len(runs) > 0 {
		run, runs = runs[len(runs)-1:], runs[:len(runs)-1]
	}
	unlock := s.lock()
	defer unlock()
	stored, err := s.Load(c.ID)
	switch {
	case errors.Is(err, ErrNoConversation):
		// Not stored yet (or cleared, or unreadable and moved aside):
		// what this process holds from before its request is all there is.
		stored = &Conversation{ID: c.ID, Title: c.Title, Created: c.Created,
			Messages: slices.Clone(c.Messages[:from]), Runs: slices.Clone(runs)}
	case err != nil:
		return err
	}
	stored.addRequest(key, c.Messages[from:], run, done)
	stored.Updated, stored.Model = c.Updated, c.Model
	if stored.Title == "" {
		stored.Title = c.Title
	}
	if err := s.writeLocked(stored); err != nil {
		return err
	}
	if done {
		c.Title, c.Created, c.Messages, c.Runs, c.Unfinished = stored.Title, stored.Created, stored.Messages, stored.Runs, stored.Unfinished
	}
	return nil
}

// addRequest replaces what request key stored before with part, and when
// done appends its metrics (run).
func (c *Conversation) addRequest(key string, part []api.Message, run []RunMetrics, done bool) {
	var open []Unfinished
	for _, u := range c.Unfinished {
		if u.Start >= 0 && u.Len >= 0 && u.Start+u.Len <= len(c.Messages) {
			open = append(open, u) // anything else names no place in this file
		}
	}
	if i := slices.IndexFunc(open, func(u Unfinished) bool { return u.Key == key }); i >= 0 {
		u := open[i]
		open = slices.Delete(open, i, i+1)
		c.Messages = slices.Delete(c.Messages, u.Start, u.Start+u.Len)
		for j := range open {
			if open[j].Start > u.Start {
				open[j].Start -= u.Len
			}
		}
	}
	at := len(c.Messages)
	if done {
		for _, u := range open {
			at = min(at, u.Start)
		}
	}
	c.Messages = slices.Insert(c.Messages, at, part...)
	for j := range open {
		if open[j].Start >= at {
			open[j].Start += len(part)
		}
	}
	if done {
		c.Runs = append(c.Runs, run...)
	} else {
		open = append(open, Unfinished{Key: key, Start: at, Len: len(part)})
	}
	if len(open) > maxUnfinished {
		open = open[len(open)-maxUnfinished:]
	}
	c.Unfinished = open
}

// Refresh brings c up to date with its stored copy when that is newer:
// the requests another process (hark ask beside the app) added to the
// same conversation since c was read or saved here. It reports whether c
// changed.
func (s *Store) Refresh(c *Conversation) bool {
	if !validID(c.ID) {
		return false
	}
	stored, err := s.Load(c.ID)
	if err != nil || !stored.Updated.After(c.Updated) {
		return false
	}
	c.Title, c.Created, c.Updated = stored.Title, stored.Created, stored.Updated
	c.Messages, c.Runs, c.Unfinished = stored.Messages, stored.Runs, stored.Unfinished
	return true
}

// writeLocked writes c; the caller holds the lock.
func (s *Store) writeLocked(c *Conversation) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	write := s.write
	if write == nil {
		return fmt.Errorf("history: no file writer configured for %s", s.Dir)
	}
	if err := write(s.path(c.ID), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("history: saving conversation %s in %s: %w (check the folder is writable)", c.ID, s.Dir, err)
	}
	return s.prune()
}

// files lists conversation files, newest first by modification time (every
// save rewrites the file, so this is "last updated").
func (s *Store) files() ([]fs.FileInfo, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var infos []fs.FileInfo
	for _, e := range entries {
		n := e.Name()
		// Leftover temp files from an interrupted write start with a dot.
		if e.IsDir() || strings.HasPrefix(n, ".") || filepath.Ext(n) != ".json" {
			continue
		}
		if info, err := e.Info(); err == nil {
			infos = append(infos, info)
		}
	}
	sort.Slice(infos, func(i, j int) bool {
		if !infos[i].ModTime().Equal(infos[j].ModTime()) {
			return infos[i].ModTime().After(infos[j].ModTime())
		}
		return infos[i].Name() > infos[j].Name()
	})
	return infos, nil
}

func (s *Store) prune() error {
	keep := s.Keep
	if keep <= 0 {
		keep = DefaultKeep
	}
	infos, err := s.files()
	if err != nil {
		return err
	}
	for _, info := range infos[min(keep, len(infos)):] {
		if err := os.Remove(filepath.Join(s.Dir, info.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("history: removing old conversation: %w", err)
		}
	}
	return nil
}

// Load reads one conversation. A file that is not valid JSON is moved aside
// (the user can still recover it) and reported through Warn.
func (s *Store) Load(id string) (*Conversation, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q (see `hark history list`)", ErrNoConversation, id)
	}
	p := s.path(id)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %q (see `hark history list`)", ErrNoConversation, id)
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var c Conversation
	if err := json.Unmarshal(data, &c); err != nil || c.ID == "" {
		s.moveAside(p, err)
		return nil, fmt.Errorf("%w: %q was unreadable and has been moved aside", ErrNoConversation, id)
	}
	return &c, nil
}

func (s *Store) moveAside(p string, cause error) {
	if cause == nil {
		cause = errors.New("no conversation ID")
	}
	aside, err := "", errors.New("no way to move files aside configured")
	if s.fileOps.MoveAside != nil {
		aside, err = s.fileOps.MoveAside(p)
	}
	if s.Warn == nil {
		return
	}
	if err != nil {
		s.Warn(fmt.Sprintf("history file %s is corrupt (%v) and could not be moved aside: %v", p, cause, err))
		return
	}
	s.Warn(fmt.Sprintf("history file %s was corrupt (%v); moved it to %s", p, cause, aside))
}

// List returns summaries, newest first. Corrupt files are moved aside with
// a warning and left out.
func (s *Store) List() ([]Summary, error) {
	infos, err := s.files()
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(infos))
	for _, info := range infos {
		c, err := s.Load(strings.TrimSuffix(info.Name(), ".json"))
		if err != nil {
			continue
		}
		sum := Summary{ID: c.ID, Title: c.Title, Created: c.Created, Updated: c.Updated,
			Model: c.Model, Messages: len(c.Messages), Requests: len(c.Runs)}
		if n := len(c.Runs); n > 0 {
			sum.Last = &c.Runs[n-1]
		}
		sum.Headline, sum.Total = c.Deeds()
		out = append(out, sum)
	}
	return out, nil
}

// Latest returns the most recently updated readable conversation.
func (s *Store) Latest() (*Conversation, error) {
	infos, err := s.files()
	if err != nil {
		return nil, err
	}
	for _, info := range infos {
		if c, err := s.Load(strings.TrimSuffix(info.Name(), ".json")); err == nil {
			return c, nil
		}
	}
	return nil, ErrNoConversation
}

// All returns every readable conversation, newest first (for stats).
func (s *Store) All() ([]*Conversation, error) {
	infos, err := s.files()
	if err != nil {
		return nil, err
	}
	var out []*Conversation
	for _, info := range infos {
		if c, err := s.Load(strings.TrimSuffix(info.Name(), ".json")); err == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// Clear deletes every conversation and returns how many there were.
func (s *Store) Clear() (int, error) {
	unlock := s.lock()
	defer unlock()
	infos, err := s.files()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, info := range infos {
		if err := os.Remove(filepath.Join(s.Dir, info.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("history: %w", err)
		}
		n++
	}
	return n, nil
}
