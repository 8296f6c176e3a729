package speech

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// A vocabulary is whisper's initial prompt: words it should expect, which
// bias recognition toward them ("grep", not "grab"; "Downloads", a branch
// called "feature-login"). Hark builds it from the words in the settings and
// from names that matter on this machine. whisper.cpp decodes the prompt
// before every transcription and every chunk of a stream, and that is on the
// path from key-up to text: about 1.4 ms a token for tiny.en on two cores.
// So the vocabulary is capped at MaxVocabulary bytes, about 75 tokens (some
// 100 ms) for a list of program and folder names (BenchmarkTokenizePrompt,
// BenchmarkPrompt and BenchmarkKeyUpToText in speech/whisper).

// MaxVocabulary bounds a vocabulary's length in bytes. The settings' own
// words are kept up to maxSettingsVocabulary even past it; names from the
// machine only fill what is left below MaxVocabulary.
const MaxVocabulary = 240

// maxSettingsVocabulary bounds the settings' words: whisper.cpp keeps at most
// 223 tokens of a prompt.
const maxSettingsVocabulary = 400

// maxBranches bounds the branches a vocabulary names: the most recently
// moved ones, so a repository with hundreds cannot crowd out the programs.
const maxBranches = 8

// VocabularySources are where a machine's names come from; a nil function
// adds nothing.
type VocabularySources struct {
	Settings string // the user's own words, first and always kept (comma or space separated)
	// Programs lists names on PATH, the most telling first (see
	// MachineVocabulary); their order is kept. Words are kept only where
	// Known reports them, so a folder full of oddly named tools does not
	// crowd out the ones a request will name.
	Programs func() []string
	Known    func(name string) bool
	Folders  func() []string // names of folders in home: "Downloads", "Projects" …
	Branches func() []string // the current repository's branch names, the most recent first; their order is kept
}

// BuildVocabulary joins the sources into a prompt: the settings' words, then
// names from the machine taken in turn from each source (a folder of home,
// sorted; a branch; a known program; and again), so each source is heard
// however long another's list is; each word once, skipping what could not
// be a spoken word (hidden names, very long ones, names without a letter).
func BuildVocabulary(src VocabularySources) string {
	var b strings.Builder
	seen := map[string]bool{}
	// add adds w if it is a new speakable word that fits within limit;
	// full reports that it did not fit.
	add := func(w string, limit int) (added, full bool) {
		w = strings.TrimRight(strings.TrimLeft(strings.TrimSpace(w), ",;"), ",.;")
		if !speakable(w) || seen[strings.ToLower(w)] {
			return false, false
		}
		sep := ""
		if b.Len() > 0 {
			sep = ", "
		}
		if b.Len()+len(sep)+len(w)+1 > limit { // +1 for the final full stop
			return false, true
		}
		seen[strings.ToLower(w)] = true
		b.WriteString(sep + w)
		return true, false
	}
	for _, w := range strings.FieldsFunc(src.Settings, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if _, full := add(w, maxSettingsVocabulary); full {
			break
		}
	}
	var lists [][]string
	if src.Folders != nil {
		lists = append(lists, slices.Sorted(slices.Values(src.Folders())))
	}
	if src.Branches != nil {
		br := src.Branches()
		lists = append(lists, br[:min(len(br), maxBranches)])
	}
	if src.Programs != nil {
		var out []string
		for _, p := range src.Programs() {
			if src.Known == nil || src.Known(p) {
				out = append(out, p)
			}
		}
		lists = append(lists, out)
	}
	// Round robin, a word from each source in turn: a source whose next
	// word does not fit is done, the others go on with their shorter ones.
	next := make([]int, len(lists))
	for open := true; open; {
		open = false
		for i, names := range lists {
			for next[i] < len(names) {
				added, full := add(names[next[i]], MaxVocabulary)
				next[i]++
				if full {
					next[i] = len(names)
				}
				if added {
					break
				}
			}
			open = open || next[i] < len(names)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + "."
}

// speakable reports whether a name could be said and heard as a word.
func speakable(w string) bool {
	if w == "" || len(w) > 32 || w[0] == '.' || !utf8.ValidString(w) {
		return false
	}
	return strings.IndexFunc(w, unicode.IsLetter) >= 0
}

// MachineVocabulary returns the vocabulary for this machine, from the
// settings' words, the folders in home, the programs on PATH that known
// accepts and the branches of the repository in dir, if any. It reads the
// machine at most once per ttl: building it walks PATH.
func MachineVocabulary(settingsWords, home, path, dir string, known func(string) bool) string {
	key := strings.Join([]string{settingsWords, home, path, dir}, "\x00")
	vocab.mu.Lock()
	defer vocab.mu.Unlock()
	if vocab.key == key && time.Since(vocab.at) < vocabularyTTL {
		return vocab.text
	}
	text := BuildVocabulary(VocabularySources{
		Settings: settingsWords,
		Folders:  func() []string { return dirNames(home) },
		Programs: func() []string { return programsOn(path) },
		Known:    known,
		Branches: func() []string { return gitBranches(dir) },
	})
	vocab.key, vocab.at, vocab.text = key, time.Now(), text
	return text
}

const vocabularyTTL = 10 * time.Minute

var vocab struct {
	mu   sync.Mutex
	key  string
	at   time.Time
	text string
}

func dirNames(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// programsOn lists the programs on path, those in folders the user filled
// first (Homebrew's, ~/.local/bin, /usr/local/bin …: what they chose to
// install, and the names whisper is likeliest to mishear), then the
// system's, which are mostly names it already knows as words ("cat",
// "date") or tools nobody asks for by voice; each group in PATH order,
// sorted within a folder.
func programsOn(path string) []string {
	var mine, system []string
	for _, d := range filepath.SplitList(path) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			if systemBinDir(d) {
				system = append(system, e.Name())
			} else {
				mine = append(mine, e.Name())
			}
		}
	}
	return append(mine, system...)
}

// systemBinDir reports whether d holds the operating system's own programs.
func systemBinDir(d string) bool {
	switch d = filepath.Clean(d); d {
	case "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/games", "/usr/libexec":
		return true
	}
	return strings.HasPrefix(d, "/System/") || strings.HasPrefix(d, "/Library/Apple/")
}

// gitBranches lists the local branches of the repository dir is in, the
// most recently moved first, without running git: each branch's time is its
// reflog's (which survives packing), else its ref file's; packed branches
// with neither come last. A repository another user owns is not read, as
// git itself refuses it: its branch names would be theirs to choose.
func gitBranches(dir string) []string {
	if dir == "" {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
			if !ownedByMe(fi) {
				return nil
			}
			return branchesIn(gitDir)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

func branchesIn(gitDir string) []string {
	type ref struct {
		name string
		at   time.Time
	}
	var refs []ref
	seen := map[string]bool{}
	when := func(name string, fallback time.Time) time.Time {
		if fi, err := os.Stat(filepath.Join(gitDir, "logs", "refs", "heads", filepath.FromSlash(name))); err == nil {
			return fi.ModTime()
		}
		return fallback
	}
	heads := filepath.Join(gitDir, "refs", "heads")
	filepath.WalkDir(heads, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(heads, p)
		info, ierr := e.Info()
		if err == nil && ierr == nil {
			name := filepath.ToSlash(rel)
			seen[name] = true
			refs = append(refs, ref{name, when(name, info.ModTime())})
		}
		return nil
	})
	if f, err := os.Open(filepath.Join(gitDir, "packed-refs")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if _, name, ok := strings.Cut(sc.Text(), " refs/heads/"); ok && !seen[name] {
				seen[name] = true
				refs = append(refs, ref{name, when(name, time.Time{})})
			}
		}
		f.Close()
	}
	slices.SortStableFunc(refs, func(a, b ref) int { return b.at.Compare(a.at) })
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.name
	}
	return out
}
