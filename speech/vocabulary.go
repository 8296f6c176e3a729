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
// from names that matter on this machine. whisper.cpp keeps at most half its
// text context (224 tokens) of a prompt and decodes it again on every pass
// it makes (each temperature fallback below 0.5), so the vocabulary is
// capped: MaxVocabulary bytes, about 150 tokens for a list of program and
// folder names (BenchmarkTokenizePrompt in speech/whisper).

// MaxVocabulary bounds a vocabulary's length in bytes.
const MaxVocabulary = 400

// VocabularySources are where a machine's names come from; a nil function
// adds nothing.
type VocabularySources struct {
	Settings string // the user's own words, first and always kept (comma or space separated)
	// Programs lists names on PATH that Hark's policy knows; words are kept
	// only where known reports them, so a folder full of oddly named tools
	// does not crowd out the ones a request will name.
	Programs func() []string
	Known    func(name string) bool
	Folders  func() []string // names of folders in home: "Downloads", "Projects" …
	Branches func() []string // the current repository's branch names
}

// BuildVocabulary joins the sources into a prompt: the settings' words,
// then home's folder names, then known programs, then branches, each word
// once, skipping what could not be a spoken word (hidden names, very long
// ones, names without a letter), until MaxVocabulary is reached.
func BuildVocabulary(src VocabularySources) string {
	var b strings.Builder
	seen := map[string]bool{}
	add := func(w string) bool {
		w = strings.TrimRight(strings.TrimLeft(strings.TrimSpace(w), ",;"), ",.;")
		if !speakable(w) || seen[strings.ToLower(w)] {
			return true
		}
		sep := ""
		if b.Len() > 0 {
			sep = ", "
		}
		if b.Len()+len(sep)+len(w)+1 > MaxVocabulary { // +1 for the final full stop
			return false
		}
		seen[strings.ToLower(w)] = true
		b.WriteString(sep + w)
		return true
	}
	for _, w := range strings.FieldsFunc(src.Settings, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if !add(w) {
			break
		}
	}
	lists := []func() []string{src.Folders, nil, src.Branches}
	if src.Programs != nil {
		lists[1] = func() []string {
			var out []string
			for _, p := range src.Programs() {
				if src.Known == nil || src.Known(p) {
					out = append(out, p)
				}
			}
			return out
		}
	}
	for _, list := range lists {
		if list == nil {
			continue
		}
		names := list()
		slices.Sort(names)
		for _, w := range names {
			if !add(w) {
				return b.String() + "."
			}
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

func programsOn(path string) []string {
	var out []string
	for _, d := range filepath.SplitList(path) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// gitBranches lists the local branches of the repository dir is in, from
// its refs folder and packed-refs, without running git.
func gitBranches(dir string) []string {
	if dir == "" {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
			var out []string
			heads := filepath.Join(gitDir, "refs", "heads")
			filepath.WalkDir(heads, func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					if rel, err := filepath.Rel(heads, p); err == nil {
						out = append(out, filepath.ToSlash(rel))
					}
				}
				return nil
			})
			if f, err := os.Open(filepath.Join(gitDir, "packed-refs")); err == nil {
				sc := bufio.NewScanner(f)
				for sc.Scan() {
					if _, ref, ok := strings.Cut(sc.Text(), " refs/heads/"); ok {
						out = append(out, ref)
					}
				}
				f.Close()
			}
			return out
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
