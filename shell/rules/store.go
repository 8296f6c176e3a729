package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hark-sh/hark/shell/atomicfile"
	"github.com/hark-sh/hark/shell/policy"
)

// FileName is the rules file's name, beside settings.json.
const FileName = "rules.json"

// Entry is one rule of the file with its position and whether it is in
// force. A rule whose examples fail, or that cannot be read, stays in the
// file as written and is ignored until it is fixed.
type Entry struct {
	Number int // 1-based position in the file, as `hark rules remove` takes it
	Rule   Rule
	Err    error // nil: in force
	raw    json.RawMessage
}

// Decision is what the rules make of one command.
type Decision struct {
	// Kind is the rule kind that decided, or "" when no rule did and the
	// policy's tier stands. It is Ask, whatever Rule's own kind, when a
	// never or ask rule may match but what the command names is only
	// known when it runs (Why says which).
	Kind   Kind
	Rule   *Rule  // the deciding rule; nil when none
	Number int    // its position in the file
	Floor  string // the protected path that kept an allow rule from applying
	Why    string // for people and the model: which rule or policy decided, and why
}

// Label is the short record of the decision for the audit log: "rule 3:
// always allow git commit in ~/src", "floor: ~/.ssh", or "" when the
// policy alone decided.
func (d Decision) Label() string {
	switch {
	case d.Rule != nil && d.Kind != "":
		return fmt.Sprintf("rule %d: %s", d.Number, d.Rule)
	case d.Floor != "":
		return "floor: " + d.Floor
	}
	return ""
}

// Store is the rules file, read at Open and again whenever it changes on
// disk (a hand edit or `hark rules add` from another process takes effect
// at the next command). It is safe for concurrent use.
type Store struct {
	path string
	home string
	c    Classifier

	mu       sync.Mutex
	entries  []Entry
	stamp    fileStamp
	warnings []string
}

type fileStamp struct {
	mod  time.Time
	size int64
	ok   bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{mod: fi.ModTime(), size: fi.Size(), ok: true}
}

// file is the on-disk shape.
type file struct {
	Version int               `json:"version"`
	Rules   []json.RawMessage `json:"rules"`
}

// Open reads the rules at path (a missing file is no rules). home is the
// user's home folder, for ~ and the floor; c classifies the examples. A
// file that is not valid JSON is moved aside and reported by Warnings,
// never lost; a rule that cannot be read or whose examples fail is
// reported by its Entry and ignored.
func Open(path, home string, c Classifier) *Store {
	s := &Store{path: path, home: filepath.Clean(home), c: c}
	s.mu.Lock()
	s.load()
	s.mu.Unlock()
	return s
}

// Path is the rules file.
func (s *Store) Path() string { return s.path }

// Warnings are problems with the file as a whole since Open (a corrupt
// file moved aside).
func (s *Store) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return append([]string(nil), s.warnings...)
}

// Entries lists every rule of the file in order, with its problems.
func (s *Store) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return append([]Entry(nil), s.entries...)
}

func (s *Store) refresh() {
	if st := stampOf(s.path); st != s.stamp {
		s.load()
	}
}

// load reads the file; the caller holds mu.
func (s *Store) load() {
	s.entries = nil
	s.stamp = stampOf(s.path)
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		s.warnings = append(s.warnings, fmt.Sprintf("cannot read %s (%v); no rules apply until it can be read", s.path, err))
		return
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil || len(bytes.TrimSpace(data)) == 0 {
		if err == nil {
			err = errors.New("empty file")
		}
		aside := s.path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
		if rerr := os.Rename(s.path, aside); rerr != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("%s is not valid JSON (%v) and could not be moved aside (%v); no rules apply until it is fixed", s.path, err, rerr))
			return
		}
		s.stamp = stampOf(s.path)
		s.warnings = append(s.warnings, fmt.Sprintf("%s was not valid JSON (%v); it was moved to %s and no rules apply — fix it and move it back", s.path, err, aside))
		return
	}
	for i, raw := range f.Rules {
		e := Entry{Number: i + 1, raw: raw}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&e.Rule); err != nil {
			e.Err = fmt.Errorf("cannot be read: %v", err)
		} else {
			e.Err = s.check(e.Rule)
		}
		s.entries = append(s.entries, e)
	}
}

// check validates one rule and runs its examples against it alone.
func (s *Store) check(r Rule) error {
	switch r.Kind {
	case Allow, Ask, Never:
	default:
		return fmt.Errorf("kind %q is not one of allow, ask, never", r.Kind)
	}
	if r.Program == "" || strings.ContainsAny(r.Program, "/ \t") {
		return fmt.Errorf("program %q must be a plain program name such as git", r.Program)
	}
	if _, runsOthers, ok := policy.Program(r.Program); !ok {
		return fmt.Errorf("program %q is not a plain program name", r.Program)
	} else if runsOthers && r.Kind == Allow {
		return fmt.Errorf("%s runs other programs or code, so an allow rule for it would allow anything", r.Program)
	}
	for _, w := range r.Words {
		if w == "" || strings.ContainsAny(w, " \t\n") {
			return fmt.Errorf("word %q must be one non-empty word", w)
		}
	}
	if r.Folder != "" {
		if !strings.HasPrefix(r.Folder, "/") && r.Folder != "~" && !strings.HasPrefix(r.Folder, "~/") {
			return fmt.Errorf("folder %q must be absolute or start with ~/", r.Folder)
		}
		for _, seg := range strings.Split(r.Folder, "/") {
			if seg == ".." {
				return fmt.Errorf("folder %q must not contain ..", r.Folder)
			}
		}
		if r.Kind == Allow {
			if p := protectedPath(expandFolder(r.Folder, s.home), s.home); p != "" {
				return fmt.Errorf("folder %s is protected (%s always asks); choose a project folder", r.Folder, tildeFolder(p, s.home))
			}
		}
	}
	if len(r.Examples.Match) == 0 || len(r.Examples.NoMatch) == 0 {
		return errors.New("needs at least one example under examples.match and one under examples.noMatch")
	}
	wd := s.home
	if r.Folder != "" {
		wd = expandFolder(r.Folder, s.home)
	}
	for _, ex := range r.Examples.Match {
		if d := s.decide([]Entry{{Number: 1, Rule: r}}, ex, wd, s.classify(ex, wd)); d.Rule == nil || d.Kind != r.Kind {
			return fmt.Errorf("example %q should match but does not: %s", ex, d.Why)
		}
	}
	for _, ex := range r.Examples.NoMatch {
		if d := s.decide([]Entry{{Number: 1, Rule: r}}, ex, wd, s.classify(ex, wd)); d.Rule != nil && d.Kind == r.Kind {
			return fmt.Errorf("example %q should not match but does", ex)
		}
	}
	return nil
}

// classify asks the policy, naming home the way the agent does.
func (s *Store) classify(command, wd string) policy.Verdict {
	if wd == s.home {
		wd = "~"
	}
	return s.c.ClassifyIn(command, wd)
}

// Decide says which rule, if any, decides command run in wd (absolute),
// given the policy's verdict v on it. Never rules come first, then ask
// rules, then allow rules; the first of each kind in the file wins.
func (s *Store) Decide(command, wd string, v policy.Verdict) Decision {
	s.mu.Lock()
	s.refresh()
	entries := s.entries
	s.mu.Unlock()
	return s.decide(entries, command, filepath.Clean(wd), v)
}

func (s *Store) decide(entries []Entry, command, wd string, v policy.Verdict) Decision {
	if v.Tier == policy.Forbidden {
		return Decision{Why: "Hark's policy forbids it; no rule can allow it"}
	}
	p := parse(command, wd, s.home)
	rs := newResolver(s.home)
	var maybe *Decision
	for _, kind := range []Kind{Never, Ask} {
		for _, e := range entries {
			if e.Err != nil || e.Rule.Kind != kind {
				continue
			}
			for _, c := range p.reach {
				match, why := rs.matchesLoose(e.Rule, c)
				r := e.Rule
				if match {
					what := "refuses it"
					if kind == Ask {
						what = "asks before it runs"
					}
					return Decision{Kind: kind, Rule: &r, Number: e.Number, Why: fmt.Sprintf("your rule %d (%s) %s", e.Number, r, what)}
				}
				if why != "" && maybe == nil {
					maybe = &Decision{Kind: Ask, Rule: &r, Number: e.Number,
						Why: fmt.Sprintf("your rule %d (%s) may match, so Hark asks: %s", e.Number, r, why)}
				}
			}
		}
	}
	if maybe != nil {
		return *maybe
	}
	if v.Tier == policy.Safe {
		return Decision{Why: "Hark's policy found it read-only, so it runs in the sandbox without asking"}
	}
	var why string
	for _, e := range entries {
		if e.Err != nil || e.Rule.Kind != Allow || len(p.calls) == 0 || !e.Rule.matchesExact(p.calls[0]) {
			continue
		}
		r := e.Rule
		if no := allowable(p, v, s.reducedVerdict(wd)); no != "" {
			why = fmt.Sprintf("your rule %d (%s) does not apply: %s", e.Number, r, no)
			continue
		}
		c := p.calls[0]
		sps, unknown := rs.spots(c)
		if unknown != "" {
			why = fmt.Sprintf("your rule %d (%s) does not apply: Hark cannot tell what it touches (%s)", e.Number, r, unknown)
			continue
		}
		if no := s.hiddenWrites(c, wd); no != "" {
			why = fmt.Sprintf("your rule %d (%s) does not apply: %s", e.Number, r, no)
			continue
		}
		if r.Folder != "" {
			dir := rs.real(expandFolder(r.Folder, s.home))
			if t := rs.leaves(sps, dir); t != "" {
				why = fmt.Sprintf("your rule %d (%s) does not apply: %s is outside %s", e.Number, r, tildeFolder(t, s.home), r.Folder)
				continue
			}
		}
		if f := rs.floor(sps); f != "" {
			return Decision{Floor: tildeFolder(f, s.home), Why: fmt.Sprintf("your rule %d (%s) would allow it, but it touches %s, which always asks", e.Number, r, tildeFolder(f, s.home))}
		}
		return Decision{Kind: Allow, Rule: &r, Number: e.Number, Why: fmt.Sprintf("your rule %d (%s) allowed it without asking", e.Number, r)}
	}
	if why == "" {
		why = "no rule matches; Hark's policy asks (" + reasonList(v.Reasons) + ")"
	}
	return Decision{Why: why}
}

func reasonList(rs []policy.Reason) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, r.Why)
	}
	if len(parts) == 0 {
		return "it may change the machine"
	}
	return strings.Join(parts, "; ")
}

// reducedVerdict classifies a call's program and its subcommand words
// alone, to tell the program's own reasons from those its arguments add.
func (s *Store) reducedVerdict(wd string) func(call) policy.Verdict {
	return func(c call) policy.Verdict {
		ws := []string{c.program}
		for _, a := range c.args {
			if !subcommandWord(a) || len(ws) > maxWords {
				break
			}
			ws = append(ws, a)
		}
		return s.classify(joinWords(ws), wd)
	}
}

// Propose returns the narrowest allow rule for command run in wd, or an
// error that says why Always allow is not offered. The rule names the
// program, its leading subcommand words and the folder; its examples are
// the command itself and commands just beside it that it must not allow.
func (s *Store) Propose(command, wd string, v policy.Verdict) (Rule, error) {
	wd = filepath.Clean(wd)
	if v.Tier == policy.Safe {
		return Rule{}, refused("it is read-only and runs without asking")
	}
	p := parse(command, wd, s.home)
	if no := allowable(p, v, s.reducedVerdict(wd)); no != "" {
		return Rule{}, refused("%s", no)
	}
	c := p.calls[0]
	rs := newResolver(s.home)
	for _, d := range []string{wd, rs.real(wd)} {
		if f := protectedPath(d, s.home); f != "" {
			return Rule{}, refused("it runs in %s, which always asks; a rule there would cover too much", tildeFolder(f, s.home))
		}
	}
	sps, unknown := rs.spots(c)
	if unknown != "" {
		return Rule{}, refused("Hark cannot tell what it touches (%s)", unknown)
	}
	if no := s.hiddenWrites(c, wd); no != "" {
		return Rule{}, refused("%s", no)
	}
	if t := rs.leaves(sps, rs.real(wd)); t != "" {
		return Rule{}, refused("it names %s, outside the folder it runs in", tildeFolder(t, s.home))
	}
	if f := rs.floor(sps); f != "" {
		return Rule{}, refused("it touches %s, which always asks", tildeFolder(f, s.home))
	}
	var words []string
	for _, a := range c.args {
		if fileOperands[c.program] || !subcommandWord(a) || len(words) == maxWords {
			// A program whose operands are files has no subcommand:
			// the name just made is not what the person meant, the
			// program in this folder is ("mkdir in ~/Projects/webapp").
			break
		}
		words = append(words, a)
	}
	r := Rule{Kind: Allow, Program: c.program, Words: words, Folder: tildeFolder(wd, s.home)}
	r.Examples.Match = []string{command}
	prefix := joinWords(append([]string{c.program}, words...))
	if len(words) > 1 {
		r.Examples.NoMatch = append(r.Examples.NoMatch, joinWords(append([]string{c.program}, words[:len(words)-1]...)))
	}
	r.Examples.NoMatch = append(r.Examples.NoMatch, prefix+" ../elsewhere", prefix+" > out.txt")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	if err := s.check(r); err != nil {
		return Rule{}, refused("the rule it would need fails its own check (%v)", err)
	}
	for _, e := range s.entries {
		if e.Err != nil || e.Rule.Kind == Allow {
			continue
		}
		if match, _ := rs.matchesLoose(e.Rule, c); match {
			return Rule{}, refused("your rule %d (%s) covers it", e.Number, e.Rule)
		}
	}
	return r, nil
}

// Add checks r (its examples included), appends it and saves the file.
// It returns r's number.
func (s *Store) Add(r Rule) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	if err := s.check(r); err != nil {
		return 0, fmt.Errorf("rule not added: %w", err)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return 0, err
	}
	next := append(append([]Entry(nil), s.entries...), Entry{Number: len(s.entries) + 1, Rule: r, raw: raw})
	if err := s.save(next); err != nil {
		return 0, err
	}
	return len(next), nil
}

// Remove deletes rule n (1-based) and saves the file.
func (s *Store) Remove(n int) (Rule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	if n < 1 || n > len(s.entries) {
		return Rule{}, fmt.Errorf("there is no rule %d; `hark rules list` shows the %d there are", n, len(s.entries))
	}
	gone := s.entries[n-1].Rule
	next := append(append([]Entry(nil), s.entries[:n-1]...), s.entries[n:]...)
	for i := range next {
		next[i].Number = i + 1
	}
	return gone, s.save(next)
}

// save writes entries atomically; rules that could not be read are
// written back exactly as they were. The caller holds mu.
func (s *Store) save(entries []Entry) error {
	f := file{Version: 1, Rules: make([]json.RawMessage, len(entries))}
	for i, e := range entries {
		f.Rules[i] = e.raw
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("cannot create the folder for %s: %w", s.path, err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("cannot save %s (%w); the rules are unchanged", s.path, err)
	}
	s.entries = entries
	s.stamp = stampOf(s.path)
	return nil
}
