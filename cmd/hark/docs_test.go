package main

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The README is short and points into docs/, so a renamed heading or a
// moved file would leave a newcomer at a dead link. These tests hold every
// relative link and #anchor in the repository's Markdown to a file and a
// heading that exist, with anchors computed as GitHub computes them.

var (
	// Fenced code blocks hold example text, never links or headings.
	mdFence = regexp.MustCompile("^ {0,3}(```|~~~)")
	// A code span: a run of backticks, content, the same run again.
	mdCode       = regexp.MustCompile("(`+)([^`]|[^`][\\s\\S]*?[^`])(`+)")
	mdATX        = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	mdSetext     = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	mdLink       = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	mdRefDef     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t]+"[^"]*")?[ \t]*$`)
	mdHTMLTag    = regexp.MustCompile(`<[^>]*>`)
	urlScheme    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	mdNotNewline = regexp.MustCompile(`[^\n]`)
)

// githubSlug is the anchor GitHub gives a heading: the text lowercased,
// everything but letters, marks, decimal digits, connector punctuation
// (Ruby's \p{Word}), hyphens and spaces dropped, and each space turned into a hyphen.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsMark(r), unicode.IsDigit(r), unicode.In(r, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headingText is what a heading renders as: links reduced to their text,
// code spans to their content, HTML tags removed.
func headingText(raw string) string {
	s := mdLink.ReplaceAllString(raw, "$1")
	s = mdCode.ReplaceAllStringFunc(s, func(m string) string {
		sub := mdCode.FindStringSubmatch(m)
		if len(sub[1]) != len(sub[3]) {
			return m
		}
		return strings.TrimSpace(sub[2])
	})
	return strings.TrimSpace(mdHTMLTag.ReplaceAllString(s, ""))
}

// mdProse returns the file's lines with fenced code blocks blanked, so line
// numbers still match the file.
func mdProse(text string) []string {
	lines := strings.Split(text, "\n")
	var fence string
	for i, l := range lines {
		if m := mdFence.FindStringSubmatch(l); m != nil {
			if fence == "" {
				fence = m[1]
			} else if m[1] == fence {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if fence != "" {
			lines[i] = ""
		}
	}
	return lines
}

// mdAnchors lists the anchors of a file's headings, with GitHub's -1, -2 …
// suffixes for repeated ones.
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	add := func(h string) {
		slug := githubSlug(headingText(h))
		if n, ok := seen[slug]; ok {
			seen[slug] = n + 1
			slug = fmt.Sprintf("%s-%d", slug, n+1)
		} else {
			seen[slug] = 0
		}
		anchors[slug] = true
	}
	lines := mdProse(text)
	for i, l := range lines {
		if m := mdATX.FindStringSubmatch(l); m != nil {
			add(m[1])
			continue
		}
		// A setext underline turns the paragraph line above into a heading;
		// a table's |---| row or a list item is no such line.
		if i > 0 && mdSetext.MatchString(l) {
			prev := strings.TrimSpace(lines[i-1])
			if prev != "" && !strings.HasPrefix(prev, "|") && !strings.HasPrefix(prev, "- ") && !strings.HasPrefix(prev, "* ") && !mdATX.MatchString(lines[i-1]) {
				add(prev)
			}
		}
	}
	return anchors
}

// mdLinks returns the targets of a file's links, images and reference
// definitions, outside code, each with the line it starts on.
func mdLinks(text string) []mdTarget {
	prose := strings.Join(mdProse(text), "\n")
	// Blank code spans but keep their newlines, so offsets still give lines.
	prose = mdCode.ReplaceAllStringFunc(prose, func(m string) string {
		sub := mdCode.FindStringSubmatch(m)
		if len(sub[1]) != len(sub[3]) {
			return m
		}
		return mdNotNewline.ReplaceAllString(m, " ")
	})
	var out []mdTarget
	for _, re := range []*regexp.Regexp{mdLink, mdRefDef} {
		for _, m := range re.FindAllStringSubmatchIndex(prose, -1) {
			start, end := m[len(m)-2], m[len(m)-1]
			out = append(out, mdTarget{
				line:   1 + strings.Count(prose[:m[0]], "\n"),
				target: prose[start:end],
			})
		}
	}
	return out
}

type mdTarget struct {
	line   int
	target string
}

// checkMarkdownLinks checks every Markdown file under root (outside hidden
// folders and testdata) and returns one line per link that does not
// resolve, and how many relative links it checked.
func checkMarkdownLinks(root string) (problems []string, checked int, err error) {
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	anchorsOf := map[string]map[string]bool{}
	anchors := func(p string) (map[string]bool, error) {
		if a, ok := anchorsOf[p]; ok {
			return a, nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		anchorsOf[p] = mdAnchors(string(data))
		return anchorsOf[p], nil
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		rel, _ := filepath.Rel(root, f)
		for _, l := range mdLinks(string(data)) {
			t := l.target
			if t == "" || urlScheme.MatchString(t) || strings.HasPrefix(t, "//") {
				continue
			}
			checked++
			where := fmt.Sprintf("%s:%d: %s", rel, l.line, t)
			pathPart, anchor, _ := strings.Cut(t, "#")
			pathPart, err := url.PathUnescape(pathPart)
			if err != nil {
				problems = append(problems, where+": bad escape in path")
				continue
			}
			target := f
			switch {
			case pathPart == "":
			case strings.HasPrefix(pathPart, "/"):
				target = filepath.Join(root, filepath.FromSlash(pathPart))
			default:
				target = filepath.Join(filepath.Dir(f), filepath.FromSlash(pathPart))
			}
			if r, err := filepath.Rel(root, target); err != nil || strings.HasPrefix(r, "..") {
				problems = append(problems, where+": points outside the repository")
				continue
			}
			st, err := os.Stat(target)
			if err != nil {
				problems = append(problems, where+": no such file")
				continue
			}
			if anchor == "" {
				continue
			}
			if st.IsDir() || !strings.HasSuffix(target, ".md") {
				problems = append(problems, where+": an anchor into a file that is not Markdown")
				continue
			}
			a, err := anchors(target)
			if err != nil {
				return nil, 0, err
			}
			if !a[anchor] {
				problems = append(problems, where+": no heading with that anchor")
			}
		}
	}
	return problems, checked, nil
}

func TestGitHubSlug(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"Rules: always allow, always ask, never":       "rules-always-allow-always-ask-never",
		"Building with whisper.cpp":                    "building-with-whispercpp",
		"1. Build with Homebrew's whisper-cpp (3 min)": "1-build-with-homebrews-whisper-cpp-3-min",
		"`hark send --wait` and friends":               "hark-send---wait-and-friends",
		"Deny — or [say why](x.md)":                    "deny--or-say-why",
		"snake_case <em>names</em>":                    "snake_case-names",
		"Größe und Maße":                               "größe-und-maße",
	} {
		if got := githubSlug(headingText(heading)); got != want {
			t.Errorf("slug of %q = %q, want %q", heading, got, want)
		}
	}
}

// TestMarkdownLinkCheckFindsBreaks runs the checker on a small tree whose
// broken links are known, so a checker that passes everything fails here.
func TestMarkdownLinkCheckFindsBreaks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/b.md", "# Title\n\n## Step\n\n## Step\n\nSetext heading\n--------------\n\n```sh\n# not a heading\n```\n")
	write("pic.png", "")
	write("README.md", strings.Join([]string{
		"# Top",
		"[ok](docs/b.md) [ok](docs/b.md#title) [ok](docs/b.md#step-1) [ok](docs/b.md#setext-heading)",
		"![ok](pic.png) [ok](#top) [ok](https://example.com/x#y) [ok](/docs/b.md#step)",
		"[split",
		"text](docs/missing.md)",
		"[bad](docs/b.md#step-2) [bad](#nowhere) [bad](pic.png#x) [bad](../up.md)",
		"`[in code](nowhere.md)`",
		"```",
		"[in a fence](nowhere.md)",
		"```",
		"[ref]: docs/gone.md",
		"[bad](docs/b.md#not-a-heading)",
	}, "\n"))
	problems, checked, err := checkMarkdownLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:11: docs/gone.md: no such file",
		"README.md:12: docs/b.md#not-a-heading: no heading with that anchor",
		"README.md:4: docs/missing.md: no such file",
		"README.md:6: #nowhere: no heading with that anchor",
		"README.md:6: ../up.md: points outside the repository",
		"README.md:6: docs/b.md#step-2: no heading with that anchor",
		"README.md:6: pic.png#x: an anchor into a file that is not Markdown",
	}
	slices.Sort(problems)
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if checked != 14 {
		t.Errorf("checked %d relative links, want 14", checked)
	}
}

// TestMarkdownLinksResolve checks the repository's own Markdown.
func TestMarkdownLinksResolve(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	problems, checked, err := checkMarkdownLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The README links into docs/ and docs/ links across itself; finding
	// none would mean the parser stopped seeing links.
	if checked < 20 {
		t.Errorf("only %d relative links found; the link parser misses some", checked)
	}
}

// TestReadmeLinksEveryDoc keeps each file in docs/ reachable from the README.
func TestReadmeLinksEveryDoc(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range mdLinks(string(readme)) {
		p, _, _ := strings.Cut(l.target, "#")
		linked[p] = true
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found")
	}
	for _, d := range docs {
		if name := "docs/" + filepath.Base(d); !linked[name] {
			t.Errorf("README.md does not link %s", name)
		}
	}
}

// TestDocsNamedInCodeExist holds messages, comments and make targets that
// send a reader to docs/NAME.md to a page that exists, since the compiler
// cannot see a moved page.
func TestDocsNamedInCodeExist(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	named := regexp.MustCompile(`docs/[A-Za-z0-9_-]+\.md`)
	found := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".sh") && d.Name() != "Makefile" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range named.FindAllString(string(data), -1) {
			if rel == filepath.Join("cmd", "hark", "docs_test.go") {
				break // this file's own examples
			}
			found++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m))); err != nil {
				t.Errorf("%s names %s, which does not exist", rel, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no docs/*.md named in code; the pattern misses them")
	}
}
