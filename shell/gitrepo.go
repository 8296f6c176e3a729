package shell

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// repoPrograms answers the policy's question (PolicyOptions.RepoPrograms):
// does the git repository that a command would use from dir have
// configuration that names a program which sandboxed git would still run?
// The sandbox's environment switches off hooks, fsmonitor, the pager and
// signing and credential programs (gitGuards), but not an external diff or
// the textconv, diff and filter drivers a repository names for its files,
// nor what an include pulls in. Such a repository makes the command ask.
// Relative directories, like the runner's, are under home.
func repoPrograms(home string) func(dir string) string {
	return func(dir string) string {
		dir, ok := underHome(dir, home)
		if !ok {
			return "" // ~user: the runner refuses it anyway
		}
		for _, cfg := range repoConfigFiles(filepath.Clean(dir)) {
			if what := configNamesProgram(cfg); what != "" {
				return what
			}
		}
		return ""
	}
}

// repoConfigFiles finds the repository git would discover from dir, as git
// does, by walking up to the first .git folder or gitfile, and returns its
// config files: the shared one and the worktree's.
func repoConfigFiles(dir string) []string {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		if err == nil {
			gitDir := dotgit
			if !fi.IsDir() { // a gitfile of a worktree or submodule
				b, err := os.ReadFile(dotgit)
				if err != nil {
					return nil
				}
				target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
				if !ok {
					return nil
				}
				gitDir = strings.TrimSpace(target)
				if !filepath.IsAbs(gitDir) {
					gitDir = filepath.Join(d, gitDir)
				}
			}
			files := []string{filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
			if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				c := strings.TrimSpace(string(common))
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				files = append(files, filepath.Join(c, "config"))
			}
			return files
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// configNamesProgram scans one git config file for the keys that name
// programs, and returns the first as git would write it, or "".
func configNamesProgram(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	section, sub := "", ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			head := strings.TrimSpace(line[1:end])
			section, sub = head, ""
			if i := strings.IndexAny(head, " \t"); i >= 0 { // [diff "x"]
				section, sub = head[:i], strings.Trim(strings.TrimSpace(head[i:]), `"`)
			} else if i := strings.IndexByte(head, '.'); i >= 0 { // [diff.x], the old form
				section, sub = head[:i], head[i+1:]
			}
			section = strings.ToLower(section)
			if section == "include" || section == "includeif" {
				return "an include of other configuration"
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		switch {
		case section == "diff" && sub == "" && key == "external":
			return "diff.external"
		case section == "diff" && sub != "" && (key == "textconv" || key == "command"):
			return "diff." + sub + "." + key
		case section == "filter" && (key == "clean" || key == "smudge" || key == "process"):
			return "filter." + sub + "." + key
		}
	}
	return ""
}
